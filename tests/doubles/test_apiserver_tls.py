# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API server double over HTTPS with bearer tokens and client certificates (tls.py), checked with the real kubectl.

kubectl is given exactly what an AWX "Kubernetes bearer token" credential holds (a server URL, a token, a
CA file) on its command line, no kubeconfig anywhere (HOME an empty folder, no KUBECONFIG).
"""

import json
import os
import subprocess

import pytest

from apiserver import tls
from apiserver.server import ApiServerDouble

from conftest import KUBECTL

TOKEN = "awx-0123456789abcdef"


@pytest.fixture(name="pki")
def fixture_pki(tmp_path):
    return tls.Pki(tmp_path / "pki")


@pytest.fixture(name="secure")
def fixture_secure(pki, tmp_path):
    double = ApiServerDouble(tls=pki, tokens={TOKEN: "awx-job"}, audit_log=str(tmp_path / "audit.log")).start()
    try:
        yield double
    finally:
        double.stop()


def kubectl(tmp_path, *args):
    """The real kubectl with no kubeconfig: an empty HOME, no KUBECONFIG, stdin closed (no prompt can wait)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home)}
    return subprocess.run([KUBECTL] + list(args), env=env, capture_output=True, text=True, timeout=60, check=False,
                          stdin=subprocess.DEVNULL)


def test_kubectl_with_a_token_and_a_ca_file_cordons_and_the_audit_log_names_the_user(secure, pki, tmp_path):
    secure.add_node("n1")
    done = kubectl(tmp_path, "--server", secure.url, "--token", TOKEN, "--certificate-authority", pki.ca_cert, "cordon", "n1")
    assert (done.returncode, done.stdout, done.stderr) == (0, "node/n1 cordoned\n", "")
    assert secure.node("n1")["spec"] == {"unschedulable": True}
    assert secure.url.startswith("https://127.0.0.1:")
    assert set(secure.requests.users) == {"awx-job"}
    assert ("PATCH", "/api/v1/nodes/n1") in secure.requests
    with open(tmp_path / "audit.log", encoding="utf-8") as stream:
        events = [json.loads(line) for line in stream]
    assert {(e["method"], e["requestURI"], e["user"]["username"]) for e in events if e["method"] != "GET"} == {
        ("PATCH", "/api/v1/nodes/n1", "awx-job")}
    assert TOKEN not in (tmp_path / "audit.log").read_text(encoding="utf-8")


def test_a_wrong_token_and_no_token_are_refused_401_whatever_the_path(secure, pki, tmp_path):
    secure.add_node("n1")
    wrong = kubectl(tmp_path, "--server", secure.url, "--token", "not-the-token", "--certificate-authority", pki.ca_cert, "get", "nodes")
    # As against a real server: discovery's 401 first, in client-go's words for it, then kubectl's own line.
    assert wrong.returncode == 1
    assert wrong.stderr.splitlines()[-1] == "error: You must be logged in to the server (the server has asked for the client to provide credentials)"
    raw = kubectl(tmp_path, "--server", secure.url, "--token", "not-the-token", "--certificate-authority", pki.ca_cert, "get", "--raw", "/healthz")
    assert (raw.returncode, raw.stderr) == (1, "error: You must be logged in to the server (Unauthorized)\n")
    assert set(secure.requests.users) == {None}
    assert secure.node("n1")["spec"] == {}


def test_a_ca_that_did_not_sign_the_server_certificate_is_refused_by_kubectl(secure, tmp_path):
    other = tls.Pki(tmp_path / "other", name="other-ca")
    done = kubectl(tmp_path, "--server", secure.url, "--token", TOKEN, "--certificate-authority", other.ca_cert, "get", "nodes")
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == ("Unable to connect to the server: tls: failed to verify certificate: "
                                            "x509: certificate signed by unknown authority")
    assert not secure.requests


def test_a_client_certificate_signed_by_the_ca_authenticates_as_its_common_name(secure, pki, tmp_path):
    secure.add_node("n1")
    cert, key = pki.issue("ops-admin", organizations=("system:masters",))
    done = kubectl(tmp_path, "--server", secure.url, "--client-certificate", cert, "--client-key", key,
                   "--certificate-authority", pki.ca_cert, "get", "nodes", "-o", "name")
    assert (done.returncode, done.stdout, done.stderr) == (0, "node/n1\n", "")
    assert set(secure.requests.users) == {"ops-admin"}


def test_the_kubeconfig_it_writes_carries_the_ca_and_the_token(secure, tmp_path):
    secure.add_node("n1")
    kubeconfig = secure.write_kubeconfig(tmp_path / "kubeconfig")
    done = kubectl(tmp_path, "--kubeconfig", kubeconfig, "get", "nodes", "-o", "name")
    assert (done.returncode, done.stdout, done.stderr) == (0, "node/n1\n", "")
    assert set(secure.requests.users) == {"awx-job"}


def test_without_tokens_the_plain_http_double_still_checks_nothing(api, kubectl):  # pylint: disable=redefined-outer-name
    api.add_node("n1")
    done = kubectl("get", "nodes", "-o", "name")
    assert (done.returncode, done.stdout) == (0, "node/n1\n")
    assert api.url.startswith("http://127.0.0.1:")
    assert set(api.requests.users) == {None}
