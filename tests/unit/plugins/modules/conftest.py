"""Shared fixtures for module tests run in-process."""

import pytest

from ansible.module_utils import _internal as ansible_internal
from ansible.module_utils.common import warnings as ansible_warnings


@pytest.fixture(autouse=True)
def module_side_of_ansible(monkeypatch):
    """Run each module test as a module on a target, with no warnings left from other tests.

    Importing controller code (the filter plugin tests do) flips ``is_controller``,
    which sends module warnings to the display instead of the result.
    Warnings and deprecations are process-global, so they are cleared around each test.
    """
    monkeypatch.setattr(ansible_internal, "is_controller", False)
    ansible_warnings._global_warnings.clear()  # pylint: disable=protected-access
    ansible_warnings._global_deprecations.clear()  # pylint: disable=protected-access
    yield
    ansible_warnings._global_warnings.clear()  # pylint: disable=protected-access
    ansible_warnings._global_deprecations.clear()  # pylint: disable=protected-access
