# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How a controller-side action reaches the API server: kubernetes.core's connection options, checked, as a client Configuration.

Public: `OPTIONS`, `ARGUMENT_SPEC`, `ALIASES`, `ENVIRONMENT`, `Settings`, `from_task`, `configuration`, `ConnectionOptionsError`.

The options and their environment variables are kubernetes.core's (its ``k8s_auth_options`` doc
fragment and ``args_common.AUTH_ARG_MAP``), so an AWX "OpenShift or Kubernetes API Bearer Token"
credential (which exports K8S_AUTH_HOST, K8S_AUTH_API_KEY, K8S_AUTH_VERIFY_SSL and, with a CA,
K8S_AUTH_SSL_CA_CERT) and a play's ``module_defaults`` work as they do for kubernetes.core modules:
- each option is the task's (``module_defaults`` included) or else the first non-empty one of its
  variables in `ENVIRONMENT` (``K8S_AUTH_<option>``, then ``K8S_AUTH_<the client's name>``);
- ``host`` with ``api_key``, or ``host`` with ``client_cert`` and ``client_key``, is enough: no
  kubeconfig is read (``kubeconfig`` and ``context`` are then not used, as in kubernetes.core);
- otherwise the kubeconfig (``kubeconfig``, else the client's default ``$KUBECONFIG`` or
  ~/.kube/config) is loaded with ``context``, and every option that is set overrides what it says.
Unlike kubernetes.core, a bad combination or value is refused before anything is read or sent,
naming the options and where each came from; an empty variable counts as unset; a boolean variable
must be a boolean word; the CA, certificate and key files are checked as the kubeconfig is
(regular files of at most 4 MiB). There is no in-cluster configuration: nothing here reads a
service account's token.
"""

from __future__ import annotations

import os
import re
import urllib.parse

from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as _shape
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection_spec
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import kubeconfig as _kubeconfig
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import urls

# The options, shared with the API-facing module files (connection_spec has no imports).
OPTIONS = connection_spec.OPTIONS
ARGUMENT_SPEC = connection_spec.ARGUMENT_SPEC
ALIASES = connection_spec.ALIASES
# kubernetes.core reads K8S_AUTH_<its option name>, then K8S_AUTH_<the kubernetes client's attribute>.
ENVIRONMENT = {
    "kubeconfig": ("K8S_AUTH_KUBECONFIG",),
    "context": ("K8S_AUTH_CONTEXT",),
    "host": ("K8S_AUTH_HOST",),
    "api_key": ("K8S_AUTH_API_KEY",),
    "ca_cert": ("K8S_AUTH_CA_CERT", "K8S_AUTH_SSL_CA_CERT"),
    "client_cert": ("K8S_AUTH_CLIENT_CERT", "K8S_AUTH_CERT_FILE"),
    "client_key": ("K8S_AUTH_CLIENT_KEY", "K8S_AUTH_KEY_FILE"),
    "validate_certs": ("K8S_AUTH_VALIDATE_CERTS", "K8S_AUTH_VERIFY_SSL"),
    "proxy": ("K8S_AUTH_PROXY",),
}
_FILES = ("ca_cert", "client_cert", "client_key")
_ATTRIBUTES = (("host", "host"), ("ca_cert", "ssl_ca_cert"), ("client_cert", "cert_file"), ("client_key", "key_file"),
               ("validate_certs", "verify_ssl"), ("proxy", "proxy"))
_PROXY_SCHEMES = ("http", "https", "socks4", "socks4a", "socks5", "socks5h")
_TOKEN = re.compile(r"^[\x21-\x7e]+$")
_ANY_SPACE = re.compile(r"[\s\x00-\x1f\x7f]")


class ConnectionOptionsError(NumaGateError):
    """Connection options that cannot work together, or a value one of them cannot take."""


class Settings:
    """The connection options of one task: ``values`` (every name of `OPTIONS`, None when unset) and where each came from."""

    def __init__(self, values, sources=None):
        self.values = {name: values.get(name) for name in OPTIONS}
        self.sources = dict(sources or {})

    def __getitem__(self, name):
        return self.values[name]

    def name(self, option):
        """``option`` as a message names it: ``api_key`` or ``api_key (from K8S_AUTH_API_KEY)``."""
        source = self.sources.get(option)
        return "%s (from %s)" % (option, source) if source else option

    @property
    def direct(self):
        """True when host and a credential are set: no kubeconfig is read."""
        values = self.values
        return bool(values["host"] and (values["api_key"] or (values["client_cert"] and values["client_key"])))

    def credential(self):
        """What the API server is shown, for a refusal: the bearer token, the client certificate or the kubeconfig's user."""
        if self.values["api_key"]:
            return "the bearer token in %s" % self.name("api_key")
        if self.values["client_cert"]:
            return "the client certificate %s (%s)" % (self.values["client_cert"], self.name("client_cert"))
        return "the credentials of the kubeconfig %s (context %s)" % (self.values["kubeconfig"] or "(default)", self.values["context"] or "(current)")

    def secrets(self):
        """The strings no message may show: the token, and the userinfo of the host and proxy URLs."""
        found = [self.values["api_key"]] if self.values["api_key"] else []
        return found + urls.userinfo(self.values["host"]) + urls.userinfo(self.values["proxy"])


def from_task(args, environ=None):
    """The checked `Settings` of a task's validated ``args`` (their `OPTIONS`), unset ones from `ENVIRONMENT` in ``environ``.

    ``environ``: the controller's environment (``os.environ``) when not given, where the actions run.
    """
    environ = os.environ if environ is None else environ
    values, sources = {}, {}
    for option in OPTIONS:
        value = args.get(option)
        if value is None or value == "":
            value = None
            for variable in ENVIRONMENT[option]:
                if environ.get(variable):
                    value, sources[option] = _from_environment(option, variable, environ[variable]), variable
                    break
        values[option] = value
    settings = Settings(values, sources)
    _check(settings)
    return settings


def _from_environment(option, variable, text):
    spec = ARGUMENT_SPEC[option]
    if spec.get("type") == "bool":
        try:
            return boolean(text.strip(), strict=True)
        except TypeError as exc:
            raise ConnectionOptionsError("%s is %r, not a boolean (true or false, yes or no, 1 or 0) for %s"
                                         % (variable, text[:40], option)) from exc
    if spec.get("type") == "path":
        return os.path.expanduser(text)
    return text


def _check(settings):
    """Refuse values and combinations that cannot work, naming them; changes nothing, reads only file metadata."""
    values, name = settings.values, settings.name
    if values["host"] is not None:
        values["host"] = _url(values["host"], name("host"), ("http", "https"), "the API server's URL")
    if values["proxy"] is not None:
        values["proxy"] = _url(values["proxy"], name("proxy"), _PROXY_SCHEMES, "a proxy URL")
    if values["api_key"] is not None and not _TOKEN.match(values["api_key"]):
        raise ConnectionOptionsError("%s holds a space, a line break or a character that is not printable ASCII; a bearer token "
                                     "is one word (not shown: it is a credential); nothing was sent" % name("api_key"))
    if bool(values["client_cert"]) != bool(values["client_key"]):
        given, missing = ("client_cert", "client_key") if values["client_cert"] else ("client_key", "client_cert")
        raise ConnectionOptionsError("%s is set but %s is not: a client certificate and its key go together (%s or %s)"
                                     % (name(given), missing, missing, " or ".join(ENVIRONMENT[missing])))
    for option in _FILES:
        if values[option]:
            _kubeconfig.check_file(values[option], name(option), option=option)
    if settings.direct or values["kubeconfig"] is not None or _kubeconfig.default_paths():
        return
    if values["api_key"] or values["client_cert"]:
        credential = name("api_key") if values["api_key"] else "%s and %s" % (name("client_cert"), name("client_key"))
        raise ConnectionOptionsError(
            "%s %s set but host is not, and there is no kubeconfig to take the API server from (kubeconfig, K8S_AUTH_KUBECONFIG, "
            "$KUBECONFIG and ~/.kube/config are all unset or absent): set host (K8S_AUTH_HOST) to the API server's URL"
            % (credential, "is" if values["api_key"] else "are"))
    if values["host"]:
        raise ConnectionOptionsError(
            "%s is set without a credential, and there is no kubeconfig to take one from: set api_key (K8S_AUTH_API_KEY), or "
            "client_cert and client_key (K8S_AUTH_CERT_FILE, K8S_AUTH_KEY_FILE), or kubeconfig (K8S_AUTH_KUBECONFIG)" % name("host"))
    raise ConnectionOptionsError(
        "no API server to talk to: set host and api_key (K8S_AUTH_HOST, K8S_AUTH_API_KEY), or host, client_cert and client_key, "
        "or kubeconfig (K8S_AUTH_KUBECONFIG); $KUBECONFIG and ~/.kube/config are unset or absent")


def _url(text, named, schemes, what):
    """``text`` without its trailing slashes when it is an absolute URL with one of ``schemes`` and a host; else refused, masked."""
    shown = urls.mask_url(text)[:200]
    if _ANY_SPACE.search(text):
        raise ConnectionOptionsError("%s %r holds a space or a control character; it must be %s" % (named, shown, what))
    try:
        parts = urllib.parse.urlsplit(text)
        port = parts.port
    except ValueError as exc:
        hint = _shape.ipv6_hint(text, "https://[::1]:6443")
        raise ConnectionOptionsError("%s %r is not %s: %s%s" % (named, shown, what, urls.mask_text(str(exc)), hint)) from exc
    if parts.scheme.lower() not in schemes or not parts.hostname or parts.query or parts.fragment or port == 0:
        raise ConnectionOptionsError("%s %r is not %s: %s<host>[:<port>][/<path>], without a query or fragment"
                                     % (named, shown, what, " or ".join("%s://" % scheme for scheme in schemes)))
    return text.rstrip("/")


def configuration(settings, exec_timeout=30):
    """The kubernetes client's Configuration for checked ``settings``: from host and a credential, or the kubeconfig with overrides."""
    if settings.direct:
        _kubeconfig.require_client()
        config = type.__call__(_kubeconfig.Configuration)
    else:
        config = _kubeconfig.load_configuration(settings["kubeconfig"], settings["context"], exec_timeout=exec_timeout)
    values = settings.values
    overrides = {attribute: values[option] for option, attribute in _ATTRIBUTES if values[option] is not None}
    if values["api_key"]:
        overrides["api_key"] = {"authorization": "Bearer %s" % values["api_key"]}
        overrides["api_key_prefix"] = {}
    _override(config, overrides)
    hook = config.refresh_api_key_hook
    if values["api_key"]:
        config.refresh_api_key_hook = None  # the token is ours: the kubeconfig's exec plugin or auth provider has nothing to refresh
    elif hook is not None and overrides:
        # The client's loader refreshes a kubeconfig token before every request by setting host, CA, certificate,
        # key, verify_ssl and proxy again from the file, and itself as the hook: both are put back after it each time.
        def refresh(client_configuration):
            hook(client_configuration)
            _override(client_configuration, overrides)
            client_configuration.refresh_api_key_hook = refresh

        config.refresh_api_key_hook = refresh
    return config


def _override(config, overrides):
    for attribute, value in overrides.items():
        setattr(config, attribute, value)
