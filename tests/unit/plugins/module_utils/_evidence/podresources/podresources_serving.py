"""Start and stop the PodResources test double (podresources_double.py) for a test (a helper, not a test file)."""

import os
import select
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "..", "..", "plugins", "module_utils", "_evidence", "podresources", "api.proto"))
POD_SCOPE = os.path.join(HERE, "podresources_pod_scope.json")
CONTAINER_SCOPE = os.path.join(HERE, "podresources_container_scope.json")


class Double:
    """The double serving ``answers`` on a fresh unix socket (a short path: sun_path holds 108 bytes)."""

    def __init__(self, answers, *flags):
        self.folder = tempfile.mkdtemp(prefix="pr-")
        self.socket = os.path.join(self.folder, "kubelet.sock")
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "podresources_double.py"), PROTO, self.socket, answers] + list(flags),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready, _w, _x = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline() if ready else ""
        if line.strip() != "ready":
            self.stop()
            raise AssertionError("the PodResources double did not start (rc %s)" % self.proc.poll())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for name in os.listdir(self.folder):
            os.unlink(os.path.join(self.folder, name))
        os.rmdir(self.folder)
