"""A real headless Chromium driven through the DevTools protocol over a pipe (a plain helper, not a test).

Chromium's ``--remote-debugging-pipe`` reads protocol messages from file descriptor 3 and writes to 4,
each a JSON text ended by a NUL byte (what Puppeteer's ``pipe: true`` uses), so no port is opened and
no websocket library is needed. Every event is kept, so a test can read the console messages, the
exceptions, the log entries (CSP violations, failed loads) and every request the page made.
"""

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import time

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-default-apps",
         "--metrics-recording-only", "--mute-audio", "--remote-debugging-pipe")


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:  # pylint: disable=too-many-instance-attributes
    """One Chromium process; `open(url)` gives a `Page` with its events."""

    def __init__(self, binary, profile, timeout=30.0):
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        self.timeout = timeout
        argv = [binary] + list(FLAGS) + ["--user-data-dir=%s" % profile, "--window-size=1400,1000", "about:blank"]
        self.log_path = os.path.join(profile, "chromium-stderr.log")
        self._log = open(self.log_path, "wb")  # pylint: disable=consider-using-with

        def fds():
            # dup2 makes 3 and 4 inheritable; close_fds=False keeps them (subprocess would close them after this hook),
            # while every other descriptor of this process is close-on-exec (Python's default) and does not leak.
            # Through descriptors above 4 first: a pipe end may itself be 3 or 4 (dup2 onto itself would keep close-on-exec).
            reading, writing = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(reading, 3)
            os.dup2(writing, 4)
            os.close(reading)
            os.close(writing)

        # The hook only duplicates descriptors (async-signal-safe); the process lives as long as this object (close()).
        self.process = subprocess.Popen(  # pylint: disable=subprocess-popen-preexec-fn,consider-using-with
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log, close_fds=False, preexec_fn=fds)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no DevTools message from Chromium within %.0fs" % self.timeout)
            ready = select.select([self._from_child], [], [], left)[0]
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe (exit %s): %s" % (self.process.poll(), self.stderr_tail()))
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None):
        self._next += 1
        ident = self._next
        message = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == ident:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, session, since):
        deadline = time.monotonic() + self.timeout
        while True:
            for event in self.events[since:]:
                if event.get("method") == method and event.get("sessionId") == session:
                    return event
            since = len(self.events)
            self.events.append(self._read_message(deadline))

    def open(self, url, width=None, height=1000):
        """The page at url; ``width``: the viewport's width in CSS pixels (Emulation.setDeviceMetricsOverride), else the window's."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.call(domain + ".enable", session=session)
        if width is not None:
            self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                      session=session)
        start = len(self.events)
        self.call("Page.navigate", {"url": url}, session=session)
        self.wait_for("Page.loadEventFired", session, start)
        return Page(self, session, start)

    def stderr_tail(self):
        with open(self.log_path, "rb") as log:
            return log.read().decode(errors="replace")[-2000:]

    def close(self):
        try:
            self.call("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._to_child, self._from_child):
            os.close(fd)
        self._log.close()


class Page:
    """A loaded page: its events, JavaScript evaluation in it (by the test, never by the page), a screenshot."""

    def __init__(self, browser, session, start):
        self.browser, self.session, self.start = browser, session, start

    def _events(self, method):
        return [e["params"] for e in self.browser.events[self.start:] if e.get("method") == method and e.get("sessionId") == self.session]

    def console(self):
        """Console calls and uncaught exceptions, and log entries of level error or warning (CSP violations, failed loads)."""
        found = ["console.%s: %s" % (e["type"], " ".join(str(a.get("value", a.get("description"))) for a in e["args"]))
                 for e in self._events("Runtime.consoleAPICalled")]
        found += ["exception: %s" % e["exceptionDetails"].get("text") for e in self._events("Runtime.exceptionThrown")]
        found += ["log %s (%s): %s" % (e["entry"]["level"], e["entry"]["source"], e["entry"]["text"]) for e in self._events("Log.entryAdded")
                  if e["entry"]["level"] in ("error", "warning")]
        return found

    def requests(self):
        return [e["request"]["url"] for e in self._events("Network.requestWillBeSent")]

    def evaluate(self, expression):
        result = self.browser.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=self.session)
        if "exceptionDetails" in result:
            raise RuntimeError("evaluating %s: %s" % (expression, result["exceptionDetails"]))
        return result["result"].get("value")

    def screenshot(self, path):
        size = self.browser.call("Page.getLayoutMetrics", session=self.session)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 12000), "scale": 1}
        shot = self.browser.call("Page.captureScreenshot", {"format": "png", "clip": clip, "captureBeyondViewport": True}, session=self.session)
        with open(path, "wb") as out:
            out.write(base64.b64decode(shot["data"]))
        return path
