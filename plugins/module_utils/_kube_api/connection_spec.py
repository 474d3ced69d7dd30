# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubernetes.core's connection options as an argument spec, with no imports.

Public: `OPTIONS`, `ARGUMENT_SPEC`, `ALIASES`, `REQUEST_TIMEOUT`, `REQUEST_TIMEOUT_SPEC`.

`connection` checks them; the module files of the API-facing actions (which are imported where
only the node's Python and its libraries are, so never `connection` and its kubernetes client)
declare the same options from here.
"""

from __future__ import annotations

OPTIONS = ("kubeconfig", "context", "host", "api_key", "ca_cert", "client_cert", "client_key", "validate_certs", "proxy")
ARGUMENT_SPEC = {
    "kubeconfig": {"type": "path"},
    "context": {"type": "str"},
    "host": {"type": "str"},
    "api_key": {"type": "str", "no_log": True},
    "ca_cert": {"type": "path", "aliases": ["ssl_ca_cert"]},
    "client_cert": {"type": "path", "aliases": ["cert_file"]},
    "client_key": {"type": "path", "aliases": ["key_file"]},
    "validate_certs": {"type": "bool", "aliases": ["verify_ssl"]},
    "proxy": {"type": "str"},
}
# Seconds one API request may take in all: the one default, read by the client (api.connect) and by every
# API-facing action's argument spec (and checked against the kube_api doc fragment by a unit test).
REQUEST_TIMEOUT = 30
REQUEST_TIMEOUT_SPEC = {"type": "float", "default": REQUEST_TIMEOUT}
ALIASES = frozenset(alias for spec in ARGUMENT_SPEC.values() for alias in spec.get("aliases", ()))
