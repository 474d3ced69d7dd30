"""The one exception family and the one place modules turn errors into failures."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors


class _Module:
    """Records what fail_json was given, and stops the body as AnsibleModule does."""

    def __init__(self):
        self.failed = None

    def fail_json(self, **result):
        self.failed = result
        raise SystemExit(1)


def _run(body, **context):
    module = _Module()
    with pytest.raises(SystemExit):
        _errors.run_module(module, body, **context)
    return module.failed


def test_collection_error_becomes_its_message_and_details():
    def body(module):
        raise _errors.NumaGateError("reservedSystemCPUs \"99\" is not online", field="reservedSystemCPUs")

    assert _run(body, root="/srv/node") == {
        "msg": "reservedSystemCPUs \"99\" is not online", "field": "reservedSystemCPUs", "root": "/srv/node"}


def test_os_error_names_the_file():
    def body(module):
        open("/nonexistent/numa-gate/file", encoding="utf-8")

    failed = _run(body)
    assert failed["msg"] == "/nonexistent/numa-gate/file: No such file or directory"
    assert "Traceback" in failed["exception"]


def test_anything_else_is_one_line_without_traceback_in_msg():
    def body(module):
        return {}["missing"]

    failed = _run(body)
    assert failed["msg"] == "unexpected KeyError: 'missing'"
    assert "Traceback" not in failed["msg"]
    assert "KeyError" in failed["exception"]


def test_success_does_not_fail():
    module = _Module()
    seen = []
    _errors.run_module(module, seen.append)
    assert seen == [module] and module.failed is None
