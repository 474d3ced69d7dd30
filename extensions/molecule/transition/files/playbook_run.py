# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run ansible-playbook the way an operator would, for the transition scenario (test tooling only).

    playbook_run.py --log FILE [--kill-at NODE:STEP] -- ansible-playbook ARGS...
    playbook_run.py --log FILE --kill-at-request "METHOD PATH" --audit-log FILE --node NODE -- ansible-playbook ARGS...

Prints one JSON line: the playbook's exit status, whether it was killed, and the journal events
the node had then. With ``--kill-at``, it watches the node's open transition (through
``podman exec``: the nodes are podman containers) and sends SIGKILL to the whole run, as a lost
controller or an operator's kill -9 would, as soon as the journal says STEP finished. With
``--kill-at-request``, it watches the API server double's request log (``--audit-log``, one JSON
line per request, written as the request arrives) and kills the run as soon as a request with that
method and path (the query aside) reaches the API after the run started, such as the cordon's
``PATCH /api/v1/nodes/<node>``; it then says which line it saw and how many lines the log had
when the run started. It imports nothing from the collection: it reads the journal and the log as
the plain JSON lines they are.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time

STATE = "/var/lib/numa-gate/transitions"


def node_file(node, path):
    """The file's text inside the podman node, or None when it is not there."""
    done = subprocess.run(["podman", "exec", node, "cat", path], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else None


def journal(node):
    """(transition id, events) of the node's open transition, or (None, [])."""
    pointer = node_file(node, STATE + "/current")
    try:
        transition = json.loads(pointer)["id"] if pointer else None
    except (ValueError, KeyError, TypeError):
        return None, []
    if transition is None:
        return None, []
    events = []
    for line in (node_file(node, "%s/%s/journal.jsonl" % (STATE, transition)) or "").splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            pass
    return transition, events


def requests_since(path, offset):
    """(new offset, the requests appended to the API double's log at ``path`` since byte ``offset``), whole lines only."""
    try:
        with open(path, "rb") as stream:
            stream.seek(offset)
            blob = stream.read()
    except FileNotFoundError:
        return offset, []
    complete = blob[:blob.rfind(b"\n") + 1]
    found = []
    for line in complete.splitlines():
        try:
            found.append(json.loads(line))
        except ValueError:
            pass
    return offset + len(complete), found


def line_count(path):
    """How many lines the file at ``path`` has (0 when it is not there)."""
    try:
        with open(path, "rb") as stream:
            return stream.read().count(b"\n")
    except FileNotFoundError:
        return 0


class Trigger:
    """When to kill the run: a journal event of the node (``--kill-at``) or a request in the API double's log (``--kill-at-request``)."""

    def __init__(self, args):
        self.node, self.step = args.kill_at.split(":", 1) if args.kill_at else (args.node, None)
        self.method, self.uri = args.kill_at_request.split(" ", 1) if args.kill_at_request else (None, None)
        self.audit_log = args.audit_log
        self.offset = os.path.getsize(args.audit_log) if self.method and os.path.exists(args.audit_log) else 0
        self.lines_before = line_count(args.audit_log) if self.method else None
        self.seen = None
        self.pause = 0.01 if self.method else 0.2

    def fired(self):
        """Whether the run is to be killed now."""
        if self.method:
            self.offset, found = requests_since(self.audit_log, self.offset)
            self.seen = next((r for r in found if r.get("method") == self.method and r.get("requestURI", "").split("?")[0] == self.uri), None)
            return self.seen is not None
        if self.step:
            _transition, events = journal(self.node)
            return any(e.get("step") == self.step and e.get("event") == "finished" for e in events)
        return False


def main():
    """Run the command, kill it when told, print what happened."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", required=True)
    parser.add_argument("--kill-at", help="NODE:STEP")
    parser.add_argument("--kill-at-request", help="METHOD PATH, as the API double's request log writes them")
    parser.add_argument("--audit-log", help="the API double's request log (with --kill-at-request)")
    parser.add_argument("--node", help="the node whose journal to report (with --kill-at-request)")
    parser.add_argument("--timeout", type=float, default=540)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.kill_at_request and not args.audit_log:
        parser.error("--kill-at-request needs --audit-log")
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    trigger = Trigger(args)
    with open(args.log, "w", encoding="utf-8") as log:
        run = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)  # pylint: disable=consider-using-with
        killed, deadline = False, time.monotonic() + args.timeout
        while run.poll() is None and time.monotonic() < deadline:
            if trigger.fired():
                os.killpg(run.pid, signal.SIGKILL)
                killed = True
                break
            time.sleep(trigger.pause)
        if run.poll() is None and not killed:
            os.killpg(run.pid, signal.SIGKILL)
        rc = run.wait()
    transition, events = journal(trigger.node) if trigger.node else (None, [])
    report = {"rc": rc, "killed": killed, "transition": transition, "events": ["%s %s" % (e.get("step"), e.get("event")) for e in events]}
    if trigger.method:
        report.update(request=trigger.seen, audit_lines_before=trigger.lines_before)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
