# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for the tests of the test doubles: an API server double per test and a kubeconfig for it."""

import os

import pytest

from apiserver.server import ApiServerDouble

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV_BIN = os.path.join(REPO, ".venv", "bin")


@pytest.fixture(name="api")
def fixture_api():
    """A running API server double, stopped after the test."""
    double = ApiServerDouble().start()
    try:
        yield double
    finally:
        double.stop()


@pytest.fixture(name="kubeconfig")
def fixture_kubeconfig(api, tmp_path):
    """A kubeconfig file whose current context is the double."""
    return api.write_kubeconfig(tmp_path / "kubeconfig")
