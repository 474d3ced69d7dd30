"""Run the stages of ``make test`` in order and print how long each took, also when one fails.

Run by ``make test`` with the machine's python3 (stdlib only): ``python3 scripts/test_stages.py unit doubles ...``.
Each stage is ``make <stage>``; the first failing stage stops the run, and the table still shows what ran.
"""

import os
import subprocess
import sys
import time


def fmt(seconds):
    minutes, rest = divmod(int(round(seconds)), 60)
    return "%dm%02ds" % (minutes, rest) if minutes else "%ds" % rest


def report(rows, total):
    width = max([len(row[0]) for row in rows] + [len("total")])
    lines = ["", "make test: time per stage"]
    for name, seconds, status in rows:
        lines.append("  %-*s  %8s  %s" % (width, name, fmt(seconds), status))
    lines.append("  %-*s  %8s" % (width, "total", fmt(total)))
    return "\n".join(lines)


def main(stages):
    make = os.environ.get("MAKE", "make")
    rows = []
    start = time.monotonic()
    code = 0
    for stage in stages:
        began = time.monotonic()
        code = subprocess.call([make, "--no-print-directory", stage])
        rows.append((stage, time.monotonic() - began, "ok" if code == 0 else "FAILED (exit %d)" % code))
        if code:
            break
    print(report(rows, time.monotonic() - start), flush=True)
    skipped = stages[len(rows):]
    if skipped:
        print("  not run: %s" % " ".join(skipped), flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
