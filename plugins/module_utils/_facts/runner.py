# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How logic runs vendor tools: an injectable runner, never a shell.

Public: `ModuleRunner`, `RecordedRunner`, `NoCommandsRunner`.

Logic takes a runner object with two methods:

* ``find(name)`` returns the executable's path, or None when it is not installed;
* ``run(argv)`` runs an argv list and returns ``(rc, stdout, stderr)`` as text.

`ModuleRunner` adapts an AnsibleModule (get_bin_path / run_command);
tests pass `RecordedRunner` with outputs recorded on real machines.
"""

from __future__ import annotations


# ROCm installs amd-smi and rocm-smi under /opt/rocm/bin, which is often not on PATH.
_OPT_DIRS = {"amd-smi": ["/opt/rocm/bin"], "rocm-smi": ["/opt/rocm/bin"]}


class ModuleRunner:
    """Runs commands through an AnsibleModule, without a shell; a ROCm tool is run from where `find` found it."""

    def __init__(self, module):
        self._module = module
        self._found = {}

    def find(self, name):
        if name not in _OPT_DIRS:
            return self._module.get_bin_path(name, required=False)
        path = self._module.get_bin_path(name, required=False, opt_dirs=_OPT_DIRS[name])
        if path:
            self._found[name] = path
        return path

    def run(self, argv):
        argv = list(argv)
        argv[0] = self._found.get(argv[0], argv[0])  # only the ROCm tools, found maybe off PATH
        rc, out, err = self._module.run_command(argv, use_unsafe_shell=False)
        return rc, out, err


class RecordedRunner:
    """Replays recorded command outputs (for tests and offline analysis).

    ``outputs`` maps an argv tuple to ``(rc, stdout, stderr)``; ``installed``
    names the executables that `find` reports as present. Every call is kept
    in ``calls`` so a test can assert what was run.
    """

    def __init__(self, outputs, installed=None):
        self._outputs = {tuple(argv): result for argv, result in outputs.items()}
        if installed is None:
            installed = {argv[0] for argv in self._outputs}
        self._installed = set(installed)
        self.calls = []

    def find(self, name):
        if name in self._installed:
            return "/usr/bin/" + name
        return None

    def run(self, argv):
        argv = tuple(argv)
        self.calls.append(argv)
        if argv[0] not in self._installed:
            return 127, "", "%s: command not found" % argv[0]
        if argv not in self._outputs:
            return 2, "", "no recorded output for %s" % " ".join(argv)
        return self._outputs[argv]


class NoCommandsRunner:
    """A runner for sources that must not run anything (gpu_source=sysfs/none)."""

    def find(self, name):  # pylint: disable=unused-argument
        return None

    def run(self, argv):
        return 127, "", "%s: running commands is disabled" % argv[0]
