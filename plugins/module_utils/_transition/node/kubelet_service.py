# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's systemd service on the node: read its state, stop it and confirm it stopped, start it.

Public: `DOWN`, `ServiceError`, `unit_name(value)`, `TimedRunner`, `active_state(runner, service)`, `stop(runner, service)`,
`start(runner, service)`.

Through ``systemctl`` (argv, never a shell, ``--`` before the unit) by the runner a module passes: `TimedRunner`
kills systemctl (and what it started) at its deadline. The unit is checked first by systemd's own rules for one
unit name (``unit_name_is_valid`` in systemd's ``unit-name.c``): never a pattern, never an option.
``systemctl stop`` returns once the unit is down; the state is read again and anything but
``inactive`` or ``failed`` is refused, naming it. ``systemctl start`` returns once systemd has
started the process; whether the kubelet then comes up is for the verify step.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic

DOWN = ("inactive", "failed")
UNIT_NAME_MAX = 255  # systemd: strlen(name) >= UNIT_NAME_MAX (256) is not a unit name
_VALID = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:-_.\\")
_GLOB = "*?["
_TYPES = ("service", "mount", "swap", "socket", "target", "device", "automount", "timer", "path", "slice", "scope")
_RULE = "give one unit name, such as kubelet or kubelet.service; nothing was changed"


class ServiceError(atomic.NodeStateError):
    """systemctl is missing, failed, or the unit is not in the state asked for."""


def _shown(value):
    return repr(value[:64]) + ("..." if len(value) > 64 else "")


def unit_name(value):
    """``value`` if it is one service unit name by systemd's rules (``kubelet`` meaning ``kubelet.service``), else refused."""
    if not isinstance(value, str) or not value:
        raise ServiceError("service must not be empty (an empty value is not a default): " + _RULE)
    shown = _shown(value)
    for char in _GLOB:
        if char in value:
            raise ServiceError("service %s is a unit pattern (it has %r): systemctl would stop or start every unit it matches; %s"
                               % (shown, char, _RULE))
    if value.startswith("-"):
        raise ServiceError("service %s starts with '-': systemctl would take it for an option; %s" % (shown, _RULE))
    for offset, char in enumerate(value):
        if char not in _VALID and char != "@":
            raise ServiceError("service %s has %r at offset %d: a unit name has only ASCII letters, digits, ':', '-', '_', '.', '\\' "
                               "and one '@' before an instance (systemd's unit name rules); %s" % (shown, char, offset, _RULE))
    stem, dot, suffix = value.rpartition(".")
    if not dot or suffix not in _TYPES:
        stem, suffix = value, "service"
    full = stem + "." + suffix
    if suffix != "service":
        raise ServiceError("service %s is a .%s unit, not a service: the kubelet runs as a service unit; %s" % (shown, suffix, _RULE))
    if len(full) > UNIT_NAME_MAX:
        raise ServiceError("service %s is %d characters long as %s.service, over systemd's limit of %d for a unit name; %s"
                           % (shown, len(full), "..." if len(stem) > 64 else stem, UNIT_NAME_MAX, _RULE))
    prefix, at, instance = stem.partition("@")
    if not prefix:
        raise ServiceError("service %s has no name before its %s: %s" % (shown, "'@'" if at else "suffix", _RULE))
    if at and not instance:
        raise ServiceError("service %s is a template (nothing between '@' and the suffix): a template is not a unit that runs; "
                           "give an instance such as kubelet@1.service; nothing was changed" % shown)
    return value


class TimedRunner:
    """The runner `_facts.runner.ModuleRunner` is, with a deadline: systemctl and its process group are killed at it."""

    def __init__(self, module, timeout):
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not math.isfinite(timeout) or timeout <= 0:
            raise ServiceError("timeout must be a finite number of seconds above 0, not %r" % (timeout,))
        self._module = module
        self.timeout = float(timeout)

    def find(self, name):
        return self._module.get_bin_path(name, required=False)

    def run(self, argv):
        for arg in argv:
            if "\0" in arg:
                raise ServiceError("argument %s has a NUL byte: not run" % _shown(arg))
        env = dict(os.environ, LC_ALL="C", SYSTEMD_PAGER="", SYSTEMD_COLORS="0")
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, env=env)
        try:
            out, err = proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.kill()
            proc.wait()
            for stream in (proc.stdout, proc.stderr):
                stream.close()
            raise ServiceError("%s did not exit within %gs; it was killed (the unit's own job may still be going on: read it with "
                               "systemctl status); nothing else was run" % (" ".join(argv[1:]), self.timeout))
        return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _systemctl(runner):
    found = runner.find("systemctl")
    if not found:
        raise ServiceError("systemctl not found: the kubelet service cannot be stopped or started here; nothing was changed")
    return found


def active_state(runner, service):
    """The unit's ActiveState (active, inactive, failed, activating, ...); a unit systemd does not know is refused.

    systemd answers ActiveState=inactive for a unit it has no file for (LoadState=not-found), so a
    misspelt service name would read as a stopped kubelet; its LoadState is read in the same call.
    """
    rc, out, err = runner.run([_systemctl(runner), "show", "--property", "LoadState,ActiveState", "--", unit_name(service)])
    if rc != 0:
        raise ServiceError("systemctl show %s failed (rc %d): %s" % (service, rc, (err or out or "").strip()))
    values = dict(line.partition("=")[::2] for line in (out or "").splitlines() if "=" in line)
    if values.get("LoadState") == "not-found":
        raise ServiceError("the %s service is not a unit systemd knows (LoadState=not-found); nothing was changed" % service)
    return values.get("ActiveState", "").strip() or "unknown"


def stop(runner, service):
    """Stop ``service`` and confirm it is down; returns its ActiveState after."""
    rc, out, err = runner.run([_systemctl(runner), "stop", "--", unit_name(service)])
    if rc != 0:
        raise ServiceError("systemctl stop %s failed (rc %d): %s" % (service, rc, (err or out or "").strip()))
    after = active_state(runner, service)
    if after not in DOWN:
        raise ServiceError("the %s service is %s after systemctl stop, not inactive or failed" % (service, after))
    return after


def start(runner, service):
    """Start ``service`` after resetting its failed state; returns its ActiveState after.

    A kubelet that refused to start (its checkpoints, after a reboot) and was restarted by its unit's ``Restart=`` until
    systemd's start rate limit (``StartLimitBurst`` in ``StartLimitIntervalSec``) is refused the next start, even once
    stopped: "Start request repeated too quickly". ``systemctl reset-failed`` sets the start rate limit counter and the
    restart counter back to zero (systemctl(1)), so the start asked for here is the one systemd runs.
    """
    rc, out, err = runner.run([_systemctl(runner), "reset-failed", "--", unit_name(service)])
    if rc != 0:
        raise ServiceError("systemctl reset-failed %s failed (rc %d): %s" % (service, rc, (err or out or "").strip()))
    rc, out, err = runner.run([_systemctl(runner), "start", "--", unit_name(service)])
    if rc != 0:
        raise ServiceError("systemctl start %s failed (rc %d): %s" % (service, rc, (err or out or "").strip()))
    return active_state(runner, service)
