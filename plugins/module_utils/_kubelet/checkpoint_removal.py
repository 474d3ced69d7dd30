# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which checkpoint files to take away before a kubelet restart, and taking them away safely.

Public: `KubeletRunning`, `to_remove(reports, refusals, which)`, `kubelet_active(runner, service)`,
`remove(root, reports, kinds, backup_dir)`.

A checkpoint is never edited in place: it is backed up byte for byte (``_node_state.backups``)
and deleted, and only while the kubelet is stopped, so the kubelet writes a fresh one on start
(pkg/kubelet/cm/cpumanager/state/state_checkpoint.go restoreState: a missing file is stored anew).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_state import backups


class KubeletRunning(NumaGateError):
    """The kubelet service is active (or its state is unknown): its files are not touched."""


def to_remove(reports, refusals, which):
    """The kinds to remove: those the kubelet would refuse (``which='refused'``) or every present one (``'all'``)."""
    return [kind for kind in ("cpu", "memory")
            if reports[kind]["present"] and (which == "all" or refusals.get(kind))]


def kubelet_active(runner, service):
    """True when systemd says ``service`` is active or activating; raises when it cannot tell."""
    systemctl = runner.find("systemctl")
    if not systemctl:
        raise KubeletRunning("cannot tell whether the %s service is running: systemctl not found; "
                             "stop the kubelet and say so with kubelet_stopped" % service)
    rc, out, _err = runner.run([systemctl, "is-active", service])
    state = (out or "").strip()
    # is-active: rc 0 for active; inactive, failed and unknown units are not running.
    return rc == 0 or state in ("active", "activating", "deactivating", "reloading", "refreshing")


def remove(root, reports, kinds, backup_dir):
    """Back up and delete the files of ``kinds``; returns [(node path, backup path)]."""
    backup_real = _fileio.resolve_within(root, backup_dir)
    done = []
    for kind in kinds:
        node_path = reports[kind]["path"]
        real = _fileio.resolve_within(root, node_path, follow_last=False)
        saved = backups.remove(real, backup_real)
        done.append((node_path, saved))
    return done
