"""A load generator that leaves a child in a session of its own (setsid), then exits 0: what a process group cannot end.

``load_leaves_a_session.py <pid file>``: the child writes its pid as the controller sees it (the first NSpid of
/proc/self/status, so also from inside a pid namespace), then sleeps 300 s; the parent waits for the file and exits 0.
"""

import os
import sys
import time


def host_pid():
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("NSpid:"):
                return int(line.split()[1])
    return os.getpid()


def main(path):
    child = os.fork()
    if child == 0:
        os.setsid()
        with open(path + ".tmp", "w", encoding="ascii") as handle:
            handle.write(str(host_pid()))
        os.rename(path + ".tmp", path)
        time.sleep(300)
        os._exit(0)  # pylint: disable=protected-access
    deadline = time.monotonic() + 10
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.02)
    print("left a child in its own session")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
