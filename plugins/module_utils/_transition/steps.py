# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transition's step table: one row per step (side, who journals it, when a resumed run skips it, whether it ends the transition).

Public: `Step`, `Resume`, `STEPS`, `NAMES`, `BY_NAME`, `SELF_JOURNALING`, `FINISHED_ONLY`, `CONTROLLER_STEPS`,
`FILE_STEPS`, `RESUME_RULES`, `RESUMES_NOTHING`, `RESUMES_NOTHING_STEPS`, `ENDING`, `ends(step, outcome)`.

Pure data, read by the journal (which step names a line may carry, which steps record only their
end, which ``kube_node`` state journals which step, which steps record files), by the resume (what
a resumed run skips, and after which events) and by the record (whether the journal's last event
ended the transition). A new step is a row here, its task file in ``roles/kubelet_transition/tasks/``
and the literal ``choices`` of the two documentation blocks that list step names (docs/transition.md,
"The step table"; tests/unit/plugins/module_utils/_transition/test_steps.py keeps them equal).

Each row:

- ``name``: the word the journal's lines carry (``step``), in flow order.
- ``side``: ``node`` (its work is done on the node) or ``controller`` (through the Kubernetes API,
  from the controller).
- ``started_by`` and ``finished_by``: the plugins whose runs write its ``started`` and its
  ``finished`` event (empty: never written; a step with no ``started`` is taken by the record to
  have started at the event before it).
- ``journal_state``: the ``kube_node`` state whose own task journals this step through its
  ``journal`` option (None for the others: the cordon's task records nothing on purpose, its
  ``finished`` event goes with the drain's).
- ``files``: whether its events carry ``changed.files`` (the files it backed up or is about to
  create), which the restore and the record read.
- ``resume``: when a resumed run skips it (a `Resume`), `RESUMES_NOTHING` (a journal that holds
  this step resumes nothing), or None (never skipped by the journal's word).
- ``ends``: whether its ``finished`` event ends the transition: `UNLESS_FAILED`, `IF_FAILED` or None.
  `ends` is that rule, written once.
"""

from __future__ import annotations

from collections import namedtuple

Step = namedtuple("Step", "name side started_by finished_by journal_state files resume ends")
# A resumed run's skip: ``flag`` is the key of resume.plan's answer; the step is skipped when the journal's last event of
# step ``after`` is a finished one that did not fail and this run's ``holds`` input (a resume.plan argument) is true;
# ``reason`` says so in the plan's reasons.
Resume = namedtuple("Resume", "flag after holds reason")

UNLESS_FAILED = "unless failed"
IF_FAILED = "if failed"
RESUMES_NOTHING = "resumes nothing"

SKIP_KUBELET = Resume("skip_kubelet", "start", "target_in_place",
                      "the journal says the kubelet was started on the target and the node's files still hold it: it is not stopped "
                      "and started again, only verified")
SKIP_DRAIN = Resume("skip_drain", "drain", "unschedulable_now",
                    "the journal says the drain finished and the node is still unschedulable: it is not drained again")
# In the order resume.plan gives their reasons.
RESUME_RULES = (SKIP_KUBELET, SKIP_DRAIN)

# The node modules that take the ``journal`` option and journal themselves (journal/step.py's StepJournal).
SELF_JOURNALING = ("kubelet_baseline", "kubelet_checkpoint", "kubelet_config", "kubelet_service")

STEPS = (
    # Kept by kubelet_baseline before any transition is opened: a name the journal accepts, which no plugin writes.
    Step("baseline", "node", (), (), None, False, None, None),
    # Recorded by the node run that opens (or resumes) the transition, before any PATCH: the cordon's intent.
    Step("decide", "node", (), ("transition_journal",), None, False, None, None),
    # The node's maintenance lock (transition_lock: a Lease held by this transition), taken before the dry run: its finished
    # event goes with the drain's task (or drain_failed.yml's record); a lock another holder keeps ends the transition.
    Step("lock", "controller", (), ("kube_node", "transition_journal"), None, False, None, IF_FAILED),
    # The drain checked before the cordon (kube_node state=drainable: dry-run evictions, pods summed per budget), which
    # changes nothing: its finished event goes with the drain's task, before the cordon's; a refusal is recorded by
    # drain_failed.yml and ends the transition (nothing was changed). A resumed run that skips the drain skips it too.
    Step("dry_run", "controller", (), ("kube_node", "transition_journal"), None, False, SKIP_DRAIN, IF_FAILED),
    # Its finished event goes with the drain's task (kube_node state=drained, in journal.events).
    Step("cordon", "controller", (), ("kube_node",), None, False, None, None),
    # Started by its own task; finished with the stop's run (journal.events), or by transition_journal when no node-side
    # step follows (drain.yml) or when it failed (drain_failed.yml).
    Step("drain", "controller", ("kube_node",), ("kubelet_service", "transition_journal"), "drained", False, SKIP_DRAIN, IF_FAILED),
    Step("stop", "node", ("kubelet_service",), ("kubelet_service",), None, False, SKIP_KUBELET, None),
    Step("state", "node", ("kubelet_checkpoint",), ("kubelet_checkpoint",), None, True, SKIP_KUBELET, None),
    # enable: kubelet_config; rollback: kubelet_baseline state=restored.
    Step("config", "node", ("kubelet_config", "kubelet_baseline"), ("kubelet_config", "kubelet_baseline"), None, True, SKIP_KUBELET, None),
    Step("start", "node", ("kubelet_service",), ("kubelet_service",), None, False, SKIP_KUBELET, None),
    # Its node-side part follows the wait on the controller (Ready and stable): it records its end only.
    Step("verify", "node", (), ("kubelet_checkpoint",), None, False, None, None),
    # By its own task (kube_node state=uncordoned), or transition_journal (skipped) when the node stays cordoned.
    Step("uncordon", "controller", (), ("kube_node", "transition_journal"), "uncordoned", False, None, UNLESS_FAILED),
    # restore.yml records it around transition_restore's work.
    Step("restore", "node", ("transition_journal",), ("transition_journal",), None, False, RESUMES_NOTHING, UNLESS_FAILED),
)

NAMES = tuple(row.name for row in STEPS)
BY_NAME = dict((row.name, row) for row in STEPS)
# Steps a self-journaling module records only the end of (the record takes their start from the event before).
FINISHED_ONLY = tuple(row.name for row in STEPS if not row.started_by and set(row.finished_by) & set(SELF_JOURNALING))
# The kube_node states that journal, and the step each is.
CONTROLLER_STEPS = dict((row.journal_state, row.name) for row in STEPS if row.journal_state)
FILE_STEPS = tuple(row.name for row in STEPS if row.files)
RESUMES_NOTHING_STEPS = tuple(row.name for row in STEPS if row.resume == RESUMES_NOTHING)
ENDING = tuple(row.name for row in STEPS if row.ends)


def ends(step, outcome):
    """Whether a ``finished`` event of ``step`` with ``outcome`` ends the transition (the role then only keeps the record and closes it).

    ``uncordon`` and ``restore`` end it unless they failed (it went through; it was put back), ``lock``, ``dry_run`` and
    ``drain`` when they failed (nothing on the node was changed).
    """
    row = BY_NAME.get(step)
    if row is None or row.ends is None:
        return False
    return (outcome == "failed") == (row.ends == IF_FAILED)
