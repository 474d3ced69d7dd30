# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which checkpoint files to take away before a kubelet restart, and taking them away safely.

Public: `KubeletRunning`, `to_remove(reports, refusals, which)`, `kubelet_active(runner, service)`,
`check_removable(root, reports, kinds, backup_dir)`, `remove(root, reports, kinds, backup_dir)`.

A checkpoint is never edited in place: it is backed up byte for byte (``_node_files.backups``)
and deleted, and only while the kubelet is stopped, so the kubelet writes a fresh one on start
(pkg/kubelet/cm/cpumanager/state/state_checkpoint.go restoreState: a missing file is stored anew).
`check_removable` looks at every file to remove (each a regular file or a symlink, still the bytes that
were read) and at the backup folder before the first one is touched, so a FIFO where
``memory_manager_state`` should be refuses the removal with ``cpu_manager_state`` still in place.
"""

from __future__ import annotations

import hashlib
import os
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups, confine

_READ_LIMIT = 16 * 1024 * 1024


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


def _kind(mode):
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_removable(root, reports, kinds, backup_dir):
    """Refuse, before anything is removed, when one of the files of ``kinds`` cannot be backed up and removed.

    Each must be a regular file (with the sha256 it was read with) or a symlink (removed as a link);
    an existing backup folder must be private state.
    """
    for kind in kinds:
        node_path = reports[kind]["path"]
        real = _fileio.resolve_within(root, node_path, follow_last=False)
        try:
            info = os.lstat(real)
        except FileNotFoundError:
            raise NumaGateError("%s is gone since it was read; nothing was removed" % node_path)
        if stat.S_ISLNK(info.st_mode):
            continue
        if not stat.S_ISREG(info.st_mode):
            raise NumaGateError("%s is %s, not a regular file or a symlink: it cannot be backed up byte for byte, so it is not removed "
                                "(take it away by hand once you know what it is); nothing was removed" % (node_path, _kind(info.st_mode)))
        if reports[kind].get("sha256") is not None:
            now = hashlib.sha256(_fileio.read_regular(real, _READ_LIMIT)).hexdigest()
            if now != reports[kind]["sha256"]:
                raise NumaGateError("%s changed since it was read (sha256 %s, now %s): is the kubelet running? nothing was removed"
                                    % (node_path, reports[kind]["sha256"], now))
    backup_real = _fileio.resolve_within(root, backup_dir)
    if os.path.lexists(backup_real):
        confine.require_private(root, backup_dir, backup_real)
    return backup_real


def remove(root, reports, kinds, backup_dir):
    """Back up and delete the files of ``kinds``; returns [(node path, backup path)]. Everything is checked first."""
    backup_real = check_removable(root, reports, kinds, backup_dir)
    done = []
    for kind in kinds:
        node_path = reports[kind]["path"]
        real = _fileio.resolve_within(root, node_path, follow_last=False)
        saved = backups.remove(real, backup_real)
        done.append((node_path, saved))
    return done
