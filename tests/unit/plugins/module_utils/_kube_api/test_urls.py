# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""urls: a password with an unencoded '/' or '@' is masked whole; a URL without credentials is left as it is (issue 29, class 2).
Header names and values checked before anything is sent: transport.header_problem."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import transport, urls


@pytest.mark.parametrize("url, masked, secrets", [
    ("http://u:pa/ss@h:9/x", "http://********@h:9/x", ["u:pa/ss", "u", "pa/ss"]),
    ("http://u:p@ss@h/x", "http://********@h/x", ["u:p@ss", "u", "p@ss"]),
    ("https://token@h/x", "https://********@h/x", ["token", "token"]),
    ("http://h:9/x?a=b", "http://h:9/x?a=b", []),
    ("http://h/x@y", "http://h/x@y", []),
])
def test_userinfo_masked_whole(url, masked, secrets):
    assert (urls.mask_url(url), urls.userinfo(url)) == (masked, secrets)


def test_two_urls_in_a_text_each_masked():
    assert urls.mask_text("GET http://u:pw/1@h/x failed, see http://a:b/c@d/", ["pw/1"]) == \
        "GET http://********@h/x failed, see http://********@d/"


@pytest.mark.parametrize("headers, problem", [
    ({"Authorization": "Bearer x\r\nEvil: 1"}, "header 'Authorization' has a control character (U+000D) at offset 8 of its value "
     "(17 characters, not shown: it may hold a credential); a CR or LF would end the header and start another; not sent"),
    ({"X-A": "a\x00b"}, "header 'X-A' has a control character (U+0000) at offset 1 of its value (3 characters, not shown: it may hold "
     "a credential); a CR or LF would end the header and start another; not sent"),
    ({"X Token": "a"}, "header name 'X Token' is not an HTTP field name (a token of letters, digits and !#$%&'*+-.^_`|~, RFC 9110); not sent"),
    ({"X\r\nEvil": "a"}, "header name 'X\\r\\nEvil' is not an HTTP field name (a token of letters, digits and !#$%&'*+-.^_`|~, RFC 9110); "
     "not sent"),
    ({"": "a"}, "header name '' is not an HTTP field name (a token of letters, digits and !#$%&'*+-.^_`|~, RFC 9110); not sent"),
    ({"X-N": 5}, "header 'X-N' value is of type int, not a string; not sent"),
    (["a"], "headers must be a mapping of header name to value, got list"),
    ({"Accept": "text/plain; version=0.0.4", "X-T": "a\tb"}, None),
])
def test_header_problem(headers, problem):
    assert transport.header_problem(headers) == problem


def test_exchange_refuses_before_sending():
    with pytest.raises(transport.TransportError) as raised:
        transport.exchange(None, "GET", "http://127.0.0.1:9/", {"A": "x\ny"}, None, float("inf"), 10)
    assert raised.value.stage == "not sent" and "x\ny" not in str(raised.value)
