# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubernetes.core's connection options (connection.py) and api.connect with them, against the API server double over HTTPS.

The double (tests/doubles/apiserver, tls.py) serves a test CA's certificate and takes one bearer token; the
client is the real ``kubernetes`` library. No test has a kubeconfig unless it says so: the client's
default location is pointed at a path that does not exist.
"""

import os
import time

import pytest

from apiserver import server, tls  # pylint: disable=import-error

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection, kubeconfig
from ansible_collections.gpusmith.numa_gate.tests.unit import tree_state

TOKEN = "awx-token-0123456789"


@pytest.fixture(autouse=True)
def no_default_kubeconfig(tmp_path, monkeypatch):
    monkeypatch.setattr(kubeconfig._kube_config, "KUBE_CONFIG_DEFAULT_LOCATION", str(tmp_path / "no-such-kubeconfig"))  # pylint: disable=protected-access


@pytest.fixture(name="pki")
def fixture_pki(tmp_path):
    return tls.Pki(tmp_path / "pki")


@pytest.fixture(name="secure")
def fixture_secure(pki):
    double = server.ApiServerDouble(tls=pki, tokens={TOKEN: "awx-job"}).start()
    double.add_node("n1")
    try:
        yield double
    finally:
        double.stop()


def awx(double, pki, **extra):
    """The variables an AWX "Kubernetes bearer token" credential with a CA exports (awx injectors.kubernetes_bearer_token)."""
    return dict({"K8S_AUTH_HOST": double.url, "K8S_AUTH_API_KEY": TOKEN, "K8S_AUTH_VERIFY_SSL": "True",
                 "K8S_AUTH_SSL_CA_CERT": pki.ca_cert}, **extra)


def refusal(args, environ):
    with pytest.raises(kube_api.NumaGateError) as caught:
        connection.from_task(args, environ)
    return str(caught.value)


# -- where each option comes from -------------------------------------------------------------------

def test_awx_variables_alone_connect_and_the_double_sees_the_token_user(secure, pki):
    settings = connection.from_task({}, awx(secure, pki))
    assert settings.values == {"kubeconfig": None, "context": None, "host": secure.url, "api_key": TOKEN, "ca_cert": pki.ca_cert,
                               "client_cert": None, "client_key": None, "validate_certs": True, "proxy": None}
    assert settings.sources == {"host": "K8S_AUTH_HOST", "api_key": "K8S_AUTH_API_KEY", "ca_cert": "K8S_AUTH_SSL_CA_CERT",
                                "validate_certs": "K8S_AUTH_VERIFY_SSL"}
    assert settings.direct is True
    api = kube_api.connect(settings=settings, timeout=5)
    assert api.get_node("n1")["metadata"]["name"] == "n1"
    api.set_unschedulable("n1", True)
    assert secure.node("n1")["spec"] == {"unschedulable": True}
    expected = [(("GET", "/api/v1/nodes/n1"), "awx-job"), (("PATCH", "/api/v1/nodes/n1"), "awx-job")]
    assert list(zip(secure.requests, secure.requests.users)) == expected


def test_a_task_value_wins_over_its_variable_and_the_option_name_over_the_client_name(tmp_path):
    ca_cert = tmp_path / "ca.pem"
    ca_cert.write_text("x")
    environ = {"K8S_AUTH_HOST": "https://from-env:6443", "K8S_AUTH_API_KEY": "env-token", "K8S_AUTH_CA_CERT": str(ca_cert),
               "K8S_AUTH_SSL_CA_CERT": "/nowhere/ca.pem", "K8S_AUTH_VALIDATE_CERTS": "no", "K8S_AUTH_VERIFY_SSL": "yes",
               "K8S_AUTH_CONTEXT": "", "K8S_AUTH_PROXY": "http://proxy.example:3128/"}
    settings = connection.from_task({"host": "https://from-task:6443/", "context": None, "api_key": ""}, environ)
    assert settings.values == {"kubeconfig": None, "context": None, "host": "https://from-task:6443", "api_key": "env-token",
                               "ca_cert": str(ca_cert), "client_cert": None, "client_key": None, "validate_certs": False,
                               "proxy": "http://proxy.example:3128"}
    assert settings.sources == {"api_key": "K8S_AUTH_API_KEY", "ca_cert": "K8S_AUTH_CA_CERT", "validate_certs": "K8S_AUTH_VALIDATE_CERTS",
                                "proxy": "K8S_AUTH_PROXY"}


def test_path_variables_expand_the_home_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "ca.pem").write_text("x")
    settings = connection.from_task({}, {"K8S_AUTH_HOST": "https://h", "K8S_AUTH_API_KEY": "t0ken", "K8S_AUTH_SSL_CA_CERT": "~/ca.pem"})
    assert settings["ca_cert"] == str(tmp_path / "ca.pem")


# -- refusals, before anything is read or sent ------------------------------------------------------

@pytest.mark.parametrize("environ, message", [
    ({"K8S_AUTH_CERT_FILE": "/c.pem", "K8S_AUTH_HOST": "https://h"},
     "client_cert (from K8S_AUTH_CERT_FILE) is set but client_key is not: a client certificate and its key go together "
     "(client_key or K8S_AUTH_CLIENT_KEY or K8S_AUTH_KEY_FILE)"),
    ({"K8S_AUTH_KEY_FILE": "/k.pem"},
     "client_key (from K8S_AUTH_KEY_FILE) is set but client_cert is not: a client certificate and its key go together "
     "(client_cert or K8S_AUTH_CLIENT_CERT or K8S_AUTH_CERT_FILE)"),
    ({"K8S_AUTH_API_KEY": TOKEN},
     "api_key (from K8S_AUTH_API_KEY) is set but host is not, and there is no kubeconfig to take the API server from (kubeconfig, "
     "K8S_AUTH_KUBECONFIG, $KUBECONFIG and ~/.kube/config are all unset or absent): set host (K8S_AUTH_HOST) to the API server's URL"),
    ({"K8S_AUTH_HOST": "https://h:6443"},
     "host (from K8S_AUTH_HOST) is set without a credential, and there is no kubeconfig to take one from: set api_key (K8S_AUTH_API_KEY), "
     "or client_cert and client_key (K8S_AUTH_CERT_FILE, K8S_AUTH_KEY_FILE), or kubeconfig (K8S_AUTH_KUBECONFIG)"),
    ({}, "no API server to talk to: set host and api_key (K8S_AUTH_HOST, K8S_AUTH_API_KEY), or host, client_cert and client_key, "
         "or kubeconfig (K8S_AUTH_KUBECONFIG); $KUBECONFIG and ~/.kube/config are unset or absent"),
    ({"K8S_AUTH_VERIFY_SSL": "maybe"}, "K8S_AUTH_VERIFY_SSL is 'maybe', not a boolean (true or false, yes or no, 1 or 0) for validate_certs"),
    ({"K8S_AUTH_HOST": "https://admin:hunter22@h:6443?x=1", "K8S_AUTH_API_KEY": TOKEN},
     "host (from K8S_AUTH_HOST) 'https://********@h:6443?x=1' is not the API server's URL: http:// or https://<host>[:<port>][/<path>], "
     "without a query or fragment"),
    ({"K8S_AUTH_HOST": "h:6443", "K8S_AUTH_API_KEY": TOKEN},
     "host (from K8S_AUTH_HOST) 'h:6443' is not the API server's URL: http:// or https://<host>[:<port>][/<path>], without a query or fragment"),
    ({"K8S_AUTH_HOST": "https://h", "K8S_AUTH_API_KEY": TOKEN, "K8S_AUTH_PROXY": "ftp://p"},
     "proxy (from K8S_AUTH_PROXY) 'ftp://p' is not a proxy URL: http:// or https:// or socks4:// or socks4a:// or socks5:// or socks5h://"
     "<host>[:<port>][/<path>], without a query or fragment"),
    ({"K8S_AUTH_HOST": "https://h", "K8S_AUTH_API_KEY": TOKEN + "\r\nX-Injected: 1"},
     "api_key (from K8S_AUTH_API_KEY) holds a space, a line break or a character that is not printable ASCII; a bearer token is one word "
     "(not shown: it is a credential); nothing was sent"),
])
def test_a_bad_combination_or_value_is_refused_naming_the_options(environ, message):
    assert refusal({}, environ) == message


def test_task_options_are_named_without_a_variable():
    assert refusal({"client_cert": "/c.pem", "host": "https://h"}, {}) == (
        "client_cert is set but client_key is not: a client certificate and its key go together (client_key or K8S_AUTH_CLIENT_KEY "
        "or K8S_AUTH_KEY_FILE)")


def test_a_ca_file_that_is_a_fifo_or_missing_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "ca.pem"
    os.mkfifo(fifo)
    before = tree_state.snapshot(tmp_path)
    started = time.monotonic()
    message = tree_state.bounded(lambda: refusal({}, {"K8S_AUTH_HOST": "https://h", "K8S_AUTH_API_KEY": TOKEN,
                                                      "K8S_AUTH_SSL_CA_CERT": str(fifo)}), 10)
    assert time.monotonic() - started < 2
    assert message == "ca_cert (from K8S_AUTH_SSL_CA_CERT) %s is a FIFO, not a regular file; not read" % fifo
    assert refusal({"ca_cert": str(tmp_path / "none.pem"), "host": "https://h", "api_key": TOKEN}, {}) == (
        "ca_cert %s: No such file or directory" % (tmp_path / "none.pem"))
    assert tree_state.snapshot(tmp_path) == before


def test_with_host_and_a_token_the_kubeconfig_is_not_read_even_when_named(secure, pki, tmp_path):
    fifo = tmp_path / "kubeconfig"
    os.mkfifo(fifo)  # opening it would block: the test ends only because nothing opens it
    settings = connection.from_task({"kubeconfig": str(fifo), "context": "elsewhere"}, awx(secure, pki))
    api = tree_state.bounded(lambda: kube_api.connect(settings=settings, timeout=5), 10)
    assert api.get_node("n1")["metadata"]["name"] == "n1"


# -- a kubeconfig with options over it ----------------------------------------------------------------

def test_api_key_overrides_the_kubeconfig_users_token(secure, tmp_path):
    path = tmp_path / "kubeconfig"
    secure.write_kubeconfig(path)
    path.write_text(path.read_text(encoding="utf-8").replace("{token: %s}" % TOKEN, "{token: stale-token}"), encoding="utf-8")
    stale = kube_api.connect(settings=connection.from_task({"kubeconfig": str(path)}, {}), timeout=5)
    with pytest.raises(kube_api.KubeApiError) as caught:
        stale.get_node("n1")
    assert str(caught.value) == ("GET %s/api/v1/nodes/n1: HTTP 401 Unauthorized: the API server did not accept the credentials of the "
                                 "kubeconfig %s (context (current))" % (secure.url, path))
    settings = connection.from_task({"kubeconfig": str(path)}, {"K8S_AUTH_API_KEY": TOKEN})
    assert settings.direct is False
    assert kube_api.connect(settings=settings, timeout=5).get_node("n1")["metadata"]["name"] == "n1"
    assert secure.requests.users == [None, "awx-job"]


def test_host_and_ca_cert_override_the_kubeconfig(secure, pki, tmp_path):
    path = tmp_path / "kubeconfig"
    path.write_text(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: c\n"
        "  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: %s}\n" % TOKEN, encoding="utf-8")
    settings = connection.from_task({"kubeconfig": str(path), "host": secure.url, "ca_cert": pki.ca_cert}, {})
    api = kube_api.connect(settings=settings, timeout=5)
    assert [api.get_node("n1")["metadata"]["name"] for attempt in range(2)] == ["n1", "n1"]  # the loader's token refresh keeps them
    assert secure.requests.users == ["awx-job", "awx-job"]


# -- what the API server answers ---------------------------------------------------------------------

def test_a_wrong_token_fails_401_naming_the_variable_never_the_token(secure, pki):
    api = kube_api.connect(settings=connection.from_task({}, awx(secure, pki, K8S_AUTH_API_KEY="wrong-token-42")), timeout=5)
    with pytest.raises(kube_api.KubeApiError) as caught:
        api.set_unschedulable("n1", True)
    assert str(caught.value) == ("PATCH %s/api/v1/nodes/n1: HTTP 401 Unauthorized: the API server did not accept the bearer token in "
                                 "api_key (from K8S_AUTH_API_KEY)" % secure.url)
    assert (caught.value.code, caught.value.reason) == (401, "Unauthorized")
    assert secure.node("n1")["spec"] == {}
    assert secure.requests.users == [None]


def test_a_ca_that_did_not_sign_the_server_certificate_fails_at_once_naming_the_tls_error(secure, pki, tmp_path):
    other = tls.Pki(tmp_path / "other", name="other-ca")
    api = kube_api.connect(settings=connection.from_task({}, awx(secure, pki, K8S_AUTH_SSL_CA_CERT=other.ca_cert)), timeout=5)
    started = time.monotonic()
    with pytest.raises(kube_api.KubeApiError) as caught:
        api.get_node("n1")
    assert time.monotonic() - started < 1  # one try: a certificate that failed verification fails again
    assert str(caught.value) == (
        "cannot reach the API server at %s (GET /api/v1/nodes/n1): its TLS certificate was not accepted: [SSL: CERTIFICATE_VERIFY_FAILED] "
        "certificate verify failed: unable to get local issuer certificate (_ssl.c:1006); nothing was sent (the CA that signed it is "
        "ca_cert, K8S_AUTH_SSL_CA_CERT, or the kubeconfig's certificate-authority)" % secure.url)
    assert not secure.requests


def test_awx_without_a_ca_turns_verification_off(secure, pki):
    environ = awx(secure, pki, K8S_AUTH_VERIFY_SSL="False")
    del environ["K8S_AUTH_SSL_CA_CERT"]
    with pytest.warns(Warning, match="Unverified HTTPS request"):
        assert kube_api.connect(settings=connection.from_task({}, environ), timeout=5).get_node("n1")["metadata"]["name"] == "n1"


def test_a_client_certificate_and_key_authenticate_as_its_common_name(secure, pki):
    cert, key = pki.issue("ops-admin")
    settings = connection.from_task({"host": secure.url, "client_cert": cert, "client_key": key, "ca_cert": pki.ca_cert}, {})
    assert settings.direct is True
    kube_api.connect(settings=settings, timeout=5).set_unschedulable("n1", True)
    assert secure.requests.users == ["ops-admin"]
    assert secure.node("n1")["spec"] == {"unschedulable": True}
