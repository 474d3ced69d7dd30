# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service_load action: one run of the operator's load generator from the controller (a command, or a Job through the API)."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import load as service_load
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import urls
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api.outcome import outcome
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.api_action import ControllerAction

ARGUMENT_SPEC = specs.SERVICE_LOAD  # declared once: the module file documents the same dict


def _label(args):
    return "%s repetition %d (window %d, %s)" % (args["side"], args["repetition"], args["window"],
                                                 "the warmup" if args["phase"] == "warmup" else "the measured part")


def run_load(args, connect=kube_api.connect):
    """The action's result from validated ``args``: what ran, its start and end, how it ended, the result file's JSON (``client``)."""
    if bool(args["argv"]) == bool(args["job"]):
        raise service_load.LoadError("service_load needs exactly one of argv (a command on the controller) and job (a Job manifest)")
    for key in ("timeout", "stop_after", "poll", "request_timeout"):
        if args[key] is not None:
            S.seconds(args[key], "service_load's %s" % key, service_load.LoadError)
    S.no_nul(args["argv"] or [], "service_load's argv", service_load.LoadError)
    S.no_nul(args["result_file"], "service_load's result_file", service_load.LoadError)
    service_load.check_result_file(args["result_file"])
    # Load generators print their arguments: every URL's user:password (and each part of it) is masked in all that comes back.
    secrets = [secret for text in _strings(args["argv"] or args["job"]) for secret in urls.userinfo(text)]
    try:
        return _masked(_run_load(args, connect), secrets)
    except service_load.LoadError as exc:
        raise service_load.LoadError(urls.mask_text(str(exc), secrets),
                                     **_masked(exc.details, secrets)) from None


def _strings(value):
    """Every string in ``value`` (argv, or a Job manifest), for the URLs whose credentials are masked."""
    pending, found = [value], []
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
    return found


def _masked(value, secrets):
    if isinstance(value, str):
        return urls.mask_text(value, secrets)
    if isinstance(value, list):
        return [_masked(item, secrets) for item in value]
    if isinstance(value, dict):
        return {key: _masked(item, secrets) for key, item in value.items()}
    return value


def _run_load(args, connect):
    if args["argv"]:
        what = {"argv": [urls.mask_url(arg) for arg in args["argv"]]}
        result = service_load.run_command(args["argv"], args["timeout"], args["stop_after"])
        shown = "argv %s" % what["argv"]
    else:
        what = {"manifest": _masked(args["job"], [])}
        metadata = args["job"].get("metadata") or {}
        shown = "Job %s/%s" % (metadata.get("namespace", "default"), metadata.get("name"))
        api = connect(settings=connection.from_task(args), timeout=args["request_timeout"])
        result = service_load.run_job(api, args["job"], args["timeout"], args["stop_after"], args["poll"])
    message = service_load.failure(_label(args), shown, result, args["timeout"])
    if message:
        raise service_load.LoadError(message, exit_status=result.get("exit_status"), stderr_tail=result.get("stderr_tail"), **what)
    if result.get("stopped"):
        outcome_text = "stopped after %g s (the warmup's duration)" % args["stop_after"]
    elif "job_state" in result:
        outcome_text = "the Job completed (%s)" % (result["job_detail"] or "Complete")
    else:
        outcome_text = "exit status 0"
    client = None if result.get("stopped") else service_load.read_result(args["result_file"], args["max_result_bytes"])
    return dict(what, changed=False, outcome=outcome_text, client=client,
                result_file=args["result_file"] if client is not None else None,
                **{key: result[key] for key in ("start", "end", "exit_status", "stopped", "stdout_tail", "stderr_tail", "contained", "left")
                   if key in result})


class ActionModule(ControllerAction):
    """Run the operator's load generator once, from the controller (see the module's docs)."""

    ARGUMENT_SPEC = ARGUMENT_SPEC

    def answer(self, args):
        if self._task.check_mode:
            return {"changed": False, "skipped": True, "msg": "check mode: the load generator is not run"}
        return outcome(lambda: run_load(args))
