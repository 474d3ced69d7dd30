# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's systemd service on the node: read its state, stop it and confirm it stopped, start it.

Public: `DOWN`, `ServiceError`, `active_state(runner, service)`, `stop(runner, service)`, `start(runner, service)`.

Through ``systemctl`` (argv, never a shell) by the runner a module passes (``_facts.runner``).
``systemctl stop`` returns once the unit is down; the state is read again and anything but
``inactive`` or ``failed`` is refused, naming it. ``systemctl start`` returns once systemd has
started the process; whether the kubelet then comes up is for the verify step.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic

DOWN = ("inactive", "failed")


class ServiceError(atomic.NodeStateError):
    """systemctl is missing, failed, or the unit is not in the state asked for."""


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
    rc, out, err = runner.run([_systemctl(runner), "show", service, "--property", "LoadState,ActiveState"])
    if rc != 0:
        raise ServiceError("systemctl show %s failed (rc %d): %s" % (service, rc, (err or out or "").strip()))
    values = dict(line.partition("=")[::2] for line in (out or "").splitlines() if "=" in line)
    if values.get("LoadState") == "not-found":
        raise ServiceError("the %s service is not a unit systemd knows (LoadState=not-found); nothing was changed" % service)
    return values.get("ActiveState", "").strip() or "unknown"


def stop(runner, service):
    """Stop ``service`` and confirm it is down; returns its ActiveState after."""
    rc, out, err = runner.run([_systemctl(runner), "stop", service])
    if rc != 0:
        raise ServiceError("systemctl stop %s failed (rc %d): %s" % (service, rc, (err or out or "").strip()))
    after = active_state(runner, service)
    if after not in DOWN:
        raise ServiceError("the %s service is %s after systemctl stop, not inactive or failed" % (service, after))
    return after


def start(runner, service):
    """Start ``service``; returns its ActiveState after."""
    rc, out, err = runner.run([_systemctl(runner), "start", service])
    if rc != 0:
        raise ServiceError("systemctl start %s failed (rc %d): %s" % (service, rc, (err or out or "").strip()))
    return active_state(runner, service)
