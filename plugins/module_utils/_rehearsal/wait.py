# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node's workloads through the API, before a rehearsed rollback and after it (a bounded wait with progress lines).

Public: `observe(api, node, now=...)`, `wait(api, node, before, timeout, poll, display=None, clock=..., sleep=..., now=...)`.

``api`` is a ``_kube_api.api.Api`` (its ``pods_on_node``: every pod bound to the node, one bounded
GET). `observe` names the node's workloads (``rehearsal_workloads.workloads``); `wait` looks again
every ``poll`` seconds until each of them is back (``rehearsal_workloads.came_back``) or ``timeout``
seconds have passed, with a progress line per look (``_base.progress``'s way: a callable that
takes one line). A wait that runs out is a result (``back: false``, the workloads still missing
named), never an error: the check records it and the verdict defers on it.
"""

from __future__ import annotations

import datetime
import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import workloads as rehearsal_workloads
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import progress


def utc_now():
    """Now, as the journal writes times: ``2026-12-01T09:00:00.250000Z``."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def observe(api, node, now=utc_now):
    """The node's workloads now: ``{"workloads", "unowned", "observed_at"}``."""
    found = rehearsal_workloads.workloads(api.pods_on_node(node), node)
    return dict(found, observed_at=now())


def wait(api, node, before, timeout, poll, display=None, clock=time.monotonic, sleep=time.sleep, now=utc_now):  # pylint: disable=too-many-arguments
    """Wait until every workload of ``before`` (an `observe` result) is back on ``node``, at most ``timeout`` seconds."""
    start = clock()
    while True:
        pods = api.pods_on_node(node)
        waited = clock() - start
        result = rehearsal_workloads.came_back(before, pods, node)
        progress.say(display, rehearsal_workloads.progress_line(node, result, waited, timeout))
        if result["back"] or waited + poll > timeout:
            break
        sleep(poll)
    return dict(result, unowned=rehearsal_workloads.workloads(pods, node)["unowned"], observed_at=now(), waited_s=round(waited, 3),
                timeout_s=timeout, before_observed_at=before.get("observed_at"))
