# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The double's request log, also kept in a file for setups outside pytest.

Like kube-apiserver's ``--audit-log-path`` (apiserver/pkg/audit, the JSON-lines log backend): one
JSON object per request, written and flushed as the request arrives, with the verb as the HTTP
method and the request URI with its query. The real log carries far more (user, stage, objectRef);
a test of "what did the API see" needs only these three.
"""

import json
import threading
import time


class RequestLog(list):
    """``(method, path)`` pairs, as ``double.requests`` always held; each one also appended to ``path`` when given."""

    def __init__(self, path=None):
        super().__init__()
        self.path = path
        self.users = []  # the authenticated user name of each request (None: not authenticated), as an Event's user.username
        self._lock = threading.Lock()

    def append(self, item, user=None):
        """Keep the request (and its user) and, with a file, write its line: both under one lock, so concurrent
        requests (kubectl's discovery runs in parallel) stand in the same order in the list and in the file."""
        line = None
        if self.path:
            method, uri = item
            event = {"ts": round(time.time(), 3), "method": method, "requestURI": uri}
            if user is not None:
                event["user"] = {"username": user}
            line = json.dumps(event, separators=(",", ":")) + "\n"
        with self._lock:
            super().append(item)
            self.users.append(user)
            if line is not None:
                with open(self.path, "a", encoding="utf-8") as stream:
                    stream.write(line)
