"""Not a test: run an action plugin in this process, as a worker would, and the API server TEST DOUBLE it talks to.

`run(module, args, check_mode=False, task_vars=None)` builds the Task and the ActionModule of one
action plugin file (``module``, e.g. ``plugins.action.kube_node``), runs it and checks that it ran
nothing on a node (these actions run on the controller only: no ``exec_command``).
`api_double(**options)` is a started ``ApiServerDouble`` (tests/doubles/apiserver, which imports
nothing of the collection), stopped when the ``with`` ends.
"""

import contextlib
import os
import sys
from unittest import mock

from ansible.playbook.task import Task

_DOUBLES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "doubles"))
if _DOUBLES not in sys.path:
    sys.path.insert(0, _DOUBLES)

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error


def run(module, args, check_mode=False, task_vars=None):
    """The result of ``module``'s ActionModule run with ``args``; asserts no command was run through the connection."""
    task = Task()
    task.action = "gpusmith.numa_gate." + module.__name__.rsplit(".", 1)[-1]
    task.args = args
    task.check_mode = check_mode
    connection = mock.MagicMock()
    action = module.ActionModule(task, connection, mock.MagicMock(), mock.MagicMock(), mock.MagicMock(), None)
    result = action.run(task_vars=task_vars or {})
    assert not connection.exec_command.called
    return result


@contextlib.contextmanager
def api_double(**options):
    """A started API server double (``ApiServerDouble(**options)``), stopped afterwards."""
    started = server.ApiServerDouble(**options).start()
    try:
        yield started
    finally:
        started.stop()
