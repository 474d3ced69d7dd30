# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The progress lines long waits print while they run, and the one way they are sent.

Public: `say`, `Pace`, `EVERY_S`, `seconds`, `names`, `drain_line`, `verify_line`.

``display`` is any callable taking one line (the action plugins pass Ansible's ``Display().display``,
tests a list's ``append``); None prints nothing. Every line starts with the step and the node, so
lines of parallel hosts stay readable. A wait that polls every few seconds sends its lines through a
`Pace`: one line when what it reports changes, otherwise one every `EVERY_S` seconds.
"""

from __future__ import annotations

NAMES_SHOWN = 5
EVERY_S = 10


def say(display, line):
    """Send ``line`` to ``display`` (a callable, or None for silence)."""
    if display is not None:
        display(line)


class Pace:  # pylint: disable=too-few-public-methods
    """A wait's lines: ``line`` goes to ``display`` when ``state`` differs from the last line's, or ``every`` seconds after it.

    ``clock`` is the wait's own (seconds, monotonic), so tests run without waiting.
    """

    def __init__(self, display, clock, every=EVERY_S):
        self.display, self.clock, self.every = display, clock, every
        self.last = None  # (state, clock) of the last line sent

    def say(self, state, line):
        """Send ``line`` if ``state`` changed or ``every`` seconds passed since the last line sent."""
        now = self.clock()
        if self.last is None or self.last[0] != state or now - self.last[1] >= self.every:
            self.last = (state, now)
            say(self.display, line)


def seconds(value):
    """Whole seconds, as the lines show them: ``25s``."""
    return "%ds" % int(max(0, value))


def names(items, limit=NAMES_SHOWN):
    """``a, b, c`` with at most ``limit`` shown and ``+N more`` after them."""
    items = list(items)
    shown = ", ".join(items[:limit])
    if len(items) > limit:
        shown += ", +%d more" % (len(items) - limit)
    return shown


def _bound(waited, timeout):
    return "%s of %s" % (seconds(waited), seconds(timeout)) if timeout else "%s (no timeout)" % seconds(waited)


def drain_line(node, left, waited, timeout, blocked=(), failed=(), retrying=()):
    """``drain node-a: 3 pods left (web-1, web-2, db-0), 25s of 300s; blocked by PDB db-pdb (allows 0 disruptions)``.

    ``left`` are pod names still on the node; ``blocked`` short descriptions of what refuses their
    evictions now (only what does: a budget allowing a disruption is no blocker); ``failed`` the pods
    of ``left`` whose eviction ended in an error (the drain waits for the others, then fails naming them);
    ``retrying`` the refused pods nothing blocks now, each with why it was refused
    (``default/web-1 (Too many requests, please try again later.)``).
    """
    line = "drain %s: %d pod%s left (%s), %s" % (node, len(left), "" if len(left) == 1 else "s", names(left), _bound(waited, timeout))
    if blocked:
        line += "; blocked by " + ", ".join(blocked)
    if retrying:
        line += "; retrying " + ", ".join(retrying)
    if failed:
        line += "; failed: " + names(failed)
    return line


def verify_line(node, state, waited, timeout):
    """``verify node-a: Ready for 8s of 20s stable window, 14s of 180s`` (``state`` is the middle part)."""
    return "verify %s: %s, %s" % (node, state, _bound(waited, timeout))
