# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: acceptance_record, acceptance_verdict, acceptance_markdown, acceptance_html, acceptance_fleet, canary_manifest, canary_qos_problems,
canary_workload, canary_subjects, canary_admission, canary_admissions, canary_admission_probe, canary_admission_failure, artifacts_file
(docs in plugins/filter/<name>.yml)."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import artifacts as _artifacts
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import admission_failure
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import canary
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import fleet
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import html
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import markdown
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import verdict
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.filters import adapt


def acceptance_record(topology, host, inputs=None):
    """The acceptance record of one node from its topology facts and the evidence (``inputs``); topology only without evidence."""
    return adapt("acceptance_record", record.build, topology, host, inputs)


def acceptance_verdict(evidence, policy=None, accepted=None):
    """adopt / restrict / defer / revalidate with reasons, from the evidence and the operator's policy."""
    return adapt("acceptance_verdict", verdict.decide, evidence, policy, accepted)


def acceptance_markdown(value):
    """acceptance.md of a record."""
    return adapt("acceptance_markdown", markdown.render, value)


def acceptance_html(value):
    """acceptance.html of a record: one self-contained page with the node drawing."""
    return adapt("acceptance_html", html.page, value)


def acceptance_fleet(records, pool=None, now=None):
    """index.html: the fleet grouped by verdict, reason and hardware shape, the pool's decision per shape, missing and stale nodes."""
    return adapt("acceptance_fleet", fleet.page, records, pool, now)


def canary_manifest(params=None):
    """The report's allocation canary pod (or the operator's workload pod), pinned to one node of the canary pool."""
    return adapt("canary_manifest", canary.manifest, params)


def canary_workload(params=None):
    """The canary as sent (the allocation canary, or the operator's Deployment, StatefulSet, Job or Pod pinned), its diff, budget and selector."""
    return adapt("canary_workload", canary.workload, params)


def canary_subjects(pods):
    """The canary's pods as the evidence reads them by uid: stored .spec.resources, controller, container IDs, GPU requests."""
    return adapt("canary_subjects", canary.subjects, pods)


def canary_qos_problems(pod, exclusive=("main",)):
    """What keeps the pod from Guaranteed QoS or its exclusive containers from whole-CPU slices ([] when it may be sent)."""
    return adapt("canary_qos_problems", canary.qos_problems, pod, tuple(exclusive))


def canary_admissions(pods, events=None, api_error=None, expected=1):
    """The admission of a canary with several pods: each failure named with its pod; admitted only when ``expected`` pods are."""
    return adapt("canary_admissions", canary.admissions, pods, events, api_error, expected)


def canary_admission_probe(params=None):
    """The Deployment one CPU bigger than the plan's largest single-NUMA shape, pinned to the node, to test the controller's answer."""
    return adapt("canary_admission_probe", admission_failure.probe, params)


def canary_admission_failure(pods, events=None, window_s=0, waited_s=0, left=None):
    """The owning controller's answer to the kubelet's rejection: pods created and failed in the window, the rejection, events, what was left."""
    return adapt("canary_admission_failure", admission_failure.observed, pods, events, window_s, waited_s, left)


def canary_admission(pod, events=None, api_error=None):
    """Admitted or not, and each failure at the layer that produced it (api, scheduler, kubelet)."""
    return adapt("canary_admission", canary.admission, pod, events, api_error)


def artifacts_file(host, artifacts_dir, name):
    """<artifacts_dir>/<host>/<name>, the host and file names checked as the artifacts action checks them (for reading a host's record)."""
    return adapt("artifacts_file", _artifacts.host_file, artifacts_dir, host, name)


class FilterModule(object):
    """The acceptance record filters."""

    def filters(self):
        return {"acceptance_record": acceptance_record, "acceptance_verdict": acceptance_verdict, "acceptance_markdown": acceptance_markdown,
                "acceptance_html": acceptance_html, "acceptance_fleet": acceptance_fleet, "canary_manifest": canary_manifest,
                "canary_workload": canary_workload, "canary_subjects": canary_subjects,
                "canary_qos_problems": canary_qos_problems, "canary_admission": canary_admission,
                "canary_admissions": canary_admissions, "canary_admission_probe": canary_admission_probe,
                "canary_admission_failure": canary_admission_failure, "artifacts_file": artifacts_file}
