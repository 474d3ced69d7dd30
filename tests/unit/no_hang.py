"""Not a test: fail instead of hanging when something opens a FIFO for a blocking read."""

import contextlib
import signal


@contextlib.contextmanager
def no_hang(seconds=10):
    """Raise TimeoutError after ``seconds`` in the block (SIGALRM), so a hang becomes a test failure."""
    def expired(_signum, _frame):
        raise TimeoutError("blocked for %d s" % seconds)

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
