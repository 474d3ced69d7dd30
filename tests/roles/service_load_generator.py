"""Not a test: a tiny load generator for the service_comparison role's test, run as the controller command.

It stands for the operator's load generator (``vllm bench serve``): it sends ``--requests`` requests' worth of load to
``--target`` (one POST to the test's load endpoint, which makes the test service observe them), takes ``--seconds``
like a benchmark of fixed duration, and writes a result file shaped like ``vllm bench serve --save-result`` (counts,
rates, ``*_ms`` percentiles). ``--fail-at <side>-<repetition>`` makes that run leave a child in its process group
(its pid written to ``--child-pid``) and fail with exit status 3 and a line on standard error.
"""

import argparse
import json
import subprocess
import sys
import time
import urllib.request


def main():
    parser = argparse.ArgumentParser()
    for name in ("--target", "--side", "--repetition", "--phase", "--result", "--fail-at", "--child-pid"):
        parser.add_argument(name, default=None)
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=0.0)
    args = parser.parse_args()
    if args.fail_at == "%s-%s" % (args.side, args.repetition):
        child = subprocess.Popen(["sleep", "60"])  # pylint: disable=consider-using-with
        with open(args.child_pid, "w", encoding="utf-8") as handle:
            handle.write(str(child.pid))
        sys.stdout.write("sending %d requests to %s\n" % (args.requests, args.target))
        sys.stderr.write("load generator: %s answered 503 Service Unavailable\n" % args.target)
        return 3
    began = time.monotonic()
    body = json.dumps({"requests": args.requests}).encode("utf-8")
    request = urllib.request.Request(args.target, data=body, method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        answer.read()
    time.sleep(max(0.0, args.seconds - (time.monotonic() - began)))
    if args.result:
        duration = round(time.monotonic() - began, 3)
        result = {"completed": args.requests, "failed": 0, "num_prompts": args.requests, "duration": duration,
                  "request_rate": "inf", "max_concurrency": 16, "mean_ttft_ms": 210.5, "p99_ttft_ms": 1800.0,
                  "backend": "openai", "date": "not kept"}
        with open(args.result, "w", encoding="utf-8") as handle:
            json.dump(result, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
