# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every thread's allowed CPUs and memory nodes, as ``taskset -a -p`` would list them.

Public: `thread_masks`, `parse_status`.

From ``/proc/<pid>/task/<tid>/status``: ``Cpus_allowed_list`` and ``Mems_allowed_list`` (the
kernel's own cpulists: the thread's affinity within its cpuset). A thread that ends while it is
read is left out.
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs

_TID = re.compile(r"[1-9][0-9]{0,9}\Z")


def parse_status(text, where):
    """{"name", "cpus", "mems"} from a status file's text; raises EvidenceError naming ``where`` for a bad line."""
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key] = value.strip()
    try:
        return {"name": fields.get("Name"), "cpus": _cpulist.canonical(fields["Cpus_allowed_list"]),
                "mems": _cpulist.canonical(fields["Mems_allowed_list"])}
    except KeyError as exc:
        raise nodefs.EvidenceError("%s has no %s line" % (where, exc.args[0]), path=where) from exc
    except _cpulist.CpuListError as exc:
        raise nodefs.EvidenceError("%s: %s" % (where, exc), path=where) from exc


def thread_masks(root, pid):
    """[{"tid", "name", "cpus", "mems"}] for every thread of ``pid``, by tid; None when the process is gone."""
    task = "proc/%d/task" % pid
    if not nodefs.is_dir(root, task):
        return None
    found = []
    for name in nodefs.list_dirs(root, task):
        if not _TID.match(name):
            continue  # not a thread (the kernel names them by decimal tid)
        where = "%s/%s/status" % (task, name)
        text = nodefs.read_text(root, where, 65536)
        if text is None:
            continue
        entry = {"tid": int(name)}
        entry.update(parse_status(text, "/" + where))
        found.append(entry)
    return sorted(found, key=lambda t: t["tid"])
