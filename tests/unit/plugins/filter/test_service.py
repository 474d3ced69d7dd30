"""The service filters adapt module_utils: the same result, errors as AnsibleFilterError with the filter's name."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter import service
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import compare as service_compare
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import runs_cases as service_runs

TEXT = '# TYPE vllm:request_success_total counter\nvllm:request_success_total{finished_reason="stop"} %d\n'


def test_filters():
    assert sorted(service.FilterModule().filters()) == ["service_comparison", "service_scrape_window"]


def test_scrape_window():
    window = service.service_scrape_window({"text": TEXT % 9, "timestamp": 70}, {"text": TEXT % 3, "timestamp": 10})
    assert window["duration"] == 60.0 and window["metrics"]["requests"]["total"] == 6.0
    with pytest.raises(AnsibleFilterError, match=r"^service_scrape_window: the end scrape \(10.0\) is not later than the start scrape \(70.0\)$"):
        service.service_scrape_window({"text": "", "timestamp": 10}, {"text": "", "timestamp": 70})


def test_comparison():
    objectives = [{"metric": "ttft", "quantile": 0.95, "at_most": 0.5}]
    assert service.service_comparison(service_runs.interleaved(), objectives) == service_compare.compare(service_runs.interleaved(), objectives)
    with pytest.raises(AnsibleFilterError, match=r"^service_comparison: objectives\[0\] must be a mapping such as "):
        service.service_comparison(service_runs.interleaved(), ["p95 < 1"])
