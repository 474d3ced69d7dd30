"""The transition's step table: the role uses every row as it says, the documented choices are its names, the 'ended' rule answers as before."""

import ast
import os
import re

import pytest
import yaml

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record, resume, steps
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, lines, step as step_journal

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", "..", ".."))
ROLE = os.path.join(ROOT, "roles", "kubelet_transition")
PREFIX = "gpusmith.numa_gate."
_COMBINED = re.compile(r"'step':\s*'([a-z_]+)'")
_VAR = re.compile(r"__kubelet_transition_[a-z_]+")


def _yaml(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _tasks(items):
    for task in items or []:
        yield task
        for key in ("block", "rescue", "always"):
            yield from _tasks(task.get(key))


def _role_vars():
    return _yaml(os.path.join(ROLE, "vars", "main.yml"))


def _steps_in(value, role_vars, seen=()):
    """The step names a task argument carries: a ``step`` key, a combine({'step': ...}), or a role variable holding events."""
    found = set()
    if isinstance(value, dict):
        if isinstance(value.get("step"), str):
            found.add(value["step"])
        for item in value.values():
            found |= _steps_in(item, role_vars, seen)
    elif isinstance(value, list):
        for item in value:
            found |= _steps_in(item, role_vars, seen)
    elif isinstance(value, str):
        found |= set(_COMBINED.findall(value))
        for name in _VAR.findall(value):
            if name in role_vars and name not in seen and name != "__kubelet_transition_journal_of":
                found |= _steps_in(role_vars[name], role_vars, seen + (name,))
    return found


def role_journal_writes():
    """{(plugin, step)} for every task of the role that writes a step's events, read from its task files."""
    role_vars = _role_vars()
    writes = set()
    folder = os.path.join(ROLE, "tasks")
    for name in sorted(os.listdir(folder)):
        for task in _tasks(_yaml(os.path.join(folder, name))):
            for key, args in task.items():
                if not key.startswith(PREFIX) or not isinstance(args, dict):
                    continue
                plugin = key[len(PREFIX):]
                named = set()
                if "journal" in args:
                    named |= _steps_in(args["journal"], role_vars)
                if plugin == "transition_journal":
                    named |= _steps_in({k: v for k, v in args.items() if k in ("step", "entries")}, role_vars)
                    if args.get("decide") is not None:
                        named.add("decide")
                writes |= {(plugin, step) for step in named}
    return writes


def test_every_step_the_role_names_is_a_row():
    named = {step for _plugin, step in role_journal_writes()} | _steps_in(_role_vars(), _role_vars())
    assert named, "no step found in the role: the parser above no longer reads it"
    assert named <= set(steps.NAMES), sorted(named - set(steps.NAMES))


def test_every_row_is_written_by_the_plugins_it_names_and_no_other():
    writes = role_journal_writes()
    for row in steps.STEPS:
        said = set(row.started_by) | set(row.finished_by)
        done = {plugin for plugin, step in writes if step == row.name}
        assert done == said, "%s: the table says %s, the role's tasks %s" % (row.name, sorted(said), sorted(done))
    # The one row no plugin writes: the baseline is kept before a transition is opened; the journal accepts the name.
    assert [row.name for row in steps.STEPS if not row.started_by and not row.finished_by] == ["baseline"]


def test_every_plugin_a_row_names_exists():
    for row in steps.STEPS:
        for plugin in set(row.started_by) | set(row.finished_by):
            assert os.path.exists(os.path.join(ROOT, "plugins", "modules", plugin + ".py")), (row.name, plugin)


def test_the_self_journaling_modules_are_those_that_take_the_journal_option():
    folder = os.path.join(ROOT, "plugins", "modules")
    taking = []
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            if "step_journal.ARGUMENT_SPEC" in handle.read():
                taking.append(name[:-3])
    assert tuple(taking) == steps.SELF_JOURNALING


def test_each_resume_rule_is_the_when_of_its_rows_task_files():
    for row in steps.STEPS:
        if not isinstance(row.resume, steps.Resume):
            continue
        with open(os.path.join(ROLE, "tasks", row.name + ".yml"), encoding="utf-8") as handle:
            text = handle.read()
        assert "__kubelet_transition_resume.%s" % row.resume.flag in text, (row.name, row.resume.flag)
        assert row.resume.after in steps.NAMES
        assert row.resume.holds in ("target_in_place", "unschedulable_now")
    assert {rule.flag for rule in steps.RESUME_RULES} == {row.resume.flag for row in steps.STEPS if isinstance(row.resume, steps.Resume)}


def test_the_table_gives_the_values_the_copies_it_replaced_held():
    assert lines.STEPS == journal.STEPS == steps.NAMES
    assert step_journal.FINISHED_ONLY == steps.FINISHED_ONLY == ("verify",)
    assert step_journal.CONTROLLER_STEPS == steps.CONTROLLER_STEPS == {"drained": "drain", "uncordoned": "uncordon"}
    assert steps.FILE_STEPS == ("state", "config")
    assert steps.RESUMES_NOTHING_STEPS == ("restore",)
    assert set(steps.ENDING) == {"lock", "dry_run", "drain", "uncordon", "restore"}
    assert {row.side for row in steps.STEPS} == {"node", "controller"}
    assert [row.name for row in steps.STEPS if row.side == "controller"] == ["lock", "dry_run", "cordon", "drain", "uncordon"]


def test_the_role_runs_the_steps_in_the_tables_order():
    main = [task["ansible.builtin.import_tasks"][:-4] for task in _tasks(_yaml(os.path.join(ROLE, "tasks", "main.yml")))
            if "ansible.builtin.import_tasks" in task]
    # The restore is the rescue of the kubelet's steps, so it comes after the verification in the role and last in the table.
    ordered = [name for name in main if name in steps.NAMES and name != "restore"]
    assert ordered == [name for name in steps.NAMES if name in ordered]
    # Every row but the baseline, the decision (recorded by open.yml) and the restore (the rescue) has its task file.
    assert set(steps.NAMES) - set(main) == {"baseline"}


# The documented choices stay literal for ansible-doc; these are every option named ``step`` there.
def _documentation(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == "DOCUMENTATION" for target in node.targets):
            return yaml.safe_load(node.value.value)
    return None


def _step_choices(options, where):
    for name, option in (options or {}).items():
        if name == "step" and "choices" in option:
            yield where + [name], option["choices"]
        yield from _step_choices(option.get("suboptions"), where + [name])


def test_every_documented_step_choice_is_the_tables_names():
    found = []
    for folder in ("modules", "doc_fragments"):
        path = os.path.join(ROOT, "plugins", folder)
        for name in sorted(os.listdir(path)):
            if not name.endswith(".py"):
                continue
            doc = _documentation(os.path.join(path, name))
            if doc:
                found.extend((folder, name, where, choices) for where, choices in _step_choices(doc.get("options"), []))
    assert len(found) >= 4, found  # transition_journal's step and entries[].step, the doc fragment's journal.step and journal.events[].step
    for folder, name, where, choices in found:
        assert tuple(choices) == steps.NAMES, "%s/%s %s" % (folder, name, ".".join(where))


# The 'ended' rule as record.ends and resume._ended wrote it, each, before the table.
def _old_record_ends(entries):
    if not entries:
        return None
    last = entries[-1]
    if last.get("event") != "finished":
        return None
    outcome = last.get("outcome")
    if (last["step"] in ("uncordon", "restore") and outcome != "failed") or (last["step"] in ("lock", "dry_run", "drain") and outcome == "failed"):
        return last
    return None


def _old_resume_ended(summary, steps_):
    last = summary.get("last_finished") if steps_ else None
    if last is None or summary.get("in_progress") is not None:
        return None
    outcome = steps_.get(last, {}).get("outcome")
    if (last in ("uncordon", "restore") and outcome != "failed") or (last in ("lock", "dry_run", "drain") and outcome == "failed"):
        return last
    return None


def _at(second):
    return "2026-12-01T09:00:%02d.000000Z" % second


ENABLE = [("decide", "finished", "changed"), ("cordon", "finished", "changed"), ("drain", "started", None),
          ("drain", "finished", "changed"), ("stop", "started", None), ("stop", "finished", "changed"), ("state", "started", None),
          ("state", "finished", "ok"), ("config", "started", None), ("config", "finished", "changed"), ("start", "started", None),
          ("start", "finished", "changed"), ("verify", "finished", "ok"), ("uncordon", "finished", "changed")]
FAILED_DRAIN = ENABLE[:3] + [("drain", "finished", "failed")]
RESTORED = ENABLE[:11] + [("start", "finished", "failed"), ("restore", "started", None), ("restore", "finished", "changed")]
RESTORE_FAILED = RESTORED[:-1] + [("restore", "finished", "failed")]
LEFT_CORDONED = ENABLE[:-1] + [("uncordon", "finished", "skipped")]


def _journals():
    for events in (ENABLE, FAILED_DRAIN, RESTORED, RESTORE_FAILED, LEFT_CORDONED):
        for end in range(len(events) + 1):
            yield events[:end]
    # Every step, event and outcome as the last event, alone and after a decision; and a step in progress after each.
    for step in steps.NAMES:
        for event, outcome in [("started", None)] + [("finished", outcome) for outcome in lines.OUTCOMES]:
            yield [(step, event, outcome)]
            yield [("decide", "finished", "changed"), (step, event, outcome)]
            yield [(step, event, outcome), ("stop", "started", None)]


@pytest.mark.parametrize("events", list(_journals()), ids=lambda events: "+".join("%s.%s" % (s, e[0]) for s, e, _o in events) or "empty")
def test_the_ended_rule_answers_as_both_copies_did(tmp_path, events):
    path = str(tmp_path / "journal.jsonl")
    for second, (step, event, outcome) in enumerate(events):
        journal.append(path, step, event, outcome=outcome, at=_at(second))
    entries, _notes = journal.read(path)
    assert record.ends(entries) == _old_record_ends(entries)
    summary = journal.summary(entries)
    # pylint: disable-next=protected-access
    assert resume._ended(summary, summary["steps"]) == _old_resume_ended(summary, summary["steps"])
    for resumed in (True, False):
        plan = resume.plan(summary, resumed, True, True)
        assert plan["ended"] == (_old_resume_ended(summary, summary["steps"]) if resumed else None)


def test_ends_is_the_rule_for_one_event():
    assert [name for name in steps.NAMES if steps.ends(name, "changed")] == ["uncordon", "restore"]
    assert [name for name in steps.NAMES if steps.ends(name, "failed")] == ["lock", "dry_run", "drain"]
    assert steps.ends("uncordon", "skipped") and steps.ends("restore", None)
    assert not steps.ends("evict", "failed")
