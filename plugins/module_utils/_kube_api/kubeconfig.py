# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Load a kubeconfig with the ``kubernetes`` client's own loader, without anything in it able to block the run.

Public: `load`, `load_configuration`, `require_client`, `default_paths`, `check_file`, `KubeconfigError`, `MAX_KUBECONFIG_BYTES`,
`MAX_EXEC_OUTPUT`.

The client's loader (kubernetes.config.kube_config) does the parsing, merging (``$KUBECONFIG``
lists), contexts and every authentication it knows; three things it does unbounded are bounded here:
- the kubeconfig files themselves are opened by ``open()``: a FIFO there blocks forever, so every
  file is checked first (it must be a regular file of at most `MAX_KUBECONFIG_BYTES`);
- a user's ``tokenFile`` is read the same way: checked first, likewise;
- an ``exec`` credential plugin is waited for without a timeout (``communicate()``): here it runs
  in its own process group with stdin from /dev/null, its output bounded by `MAX_EXEC_OUTPUT`, and
  killed (the group it leads, nothing else) when it has not exited within ``exec_timeout`` seconds.
  Its stdout is the credential: it is never quoted in a message; its stderr is, cut to 300 characters.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import stat
import subprocess
import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError

try:
    from kubernetes.client import ApiClient, Configuration
    from kubernetes.config import kube_config as _kube_config
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.exec_provider import ExecProvider
    HAS_KUBERNETES = True
    KUBERNETES_IMPORT_ERROR = None
except ImportError as _exc:  # pragma: no cover - the controller requirement is missing
    HAS_KUBERNETES = False
    KUBERNETES_IMPORT_ERROR = str(_exc)
    ExecProvider = _KubeConfigLoader = object  # pylint: disable=invalid-name
else:
    _KubeConfigLoader = _kube_config.KubeConfigLoader

MAX_KUBECONFIG_BYTES = 4 * 1024 * 1024
MAX_EXEC_OUTPUT = 1024 * 1024
_STDERR_SHOWN = 300


class KubeconfigError(NumaGateError):
    """A kubeconfig, a file it names, or its credential plugin that cannot be used."""


def _kind(mode):
    for test, word in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return word
    return "not a regular file"


def check_file(path, what, limit=MAX_KUBECONFIG_BYTES, option="kubeconfig"):
    """Refuse ``path`` (links followed: a controller's own files) unless it is a regular file of at most ``limit`` bytes.

    The error's details name the path under ``option`` (the task option it came from).
    """
    details = {option: path}
    try:
        info = os.stat(path)
    except OSError as exc:
        raise KubeconfigError("%s %s: %s" % (what, path, exc.strerror or exc), **details) from exc
    if not stat.S_ISREG(info.st_mode):
        raise KubeconfigError("%s %s is %s, not a regular file; not read" % (what, path, _kind(info.st_mode)), **details)
    if info.st_size > limit:
        raise KubeconfigError("%s %s is larger than %d bytes; not read" % (what, path, limit), **details)


def default_paths():
    """Each existing entry of the client's default kubeconfig (``$KUBECONFIG``, a list, or ~/.kube/config); [] when none exists."""
    if not HAS_KUBERNETES:
        return []
    paths = []
    for entry in _kube_config.KUBE_CONFIG_DEFAULT_LOCATION.split(_kube_config.ENV_KUBECONFIG_PATH_SEPARATOR):
        entry = os.path.expanduser(entry)
        if entry and os.path.lexists(entry):
            paths.append(entry)
    return paths


def _paths(kubeconfig):
    """The files the loader would read: ``kubeconfig``, or `default_paths`."""
    return [kubeconfig] if kubeconfig is not None else default_paths()


def _read_bounded(process, deadline, limit):
    """(stdout, stderr, over) read from ``process`` until both end, the ``deadline`` (monotonic) passes, or ``limit`` bytes."""
    out, err = bytearray(), bytearray()
    over = False
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, out)
        selector.register(process.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            for key, _events in selector.select(left):
                chunk = os.read(key.fileobj.fileno(), 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
                if len(out) + len(err) > limit:
                    over = True
                    return bytes(out), bytes(err), over
    return bytes(out), bytes(err), over


def _kill_group(process):
    """SIGKILL the process group ``process`` leads (started with its own session, so only what it started)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    process.wait()


class _BoundedExec(ExecProvider):  # pylint: disable=too-few-public-methods
    """The client's ExecProvider, run with a timeout and an output bound (its checks of the answer are the client's)."""

    def __init__(self, exec_config, cwd, cluster, timeout):
        super().__init__(exec_config, cwd, cluster)
        self.timeout = timeout

    def run(self, previous_response=None):
        info = {"apiVersion": self.api_version, "kind": "ExecCredential", "spec": {"interactive": False}}
        if previous_response:
            info["spec"]["response"] = previous_response
        if self.cluster:
            info["spec"]["cluster"] = self.cluster.value
            for extension in self.cluster.value.get("extensions") or []:
                if isinstance(extension, dict) and extension.get("name") == "client.authentication.k8s.io/exec":
                    info["spec"]["cluster"]["config"] = extension.get("extension")
                    break
        self.env["KUBERNETES_EXEC_INFO"] = json.dumps(info)
        command = self.args[0]
        try:
            # Its own session: the group it leads holds what it starts, so a timeout kills all of that and nothing else.
            process = subprocess.Popen(  # pylint: disable=consider-using-with
                self.args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.cwd, env=self.env,
                start_new_session=True, close_fds=True)
        except OSError as exc:
            raise KubeconfigError("the kubeconfig's exec credential plugin %s cannot be started: %s" % (command, exc.strerror or exc)) from exc
        deadline = time.monotonic() + self.timeout
        try:
            stdout, stderr, over = _read_bounded(process, deadline, MAX_EXEC_OUTPUT)
            if over:
                _kill_group(process)
                raise KubeconfigError("the kubeconfig's exec credential plugin %s wrote more than %d bytes; it was killed"
                                      % (command, MAX_EXEC_OUTPUT))
            try:
                code = process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired as exc:
                _kill_group(process)
                raise KubeconfigError("the kubeconfig's exec credential plugin %s did not exit within %ss; it was killed "
                                      "(a credential plugin prints an ExecCredential and exits)" % (command, _seconds(self.timeout))) from exc
        finally:
            process.stdout.close()
            process.stderr.close()
        if code != 0:
            said = " ".join(stderr.decode("utf-8", "replace").split())
            raise KubeconfigError("the kubeconfig's exec credential plugin %s exited with %d%s" % (
                command, code, (": " + said[:_STDERR_SHOWN] + ("..." if len(said) > _STDERR_SHOWN else "")) if said else ""))
        try:
            data = json.loads(stdout.decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            raise KubeconfigError("the kubeconfig's exec credential plugin %s did not print JSON (%d bytes, not shown: they may "
                                  "hold a credential)" % (command, len(stdout))) from exc
        if not isinstance(data, dict) or not isinstance(data.get("status"), dict):
            raise KubeconfigError("the kubeconfig's exec credential plugin %s printed no ExecCredential with a status object" % command)
        if data.get("apiVersion") != self.api_version:
            raise KubeconfigError("the kubeconfig's exec credential plugin %s answered apiVersion %r, not the %r asked for"
                                  % (command, str(data.get("apiVersion"))[:60], self.api_version))
        return data["status"]


def _seconds(value):
    return ("%g" % value) if isinstance(value, float) else str(value)


class _Loader(_KubeConfigLoader):
    """The client's KubeConfigLoader with a bounded exec plugin and a checked tokenFile."""

    def __init__(self, *args, exec_timeout=30, **kwargs):
        self._exec_timeout = exec_timeout
        super().__init__(*args, **kwargs)

    def _load_from_exec_plugin(self):
        """As the client's, but errors raise (the client logs them and goes on without a credential)."""
        if "exec" not in self._user:
            return None
        base_path = self._get_base_path(self._cluster.path)
        status = _BoundedExec(self._user["exec"], base_path, self._cluster, self._exec_timeout).run()
        if "token" in status:
            self.token = "Bearer %s" % status["token"]  # pylint: disable=attribute-defined-outside-init
        elif "clientCertificateData" in status and "clientKeyData" in status:
            # pylint: disable=attribute-defined-outside-init
            self.cert_file = _kube_config.FileOrData(status, None, data_key_name="clientCertificateData", file_base_path=base_path,
                                                     base64_file_content=False, temp_file_path=self._temp_file_path).as_file()
            self.key_file = _kube_config.FileOrData(status, None, data_key_name="clientKeyData", file_base_path=base_path,
                                                    base64_file_content=False, temp_file_path=self._temp_file_path).as_file()
        else:
            raise KubeconfigError("the kubeconfig's exec credential plugin %s answered neither a token nor clientCertificateData "
                                  "with clientKeyData" % self._user["exec"]["command"])
        if "expirationTimestamp" in status:
            self.expiry = _kube_config.parse_rfc3339(status["expirationTimestamp"])  # pylint: disable=attribute-defined-outside-init
        return True

    def _load_user_token(self):
        if self._user is not None and "tokenFile" in self._user and "token" not in self._user:
            name = self._user["tokenFile"]
            if not isinstance(name, str):
                raise KubeconfigError("the kubeconfig's tokenFile is a %s, not a path" % type(name).__name__)
            check_file(os.path.normpath(os.path.join(self._get_base_path(self._user.path), name)), "the kubeconfig's tokenFile")
        return super()._load_user_token()


def load(kubeconfig=None, context=None, exec_timeout=30):
    """An ApiClient for ``kubeconfig`` (None: the client's default) and ``context``; `KubeconfigError` names what is wrong."""
    return ApiClient(configuration=load_configuration(kubeconfig, context, exec_timeout))


def require_client():
    """Raise `KubeconfigError` when the ``kubernetes`` library cannot be imported."""
    if not HAS_KUBERNETES:
        raise KubeconfigError("the Python library 'kubernetes' is needed on the controller for the Kubernetes API steps "
                              "(pip install kubernetes): %s" % KUBERNETES_IMPORT_ERROR)


def load_configuration(kubeconfig=None, context=None, exec_timeout=30):
    """The client's Configuration from ``kubeconfig`` (None: the client's default) and ``context``; as `load`."""
    require_client()
    where = kubeconfig or "(default)"
    try:
        paths = _paths(kubeconfig)
        for path in paths:
            check_file(path, "kubeconfig")
        if not paths:
            raise ConfigException("Invalid kube-config file. No configuration found.")
        merger = _kube_config.KubeConfigMerger(_kube_config.ENV_KUBECONFIG_PATH_SEPARATOR.join(paths))
        if merger.config is None:
            raise ConfigException("Invalid kube-config file. No configuration found.")
        loader = _Loader(config_dict=merger.config, active_context=context, config_base_path=None, exec_timeout=exec_timeout)
        configuration = type.__call__(Configuration)
        loader.load_and_set(configuration)
    except KubeconfigError as exc:
        raise KubeconfigError("cannot load the kubeconfig %s (context %s): %s" % (where, context or "(current)", exc),
                              kubeconfig=kubeconfig) from exc
    # Anything the client's loader raises on a malformed file (ConfigException, YAML errors, a list where a map
    # belongs) is a refusal of that file, named; its text never holds the file's content.
    except Exception as exc:  # pylint: disable=broad-exception-caught
        raise KubeconfigError("cannot load the kubeconfig %s (context %s): %s%s" % (
            where, context or "(current)", "" if isinstance(exc, (ConfigException, OSError)) else type(exc).__name__ + ": ",
            " ".join(str(exc).split())[:300]), kubeconfig=kubeconfig) from exc
    return configuration
