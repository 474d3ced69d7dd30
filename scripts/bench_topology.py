# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Time the topology gather, and the tools it replaces, on this machine.

1. The pure gather (``_facts.gather.gather``, gpu_source=sysfs) on the 256-PU
   (256ia64-64n2s2c) and 128-PU (128arm-2pa2n8cluster4co) hwloc snapshots and
   on this machine's own /sys: median and minimum of N runs, in one process
   (warm page cache, as on a node where sysfs is in memory anyway).
2. ``lscpu -J`` and ``numactl -H`` on this machine (each a fresh process), for
   comparison: the same information a shell-based gather would collect.
3. The module end to end through Ansible:
   ``ansible localhost -m gpusmith.numa_gate.topology_facts`` (process start,
   AnsiballZ build, the module, the result).

4. The same ad-hoc command with ``ping`` (the cost of Ansible alone), alternated with it.
5. Old against new: the gather of another commit (``--against``, by default the last commit
   before module_utils was split into one package per flow step) exported from git into a
   temporary ``ansible_collections/gpusmith/numa_gate`` tree, and this checkout's, each in its
   own Python process, timed alternately in the same run on the same snapshots; and whether both
   give byte-identical facts (``json.dumps(sort_keys=True)``) on every hwloc snapshot, the H200
   capture and this machine's /sys.

Prints Markdown tables with the exact commands, for docs/benchmarks.md.
Usage: scripts/bench_topology.py [--runs N] [--ansible-runs N] [--against COMMIT] [--rounds N] [--only-against] [--checks-cost]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

from bench_common import REPO, SHARED, timed  # noqa: E402 pylint: disable=wrong-import-position

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather  # noqa: E402 pylint: disable=wrong-import-position

SNAPSHOTS = ("256ia64-64n2s2c", "128arm-2pa2n8cluster4co")
# The last commit before the restructure (1113d9a "One exception base and run_module; shared bounded,
# non-following, root-confined file reading" began splitting module_utils into one package per flow
# step; 61a2faf split the gather itself into one reader per idea). Its gather is _topology.gather;
# from 1e04407 to 9a31467 the same code sits at _facts/gather.py.
AGAINST = "961001e"
_CHILD_RUNS = 5  # gathers per turn: old and new alternate every _CHILD_RUNS runs

# The child: one tree's gather in its own process, answering "time <root> <n>" and "dump <root>" lines.
_CHILD = r"""
import hashlib, json, os, sys, time
sys.path.insert(0, sys.argv[1])
try:
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
except ImportError:
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._topology import gather
VARIANT = sys.argv[2] if len(sys.argv) > 2 else ""
if VARIANT:
    # What the two checks cost: this checkout's gather with one of them taken out, in this process only
    # (never shipped, never compared for identity: without its checks it is not the gather).
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs, sysfs_places
    if VARIANT == "no-file-look":
        checked = sysfs._read_bytes
        def unlooked(path, root):
            head, _sep, name = path.rpartition("/")
            place = root.places.get(head) if name not in sysfs_places.NOT_NAMES else None
            if place is None:
                return checked(path, root)
            try:
                opened = os.open(place[2] + name, sysfs._OPEN_FLAGS, dir_fd=place[1])
            except OSError:
                return checked(path, root)
            data = os.read(opened, 4097)
            root.done_with(opened)
            return data
        sysfs._read_bytes = unlooked
    elif VARIANT == "no-dir-check":
        def unchecked(root, path, real, parent_place):
            return (real, parent_place[1], parent_place[2] + path.rpartition("/")[2] + "/")
        sysfs_places._checked_dir = unchecked
    else:
        raise SystemExit("unknown variant %r" % VARIANT)
for line in sys.stdin:
    verb, root, count = line.split("\t")
    if verb == "time":
        gather(root, gpu_source="sysfs")
        samples = []
        for _run in range(int(count)):
            start = time.perf_counter()
            gather(root, gpu_source="sysfs")
            samples.append((time.perf_counter() - start) * 1000.0)
        print(json.dumps(samples), flush=True)
    else:
        try:
            text = json.dumps(gather(root, gpu_source="sysfs"), sort_keys=True)
        except Exception as exc:  # pylint: disable=broad-except
            text = "error: %r" % (exc,)
        print(json.dumps(hashlib.sha256(text.encode()).hexdigest()), flush=True)
"""


class _Child:
    """One Python process importing gather from ``tree`` (the directory holding ansible_collections)."""

    def __init__(self, tree, variant=""):
        self.process = subprocess.Popen([sys.executable, "-c", _CHILD, tree, variant], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, cwd=tree)

    def ask(self, verb, root, count=0):
        self.process.stdin.write("%s\t%s\t%d\n" % (verb, root, count))
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise SystemExit("the gather process for %s ended (rc %s)" % (verb, self.process.wait()))
        return json.loads(answer)

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def export_tree(commit, into):
    """That commit's plugins/ under into/ansible_collections/gpusmith/numa_gate (git archive); the tree's path."""
    archive = subprocess.run(["git", "-C", REPO, "archive", "--format=tar", commit, "plugins"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, check=False)
    if archive.returncode != 0:
        raise SystemExit("git archive %s plugins failed: %s" % (commit, archive.stderr.decode(errors="replace").strip()))
    target = os.path.join(into, "ansible_collections", "gpusmith", "numa_gate")
    os.makedirs(target)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        for member in tar.getmembers():
            if not (member.isfile() or member.isdir()) or member.name.startswith("/") or ".." in member.name.split("/"):
                continue
            if hasattr(tarfile, "data_filter"):
                tar.extract(member, target, filter="data")
            else:
                tar.extract(member, target)
    return into


def identity_roots():
    hwloc = os.path.join(SHARED, "fixtures", "hwloc")
    roots = sorted(os.path.join(hwloc, name) for name in os.listdir(hwloc) if os.path.isdir(os.path.join(hwloc, name)))
    return roots + [os.path.join(SHARED, "fixtures", "real", "h200-vm"), "/"]


def shown_root(root):
    return root if root == "/" else "<shared>/" + os.path.relpath(root, SHARED)


VARIANTS = ("no-file-look", "no-dir-check")


def old_against_new(commit, rounds, checks_cost=False):
    """(timing rows, identity rows, the commit's one-line description).

    A timing row is (snapshot, {label: samples}): "old", "new", and with ``checks_cost`` each of `VARIANTS`.
    """
    described = subprocess.run(["git", "-C", REPO, "log", "-1", "--format=%h %s", commit], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, check=False).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="numa_gate_against_") as into:
        old = _Child(export_tree(commit, into))
        new = _Child(os.path.join(REPO, ".build", "collections"))
        children = [("old", old), ("new", new)]
        if checks_cost:
            children += [(variant, _Child(os.path.join(REPO, ".build", "collections"), variant)) for variant in VARIANTS]
        try:
            timing = []
            for name in SNAPSHOTS:
                root = os.path.join(SHARED, "fixtures", "hwloc", name)
                samples = {label: [] for label, _child in children}
                for turn in range(rounds):
                    # Alternate, and rotate who goes first, so load on a shared machine falls on all.
                    shift = turn % len(children)
                    for label, child in children[shift:] + children[:shift]:
                        samples[label].extend(child.ask("time", root, _CHILD_RUNS))
                timing.append((name, samples))
            identity = []
            for root in identity_roots():
                same = False
                for _attempt in range(3):  # a live /sys can change between two reads (memory, for one)
                    if old.ask("dump", root) == new.ask("dump", root):
                        same = True
                        break
                identity.append((shown_root(root), same))
        finally:
            for _label, child in children:
                child.close()
    return timing, identity, described


def run_quiet(argv, env=None):
    completed = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, check=False)
    if completed.returncode != 0:
        raise SystemExit("%s failed (rc %d): %s" % (" ".join(argv), completed.returncode, completed.stderr.decode(errors="replace")[:500]))
    return completed


def cpu_model():
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="runs per in-process or tool measurement (default 50)")
    parser.add_argument("--ansible-runs", type=int, default=5, help="runs of each Ansible ad-hoc command (default 5)")
    parser.add_argument("--against", default=AGAINST,
                        help="the commit whose gather is timed against this checkout's (default %s, before the restructure)" % AGAINST)
    parser.add_argument("--rounds", type=int, default=40,
                        help="alternating turns of old and new, %d gathers each per turn (default 40)" % _CHILD_RUNS)
    parser.add_argument("--only-against", action="store_true", help="only the old-against-new comparison")
    parser.add_argument("--checks-cost", action="store_true",
                        help="also time this checkout's gather without the look before each open, and without the directory checks")
    args = parser.parse_args()

    timing, identity, described = old_against_new(args.against, args.rounds, args.checks_cost)
    if args.only_against:
        print_header()
        print_against(args.against, described, timing, identity)
        return

    rows = []
    for name in SNAPSHOTS:
        root = os.path.join(SHARED, "fixtures", "hwloc", name)
        facts = gather(root, gpu_source="sysfs")
        median, best = timed(lambda root=root: gather(root, gpu_source="sysfs"), args.runs)
        what = "gather(), %d PUs, %d NUMA nodes" % (facts["cpus"]["logical"], len(facts["numa_nodes"]))
        rows.append((what, "gather(%r, gpu_source='sysfs')" % ("<shared>/fixtures/hwloc/" + name), args.runs, median, best))

    facts = gather("/", gpu_source="sysfs")
    median, best = timed(lambda: gather("/", gpu_source="sysfs"), args.runs)
    rows.append(("gather() on this machine's /sys, %d PUs" % facts["cpus"]["logical"], "gather('/', gpu_source='sysfs')", args.runs, median, best))

    for argv in (["lscpu", "-J"], ["numactl", "-H"]):
        if shutil.which(argv[0]) is None:
            rows.append(("%s (not installed)" % argv[0], " ".join(argv), 0, float("nan"), float("nan")))
            continue
        median, best = timed(lambda argv=argv: run_quiet(argv), args.runs)
        rows.append(("%s on this machine (new process each)" % argv[0], " ".join(argv), args.runs, median, best))

    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"))
    ad_hoc = {}
    for turn in range(args.ansible_runs):
        # ping and topology_facts alternate, so both see the same load.
        for module in ("ping", "gpusmith.numa_gate.topology_facts"):
            argv = [os.path.join(REPO, ".venv", "bin", "ansible"), "localhost", "-m", module,
                    "-e", "ansible_python_interpreter=%s" % os.path.join(REPO, ".venv", "bin", "python")]
            _median, best = timed(lambda argv=argv: run_quiet(argv, env=env), 1)
            ad_hoc.setdefault(module, []).append(best)
    for module, what in (("gpusmith.numa_gate.topology_facts", "the module through Ansible (ad-hoc, local connection)"),
                         ("ping", "ping through Ansible (the same ad-hoc command: Ansible alone)")):
        # Shown relative to the checkout (run from there), not with this machine's absolute paths.
        shown = "ANSIBLE_CONFIG=ansible.cfg .venv/bin/ansible localhost -m %s -e ansible_python_interpreter=$PWD/.venv/bin/python" % module
        samples = ad_hoc[module]
        rows.append((what, shown, len(samples), statistics.median(samples), min(samples)))
    ratio = statistics.median(ad_hoc["gpusmith.numa_gate.topology_facts"]) / statistics.median(ad_hoc["ping"])

    print_header()
    print()
    print("| what | command | runs | median ms | min ms |")
    print("|---|---|---|---|---|")
    for what, command, runs, median, best in rows:
        print("| %s | `%s` | %d | %.1f | %.1f |" % (what, command, runs, median, best))
    print()
    print("topology_facts ad hoc / ping ad hoc (medians): %.2fx" % ratio)
    print_against(args.against, described, timing, identity)


def print_header():
    print("Machine: %s, %d CPUs online, Python %s, %s" % (cpu_model(), os.cpu_count(), platform.python_version(), time.strftime("%Y-%m-%d")))
    print("Command: %s" % " ".join([os.path.relpath(sys.executable, REPO), os.path.relpath(os.path.abspath(__file__), REPO)] + sys.argv[1:]))


def print_against(commit, described, timing, identity):
    print()
    print("Old against new: `gather(<root>, gpu_source='sysfs')` of %s (%s) and of this checkout, each in its own process,"
          % (commit, described or "?"))
    print("alternating %d gathers at a time in the same run." % _CHILD_RUNS)
    print()
    print("| snapshot | runs each | old median ms | new median ms | old min ms | new min ms | new/old (medians) | identical |")
    print("|---|---|---|---|---|---|---|---|")
    by_root = dict(identity)
    for name, samples in timing:
        old, new = samples["old"], samples["new"]
        same = by_root.get(shown_root(os.path.join(SHARED, "fixtures", "hwloc", name)))
        print("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %s |" % (
            name, len(old), statistics.median(old), statistics.median(new), min(old), min(new),
            statistics.median(new) / statistics.median(old), "yes" if same else "NO"))
    variants = [label for label in VARIANTS if label in timing[0][1]] if timing else []
    if variants:
        print()
        print("What the checks cost: this checkout's gather with one check taken out (in the timing process only), same alternation.")
        print()
        print("| snapshot | variant | median ms | min ms | /old (medians) | /new (medians) |")
        print("|---|---|---|---|---|---|")
        for name, samples in timing:
            for label in variants:
                print("| %s | %s | %.1f | %.1f | %.2f | %.2f |" % (
                    name, label, statistics.median(samples[label]), min(samples[label]),
                    statistics.median(samples[label]) / statistics.median(samples["old"]),
                    statistics.median(samples[label]) / statistics.median(samples["new"])))
    print()
    for root, same in identity:
        print("- `%s`: identical: %s" % (root, "yes" if same else "NO"))


if __name__ == "__main__":
    main()
