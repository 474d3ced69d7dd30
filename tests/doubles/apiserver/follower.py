# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The loop every controller stand-in of the double runs: a thread following the store's event log.

A real controller is driven by its informers' watch events (client-go tools/cache), handled in
batches off a work queue; here a thread waits on the store's condition (at most 0.2 s at a time),
takes the events it has not seen yet, and hands them to ``handle`` while holding the store's lock,
so a controller never sees a half-made change. ``before_batch`` runs first on every wake-up (the
Job stand-in reaps deletions whose grace period has passed there).
"""

import random
import threading


class EventFollower:
    """Subclasses define ``handle(events)``: ``events`` is a list of ``(index, resource, event, object)``."""

    def __init__(self, store, rng=None):
        self.store = store
        self.rng = rng or random.Random()
        self._seen = len(store.events)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        """Start following the event log."""
        self._thread.start()
        return self

    def stop(self):
        """Stop, and wait for the thread."""
        self._stop.set()
        with self.store.cond:
            self.store.cond.notify_all()
        self._thread.join(timeout=5)

    def before_batch(self):
        """Called under the store's lock on every wake-up, before the new events are taken."""

    def handle(self, events):
        """Act on a batch of new events (under the store's lock)."""
        raise NotImplementedError

    def skip_own_events(self):
        """Count the events made so far as seen: a controller's own writes do not wake it again."""
        self._seen = len(self.store.events)

    def _run(self):
        while not self._stop.is_set():
            with self.store.cond:
                if self._seen >= len(self.store.events):
                    self.store.cond.wait(timeout=0.2)
                self.before_batch()
                events, self._seen = self.store.events[self._seen:], len(self.store.events)
                if events:
                    self.handle(events)
