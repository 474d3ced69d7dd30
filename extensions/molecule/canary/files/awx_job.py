# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run one playbook the way AWX runs a job, with the real ansible-runner, and summarise its artifacts.

What AWX does, and this does the same (sources: awx/main/tasks/jobs.py ``make_local_copy`` and
``build_private_data_files``; ansible-runner docs/intro.rst "Runner Input Directory Hierarchy",
docs/remote_jobs.rst):

- a fresh private data dir per job: ``project/`` is a throw-away copy of the project (AWX:
  ``shutil.copytree(..., ignore=ignore_patterns('.git'), symlinks=True)``; here the checkout's
  tracked and unignored files, so no virtualenv or build output rides along), the collections the
  project requires installed beside it in ``requirements_collections/`` (AWX's cache of
  ``collections/requirements.yml``), ``inventory/``, ``env/extravars``, ``env/envvars`` and
  ``env/settings``; no ``env/passwords``, so nothing can answer a prompt;
- the job goes ``ansible-runner transmit | ansible-runner worker | ansible-runner process``, the
  path AWX takes through receptor, so the playbook runs in a worker data dir of its own;
- afterwards the project copy is deleted (AWX discards it with the job), and only then are the
  artifacts read: ``status``, ``rc`` and the job events, the last of which, ``playbook_on_stats``,
  carries the ``set_stats`` data (``artifact_data``) that AWX stores as the job's artifacts and
  hands to a workflow's next node.

Prints one JSON object: status, rc, the per-host counts (ok, changed, failures, dark), each changed task's host and name, each failed
task's host, name and message, the artifact data, which files the job left in the project copy (relative paths), and the playbook's
task names that ran, for the caller's assertions. This is test tooling: it imports nothing of the
collection.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

RUNNER = os.path.join(os.path.dirname(sys.executable), "ansible-runner")


def _tree(root):
    """relative path -> sha256 of every file under root."""
    found = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            with open(path, "rb") as handle:
                found[os.path.relpath(path, root)] = hashlib.sha256(handle.read()).hexdigest()
    return found


def _copy_project(checkout, dest):
    """The checkout's tracked and unignored files (what a project's git clone holds), links kept as links."""
    names = subprocess.run(["git", "-C", checkout, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, names):
        source = os.path.join(checkout, name)
        if not os.path.lexists(source):
            continue  # deleted in the work tree, not yet committed
        target = os.path.join(dest, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.islink(source):
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target)


def _write_json(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle)


def prepare(pdd, checkout, inventory, playbook_vars, envvars):
    project = os.path.join(pdd, "project")
    _copy_project(checkout, project)
    collection = os.path.join(pdd, "requirements_collections", "ansible_collections", "gpusmith", "numa_gate")
    _copy_project(checkout, collection)
    if os.path.isdir(inventory):  # an inventory source with its group_vars/ and host_vars/, as AWX syncs it
        shutil.copytree(inventory, os.path.join(pdd, "inventory"))
    else:
        os.makedirs(os.path.join(pdd, "inventory"))
        shutil.copy(inventory, os.path.join(pdd, "inventory", "hosts.yml"))
    _write_json(os.path.join(pdd, "env", "extravars"), playbook_vars)
    paths = [os.path.join(pdd, "requirements_collections")] + [p for p in os.environ.get("ANSIBLE_COLLECTIONS_PATH", "").split(":") if p]
    _write_json(os.path.join(pdd, "env", "envvars"), dict(envvars, ANSIBLE_COLLECTIONS_PATH=":".join(paths)))
    _write_json(os.path.join(pdd, "env", "settings"), {"idle_timeout": 600, "job_timeout": 1800, "suppress_ansible_output": True})
    return project


def run_job(pdd, playbook, ident, timeout, before):
    """transmit | worker | process, as AWX's receptor path does.

    Returns the process step's exit status and the files the job wrote into the project copy it ran
    in (the worker's: transmit ships the project to the worker, where the playbook runs).
    """
    worker_dir = tempfile.mkdtemp(prefix="awx-worker-")
    try:
        transmit = subprocess.Popen([RUNNER, "transmit", pdd, "-p", playbook, "--ident", ident], stdout=subprocess.PIPE)
        worker = subprocess.Popen([RUNNER, "worker", "--private-data-dir", worker_dir], stdin=transmit.stdout, stdout=subprocess.PIPE)
        transmit.stdout.close()
        process = subprocess.Popen([RUNNER, "process", pdd, "--ident", ident], stdin=worker.stdout,
                                   stdout=subprocess.DEVNULL)
        worker.stdout.close()
        code = process.wait(timeout=timeout)
        worker.wait(timeout=60)
        transmit.wait(timeout=60)
        after = _tree(os.path.join(worker_dir, "project"))
        return code, sorted(name for name, digest in after.items() if before.get(name) != digest)
    finally:
        shutil.rmtree(worker_dir, ignore_errors=True)


def summarise(pdd, ident):
    artifacts = os.path.join(pdd, "artifacts", ident)
    summary = {"status": None, "rc": None, "stats": None, "artifact_data": None, "tasks": [], "failed": [], "changed": []}
    for name in ("status", "rc"):
        path = os.path.join(artifacts, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                summary[name] = handle.read().strip()
    events = []
    for path in glob.glob(os.path.join(artifacts, "job_events", "*.json")):
        with open(path, encoding="utf-8") as handle:
            events.append(json.load(handle))
    events.sort(key=lambda event: event.get("counter", 0))
    for event in events:
        data = event.get("event_data", {})
        if event.get("event") == "playbook_on_task_start":
            summary["tasks"].append(data.get("task"))
        # Which task changed what on which host: a converged job must list none.
        if event.get("event") == "runner_on_ok" and (data.get("res") or {}).get("changed"):
            summary["changed"].append({"host": data.get("host"), "task": data.get("task")})
        if event.get("event") in ("runner_on_failed", "runner_on_unreachable") and not data.get("ignore_errors"):
            result = data.get("res") or {}
            summary["failed"].append({"host": data.get("host"), "task": data.get("task"), "msg": result.get("msg")})
        if event.get("event") == "playbook_on_stats":
            summary["stats"] = {key: data.get(key, {}) for key in ("ok", "changed", "failures", "dark", "skipped")}
            summary["artifact_data"] = data.get("artifact_data")
    summary["rc"] = int(summary["rc"]) if summary["rc"] not in (None, "") else None
    return summary


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", required=True)
    parser.add_argument("--inventory", required=True)
    parser.add_argument("--playbook", required=True, help="relative to the project, e.g. playbooks/enable.yml")
    parser.add_argument("--extra-vars", default="{}", help="JSON: the job template's extra variables")
    parser.add_argument("--envvars", default="{}", help="JSON: environment the job runs with (a credential's injectors)")
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args(argv)
    pdd = tempfile.mkdtemp(prefix="awx-job-")
    try:
        project = prepare(pdd, args.checkout, args.inventory, json.loads(args.extra_vars), json.loads(args.envvars))
        ident = "numa-gate-job"
        code, written = run_job(pdd, args.playbook, ident, args.timeout, _tree(project))
        shutil.rmtree(project)  # AWX discards the project copy with the job: what matters must be in the artifacts
        summary = summarise(pdd, ident)
        summary["process_exit"] = code
        summary["project_writes"] = written
        print(json.dumps(summary, sort_keys=True))
    finally:
        shutil.rmtree(pdd, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
