"""prometheus_rules: each rule changes at the tag where Prometheus' source changes it, and the reference agrees tag by tag."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import prometheus_rules
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import prom_reference as ref

NAMES = {"quantile": {"2": "running-max", "3": "small-deltas"}, "sum": {"2": "plain", "3": "kahan"}, "range": {"2": "closed", "3": "left-open"},
         "extrapolation": {"2": "zero-clamp-first", "3": "cap-first"}}


@pytest.mark.parametrize("tag", sorted(ref.TAGS))
def test_rules_equal_the_reference_at_each_tag(tag):
    rules = prometheus_rules.rules_for(tag)
    assert {name: rules[name] for name in NAMES} == {name: NAMES[name][ref.rule(tag, name)] for name in NAMES}
    assert rules["le"] == ("normalized" if tag.startswith("3.") else "as-written")
    assert rules["checked"] is True and rules["major"] == tag[0] + ".x" and rules["version"] == tag


@pytest.mark.parametrize("before, since, name", [("2.48.1", "2.49.0", "quantile"), ("2.53.1", "2.54.0", "sum"), ("2.55.1", "3.0.0", "range"),
                                                 ("2.55.1", "3.0.0", "le"), ("2.50.1", "2.51.0", "extrapolation")])
def test_each_change_at_its_first_tag(before, since, name):
    assert prometheus_rules.rules_for(before)[name] != prometheus_rules.rules_for(since)[name]
    assert prometheus_rules.rules_for(since)[name] == prometheus_rules.rules_for(since + "-rc.0")[name]


@pytest.mark.parametrize("text, parsed", [("2.42.0+ds", (2, 42, 0)), ("v3.0.1", (3, 0, 1)), (" 2.53.4 ", (2, 53, 4)), ("3.14.0-rc.1", (3, 14, 0)),
                                          ("2.42", None), ("main", None), ("", None), (None, None), (2.42, None), ("2.42.0.1", None)])
def test_parse_version(text, parsed):
    assert prometheus_rules.parse_version(text) == parsed


@pytest.mark.parametrize("version, major, checked", [("2.41.0", "2.x", False), ("2.42.0", "2.x", True), ("3.14.9", "3.x", True),
                                                     ("3.15.0", "3.x", False), ("4.0.0", "unknown", False), ("1.8.2", "unknown", False)])
def test_checked_span(version, major, checked):
    rules = prometheus_rules.rules_for(version)
    assert (rules["major"], rules["checked"]) == (major, checked)


@pytest.mark.parametrize("version", [None, "thanos", "4.0.0", "1.8.2"])
def test_unknown_versions_claim_no_rule(version):
    rules = prometheus_rules.rules_for(version)
    assert rules == {"version": version if isinstance(version, str) else None, "checked": False, "major": "unknown", "quantile": None,
                     "sum": None, "range": None, "le": None, "extrapolation": None}
