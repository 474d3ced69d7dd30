# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""batch/v1 Jobs in the double: what the Job registry, kube-controller-manager's Job controller and its
garbage collector would do, for a double that runs no containers.

- Create (pkg/registry/batch/job/strategy.go ``PrepareForCreate``: the status is cleared;
  ``generateSelector`` unless ``spec.manualSelector``: the template gets the labels
  ``batch.kubernetes.io/job-name`` and ``job-name`` (the Job's name), ``batch.kubernetes.io/controller-uid``
  and ``controller-uid`` (its uid), and the selector ``matchLabels`` the prefixed controller-uid;
  pkg/apis/batch/v1/defaults.go ``SetDefaults_Job``: completions and parallelism 1 when both are unset,
  backoffLimit 6, completionMode NonIndexed, suspend false, manualSelector false, podReplacementPolicy
  TerminatingOrFailed).
- Delete (pkg/registry/batch/job/storage/storage.go ``REST.Delete``; strategy.go
  ``DefaultGarbageCollectionPolicy``: OrphanDependents for batch/v1 "for back compatibility"). Without
  ``propagationPolicy`` and ``orphanDependents`` the Job's pods are orphaned and the answer carries the
  warning ``deleteOptionWarnings`` (a ``Warning: 299`` header; kubectl prints it). ``Background``: the Job
  is removed at once and the answer is a Success Status (apiserver/pkg/registry/generic/registry/store.go
  ``finalizeDelete``, Jobs do not set ReturnDeletedObject); the garbage collector then deletes its pods.
  ``Foreground`` and ``Orphan``: the Job stays with ``deletionTimestamp`` and the finalizer
  ``foregroundDeletion`` or ``orphan`` (store.go ``updateForGracefulDeletionAndFinalizers``) and the
  answer is the Job; the garbage collector (pkg/controller/garbagecollector/garbagecollector.go
  ``processDeletingDependentsItem`` / ``orphanDependents``) deletes the pods, or removes their
  ownerReference, then removes the finalizer, and the Job is gone. The garbage collector is part of
  ``controllers`` (`JobController`): without it, as on a cluster without kube-controller-manager, the
  pods stay and a finalized Job waits.
- Job controller (pkg/controller/job/job_controller.go ``syncJob`` / ``manageJob``): one pod per Job
  (completions and parallelism 1, the load generator's case), named ``<job>-<5 characters>``
  (``generateName``), with the template's labels and spec, a controller ownerReference (batch/v1 Job,
  ``blockOwnerDeletion``), placed as controllers.py places pods; the status gets ``startTime``,
  ``active``, ``ready``, ``terminating`` and ``uncountedTerminatedPods``. No kubelet runs the container,
  so a test ends it with `finish`: the pod Succeeded (exit 0, reason Completed) or Failed (exit 1,
  reason Error) with a log, and the Job's status as the 1.31+ controller writes it: ``succeeded`` /
  ``failed`` counts, ``SuccessCriteriaMet`` then ``Complete`` (reason ``CompletionsReached``, message
  "Reached expected number of succeeded pods", ``completionTime``), or, once more pods failed than
  ``backoffLimit`` allows, ``FailureTarget`` then ``Failed`` (reason ``BackoffLimitExceeded``, message
  "Job has reached the specified backoff limit"); a failure within the limit gets a new pod (the
  controller's back-off delay is not waited for).
"""

import copy
import time
import uuid

from apiserver import controllers, follower, objects
from apiserver import status as api_status
from apiserver import store as api_store

JOB_NAME = "batch.kubernetes.io/job-name"
CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
LEGACY_JOB_NAME = "job-name"
LEGACY_CONTROLLER_UID = "controller-uid"
DELETE_WARNING = ("child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set "
                  "propagationPolicy=Orphan to suppress this warning")
COMPLETE = ("CompletionsReached", "Reached expected number of succeeded pods")
BACKOFF = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")


def prepare_create(job):
    """The Job as the registry stores it: defaults, generated selector and template labels, no status."""
    job = copy.deepcopy(job)
    meta = job.setdefault("metadata", {})
    meta.setdefault("uid", str(uuid.uuid4()))
    spec = job.setdefault("spec", {})
    if "completions" not in spec and "parallelism" not in spec:
        spec["completions"] = spec["parallelism"] = 1
    spec.setdefault("parallelism", 1)
    spec.setdefault("backoffLimit", 6)
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    spec.setdefault("manualSelector", False)
    spec.setdefault("podReplacementPolicy", "TerminatingOrFailed")
    template = spec.setdefault("template", {})
    if not spec["manualSelector"]:
        labels = template.setdefault("metadata", {}).setdefault("labels", {})
        for key in (LEGACY_JOB_NAME, JOB_NAME):
            labels.setdefault(key, meta.get("name"))
        for key in (LEGACY_CONTROLLER_UID, CONTROLLER_UID):
            labels.setdefault(key, meta["uid"])
        spec.setdefault("selector", {}).setdefault("matchLabels", {}).setdefault(CONTROLLER_UID, meta["uid"])
    job["status"] = {}
    return job


def owned(store, job):
    """The pods whose ownerReferences name ``job`` (by uid)."""
    uid = job["metadata"]["uid"]
    pods = store.list("pods", job["metadata"]["namespace"])[0]
    return [p for p in pods if any(r.get("uid") == uid for r in p["metadata"].get("ownerReferences") or [])]


def delete(store, namespace, name, options, dry_run=False):
    """DELETE of a Job: (answer, warnings), see the module docstring."""
    policy, orphan = options.get("propagationPolicy"), options.get("orphanDependents")
    warnings = []
    if policy is None and orphan is None:
        policy = "Orphan"
        warnings.append(DELETE_WARNING)
    elif policy is None:
        policy = "Orphan" if orphan else "Background"
    if policy not in ("Orphan", "Background", "Foreground"):
        raise api_status.bad_request("DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"%s\": supported "
                                     "values: \"Foreground\", \"Background\", \"Orphan\"" % policy)
    with store.cond:
        job = store.get("jobs", namespace, name)
        if policy == "Background":
            removed = store.delete("jobs", namespace, name, options, dry_run=dry_run)
            return api_status.success({"name": name, "group": "batch", "kind": "jobs", "uid": removed["metadata"]["uid"]}), warnings
        store.delete("jobs", namespace, name, options, dry_run=True)  # the preconditions only
        finalizer = "foregroundDeletion" if policy == "Foreground" else "orphan"
        meta = job["metadata"]
        meta.setdefault("deletionTimestamp", api_store.timestamp())
        meta["deletionGracePeriodSeconds"] = 0
        meta["finalizers"] = [f for f in meta.get("finalizers") or [] if f not in ("orphan", "foregroundDeletion")] + [finalizer]
        if dry_run:
            return job, warnings
        return store.update("jobs", job, check_version=False), warnings


def collect(store):
    """The garbage collector's pass over Jobs and their pods (module docstring); True when it changed something."""
    changed = False
    with store.cond:
        jobs = store.list("jobs")[0]
        uids = {j["metadata"]["uid"] for j in jobs}
        for pod in store.list("pods")[0]:
            ref = objects.controller_ref(pod)
            if ref and ref.get("kind") == "Job" and ref.get("uid") not in uids and not pod["metadata"].get("deletionTimestamp"):
                store.delete("pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
                changed = True
        for job in jobs:
            finalizers = job["metadata"].get("finalizers") or []
            if "orphan" in finalizers:
                for pod in owned(store, job):
                    pod["metadata"]["ownerReferences"] = [r for r in pod["metadata"]["ownerReferences"] if r.get("uid") != job["metadata"]["uid"]]
                    store.update("pods", pod, check_version=False)
                store.remove("jobs", job["metadata"]["namespace"], job["metadata"]["name"])
                changed = True
            elif "foregroundDeletion" in finalizers:
                pods = owned(store, job)
                for pod in pods:
                    if not pod["metadata"].get("deletionTimestamp"):
                        store.delete("pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
                        changed = True
                if not owned(store, job):
                    store.remove("jobs", job["metadata"]["namespace"], job["metadata"]["name"])
                    changed = True
    return changed


def _condition(kind, reason_message, now):
    reason, message = reason_message
    return {"type": kind, "status": "True", "lastProbeTime": now, "lastTransitionTime": now, "reason": reason, "message": message}


def _counts(status, pods):
    active = [p for p in pods if objects.is_pod_active(p)]
    status.update(active=len(active), ready=sum(1 for p in active if objects.is_ready(p)),
                  terminating=sum(1 for p in pods if p["metadata"].get("deletionTimestamp")), uncountedTerminatedPods={})
    if not status["active"]:
        del status["active"]
    return status


def finish(store, logs, namespace, name, succeeded=True, log=""):
    """End the Job's active pod as its container would have ended (module docstring); the Job as stored then."""
    with store.cond:
        job = store.get("jobs", namespace, name)
        active = [p for p in owned(store, job) if objects.is_pod_active(p)]
        if not active:
            raise ValueError("job %s/%s has no active pod to finish (start the double with controllers=True)" % (namespace, name))
        pod = active[0]
        if not pod["spec"].get("nodeName"):
            raise ValueError("pod %s of job %s/%s is not on a node: no kubelet could have run it" % (pod["metadata"]["name"], namespace, name))
        now = api_store.timestamp()
        pod["status"]["phase"] = "Succeeded" if succeeded else "Failed"
        for condition in pod["status"].get("conditions") or []:
            if condition["type"] in ("Ready", "ContainersReady"):
                condition.update(status="False", reason="PodCompleted", lastTransitionTime=now)
        for container in pod["status"].get("containerStatuses") or []:
            container.update(ready=False, started=False, state={"terminated": {
                "exitCode": 0 if succeeded else 1, "reason": "Completed" if succeeded else "Error", "startedAt": pod["status"].get("startTime"),
                "finishedAt": now, "containerID": container.get("containerID", "")}})
        logs[(namespace, pod["metadata"]["name"])] = log
        store.update("pods", pod, check_version=False)
        status = dict(job.get("status") or {})
        key = "succeeded" if succeeded else "failed"
        status[key] = status.get(key, 0) + 1
        conditions = list(status.get("conditions") or [])
        if succeeded and status["succeeded"] >= job["spec"].get("completions", 1):
            conditions += [_condition("SuccessCriteriaMet", COMPLETE, now), _condition("Complete", COMPLETE, now)]
            status["completionTime"] = now
        elif not succeeded and status["failed"] > job["spec"].get("backoffLimit", 6):
            conditions += [_condition("FailureTarget", BACKOFF, now), _condition("Failed", BACKOFF, now)]
        if conditions:
            status["conditions"] = conditions
        job["status"] = _counts(status, owned(store, job))
        return store.update("jobs", job, check_version=False)


def is_finished(job):
    """A Complete or Failed condition is True (job_controller.go ``IsJobFinished``)."""
    return any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True" for c in (job.get("status") or {}).get("conditions") or [])


class JobController(follower.EventFollower):
    """A thread following the store's event log: the Job controller's pods and the garbage collector's deletions."""

    def before_batch(self):
        """Deletions whose grace period has passed are carried out first (the kubelet's part, for the Job's pods)."""
        self.store.reap()

    def handle(self, events):
        """The garbage collector's pass, then syncJob for every Job; its own writes do not wake it again."""
        collect(self.store)
        for job in self.store.list("jobs")[0]:
            self._sync(job)
        self.skip_own_events()

    def _sync(self, job):
        """manageJob for one pod: create it when none is active, nothing is finished and the Job is not being deleted."""
        if job["metadata"].get("deletionTimestamp") or is_finished(job) or job["spec"].get("suspend"):
            return
        pods = owned(self.store, job)
        if not any(objects.is_pod_active(p) for p in pods):
            pods.append(self.store.create("pods", self._pod(job)))
        status = _counts(dict(job.get("status") or {}), pods)
        status.setdefault("startTime", api_store.timestamp())
        if status != job.get("status"):
            job["status"] = status
            self.store.update("jobs", job, check_version=False)

    def _pod(self, job):
        meta, template = job["metadata"], job["spec"]["template"]
        suffix = "".join(self.rng.choice(controllers.NAME_ALPHABET) for dummy in range(5))
        nodes = self.store.list("nodes")[0]
        node_name = controllers.pick_node(nodes, self.store.list("pods")[0])
        now = api_store.timestamp()
        pod = objects.pod("%s-%s" % (meta["name"], suffix), meta["namespace"], now, node_name=node_name,
                          labels=(template.get("metadata") or {}).get("labels"), ready=node_name is not None,
                          phase="Running" if node_name else "Pending")
        spec = copy.deepcopy(template.get("spec") or {})
        spec.setdefault("terminationGracePeriodSeconds", 30)
        if node_name:
            spec["nodeName"] = node_name
            pod["status"]["containerStatuses"] = [dict(pod["status"]["containerStatuses"][0], name=c.get("name", "main"), image=c.get("image", ""))
                                                  for c in spec.get("containers") or []]
        pod["spec"] = spec
        pod["metadata"]["generateName"] = "%s-" % meta["name"]
        pod["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": meta["name"], "uid": meta["uid"],
                                               "controller": True, "blockOwnerDeletion": True}]
        if not node_name:
            pod["status"] = {"phase": "Pending", "qosClass": "BestEffort", "conditions": [{
                "type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastProbeTime": None, "lastTransitionTime": now,
                "message": "0/%d nodes are available: %d node(s) were unschedulable or not ready." % (len(nodes), len(nodes))}]}
        return pod


def log_text(logs, store, namespace, name, query):
    """GET pods/<name>/log (pkg/registry/core/pod/rest/log.go): the container's output, ``tailLines`` lines from the end."""
    store.get("pods", namespace, name)
    text = logs.get((namespace, name), "")
    if "tailLines" in query:
        count = int(query["tailLines"])
        lines = text.splitlines(True)
        text = "".join(lines[-count:]) if count > 0 else ""
    return text


def sleep_until(predicate, timeout=10.0):
    """Tests: wait until ``predicate()`` is true (the controllers run in a thread); its last value."""
    deadline = time.time() + timeout
    value = predicate()
    while not value and time.time() < deadline:
        time.sleep(0.05)
        value = predicate()
    return value
