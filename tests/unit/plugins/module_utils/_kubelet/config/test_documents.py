"""Loading one kubelet configuration file: strict, and bounded against hostile YAML (issue 7, rule 4)."""

import signal
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import documents
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config.merge import KubeletConfigError, effective_config, load_document

HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
MAIN = "/var/lib/kubelet/config.yaml"


def billion_laughs():
    """The classic alias bomb: 9 levels of 9 aliases, 9**9 'lol's once expanded; 411 bytes."""
    lines = [HEAD + 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for name in "bcdefghi":
        lines.append("%s: &%s [%s]" % (name, name, ",".join(["*" + previous] * 9)))
        previous = name
    return "\n".join(lines) + "\n"


class _Hung(Exception):
    pass


def _alarm(_signum, _frame):
    raise _Hung()


@pytest.fixture
def deadline():
    """Fail a test that runs more than 5 seconds instead of hanging the suite."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(5)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def test_billion_laughs_is_refused_quickly_naming_the_file(deadline):
    bomb = billion_laughs()
    assert len(bomb.encode()) == 411
    started = time.monotonic()
    with pytest.raises(KubeletConfigError) as err:
        load_document(bomb, MAIN)
    assert time.monotonic() - started < 1.0
    assert str(err.value) == ("/var/lib/kubelet/config.yaml: yaml: document contains excessive aliasing "
                              "(its 32 YAML nodes would expand through aliases to more than 10000); not loaded")
    assert err.value.path == MAIN


def test_billion_laughs_in_a_dropin_is_refused_before_any_merge(deadline):
    with pytest.raises(KubeletConfigError) as err:
        effective_config(load_document(billion_laughs(), "/etc/kubernetes/kubelet.conf.d/10-x.conf"), [], MAIN)
    assert str(err.value).startswith("/etc/kubernetes/kubelet.conf.d/10-x.conf: yaml: document contains excessive aliasing")


def test_a_few_aliases_are_fine():
    text = HEAD + "kubeReserved: &r {cpu: 500m, memory: 1Gi}\nsystemReserved: *r\n"
    assert load_document(text, MAIN)["systemReserved"] == {"cpu": "500m", "memory": "1Gi"}


def test_merge_keys_count_as_expansion_too(deadline):
    lines = [HEAD + "a0: &a0 {" + ", ".join("k%d: v" % i for i in range(10)) + "}"]
    for level in range(1, 6):
        lines.append("a%d: &a%d [%s]" % (level, level, ", ".join(["*a%d" % (level - 1)] * 10)))
    lines.append("x:\n  <<: *a0\n  y: 1")
    with pytest.raises(KubeletConfigError) as err:
        load_document("\n".join(lines) + "\n", MAIN)
    assert "yaml: document contains excessive aliasing" in str(err.value)


def test_a_recursive_alias_is_refused(deadline):
    with pytest.raises(KubeletConfigError) as err:
        load_document(HEAD + "a: &x [1, *x]\n", MAIN)
    assert str(err.value) == "/var/lib/kubelet/config.yaml: yaml: an anchor's value contains itself (a recursive alias); not loaded"


def test_deep_nesting_is_refused_not_a_recursion_error(deadline):
    text = HEAD + "a: " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(KubeletConfigError) as err:
        load_document(text, MAIN)
    assert str(err.value) == "/var/lib/kubelet/config.yaml: yaml: exceeded max depth of 64; not loaded"


def test_nesting_within_the_bound_loads():
    text = HEAD + "a: " + "[" * 60 + "]" * 60 + "\n"
    assert "a" in load_document(text, MAIN)


def test_a_file_over_the_size_bound_is_not_parsed(deadline):
    text = HEAD + "# " + "x" * documents.MAX_DOCUMENT_BYTES + "\n"
    with pytest.raises(KubeletConfigError) as err:
        load_document(text, MAIN)
    assert str(err.value) == ("/var/lib/kubelet/config.yaml: %d bytes is over the 1048576-byte bound for a kubelet configuration file; "
                              "not parsed" % len(text))
    with pytest.raises(KubeletConfigError):
        load_document(text.encode(), MAIN)


def test_duplicate_keys_stay_refused():
    with pytest.raises(KubeletConfigError) as err:
        load_document(HEAD + "maxPods: 1\nmaxPods: 2\n", MAIN)
    assert "found duplicate key 'maxPods' (the kubelet's strict decoding rejects duplicate fields)" in str(err.value)


def test_error_is_a_numa_gate_error_with_the_path_as_detail():
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
    with pytest.raises(NumaGateError) as err:
        load_document("", MAIN)
    assert err.value.details == {}
    assert err.value.path == MAIN
    assert isinstance(err.value, ValueError)


def test_parse_yaml_bounds_any_document_issue_29():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        "%s: &%s [%s]\n" % (chr(98 + i), chr(98 + i), ", ".join(["*" + chr(97 + i)] * 10)) for i in range(5))
    with pytest.raises(ValueError) as raised:
        documents.parse_yaml(bomb)
    assert str(raised.value) == ("yaml: document contains excessive aliasing (its 23 YAML nodes would expand through aliases to more than "
                                 "10000); not loaded")
    with pytest.raises(ValueError) as raised:
        documents.parse_yaml("x" * 100, max_bytes=10)
    assert str(raised.value) == "100 bytes is over the 10-byte bound for a YAML document; not parsed"
    assert documents.parse_yaml("version: v1\nflags: {migStrategy: none}\n") == {"version": "v1", "flags": {"migStrategy": "none"}}
