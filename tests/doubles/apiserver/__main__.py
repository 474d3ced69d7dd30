# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run the API server TEST DOUBLE as a process: ``python tests/doubles/apiserver --kubeconfig PATH``.

For setups that need it outside pytest (a kubelet stand-in in a podman node on the host network
registers its node here). Serves on 127.0.0.1 (``--port``, default a free one) until killed;
writes the kubeconfig, then prints the URL on stdout. ``--tls-dir DIR`` serves HTTPS with a CA made
in DIR, ``--token T=USER`` (repeatable) requires that bearer token (tls.py).
"""

import argparse
import os
import sys
import threading

# Run as a script, this folder is sys.path[0]; its modules must not shadow the standard library's.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
sys.path.insert(0, os.path.dirname(HERE))

from apiserver import tls as api_tls  # noqa: E402 pylint: disable=wrong-import-position
from apiserver.server import ApiServerDouble  # noqa: E402 pylint: disable=wrong-import-position


def main():
    """Parse the arguments, start the double, wait forever."""
    parser = argparse.ArgumentParser(description="API server test double (not kube-apiserver)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--kubeconfig")
    parser.add_argument("--audit-log", help="append one JSON line per request to this file")
    parser.add_argument("--controllers", action="store_true", help="replace a ReplicaSet's deleted pods, as its controller and the scheduler would")
    parser.add_argument("--tls-dir", help="serve HTTPS: write a test CA (double-ca.pem) and a server certificate into this folder (tls.py)")
    parser.add_argument("--token", action="append", metavar="TOKEN=USER", help="require authentication; accept this bearer token as USER")
    args = parser.parse_args()
    pki = api_tls.Pki(args.tls_dir) if args.tls_dir else None
    tokens = dict(t.split("=", 1) if "=" in t else (t, "user-%d" % n) for n, t in enumerate(args.token, 1)) if args.token else None
    double = ApiServerDouble(controllers=args.controllers, audit_log=args.audit_log, tls=pki, tokens=tokens).start(port=args.port)
    if args.kubeconfig:
        double.write_kubeconfig(args.kubeconfig)
    print(double.url, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
