# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The unit-test tree mirrors plugins/ file for file.

The tests of ``plugins/<dir>/<path>/<name>.py`` live in ``tests/unit/plugins/<dir>/<path>/test_<name>.py``, or, when one
file has several, in ``test_<name>_<aspect>.py``. A test file whose name starts with no ``test_<name>`` of its mirrored
folder fails. A module_utils file with no test file named after it must be in COVERED_BY (the test file that tests it
through another file, checked by imports) or in UNTESTED, so that a new file without tests shows up here. Helper modules
beside the tests (doubles, cases, trees) are not ``test_*.py`` and are not checked.
"""

import ast
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
PLUGINS = os.path.join(REPO, "plugins")
TESTS = os.path.join(REPO, "tests", "unit", "plugins")
PACKAGE = "ansible_collections.gpusmith.numa_gate.plugins."

# module_utils files (under plugins/module_utils) without a test file named after them, and the test file that tests them
# through its own plugin file (judged by hand; checked: that test file imports the file, or a plugin file that imports it,
# at any depth). A new file needs a test_<name>.py or an entry here; otherwise it shows up in UNTESTED's comparison.
COVERED_BY = {
    "_base/escape.py": "module_utils/_record/pages/test_html.py",
    "_base/k8s_names.py": "module_utils/_evidence/podresources/test_client_bounds.py",
    "_base/progress.py": "module_utils/_rehearsal/test_wait.py",
    "_base/shape_check.py": "action/test_device_path_info_record_sources.py",
    "_device_path/common.py": "module_utils/_device_path/test_compare.py",
    "_device_path/nvidia_plugin.py": "module_utils/_device_path/test_read_parts.py",
    "_device_path/pods.py": "module_utils/_device_path/test_compare.py",
    "_device_path/resource_slices.py": "module_utils/_device_path/test_compare.py",
    "_device_path/sriov.py": "module_utils/_device_path/test_read_parts.py",
    "_evidence/composition/admission_failure.py": "module_utils/_evidence/test_admission_failure_record.py",
    "_evidence/composition/allocations.py": "module_utils/_evidence/test_sources_table.py",
    "_evidence/composition/canary.py": "module_utils/_evidence/test_sources_table.py",
    "_evidence/composition/configuration.py": "module_utils/_evidence/test_sources_table.py",
    "_evidence/composition/device_path.py": "module_utils/_evidence/test_sources_table.py",
    "_evidence/composition/effect.py": "module_utils/_evidence/test_effect.py",
    "_evidence/composition/findings.py": "module_utils/_evidence/test_sources_table.py",
    "_evidence/composition/kubelet_files.py": "module_utils/_evidence/test_sources_table.py",
    "_evidence/composition/memory.py": "module_utils/_evidence/test_compose_memory.py",
    "_evidence/composition/metrics.py": "module_utils/_evidence/test_sources_table.py",
    "_evidence/composition/rollback.py": "module_utils/_evidence/test_sources_table.py",
    "_evidence/composition/service_objectives.py": "module_utils/_evidence/test_sources_table.py",
    "_evidence/composition/task_result.py": "module_utils/_evidence/test_sources_table.py",
    "_evidence/composition/transport.py": "module_utils/_evidence/test_compose_transport.py",
    "_evidence/composition/versions.py": "module_utils/_evidence/test_sources_table.py",
    "_evidence/inputs.py": "module_utils/_evidence/podresources/test_client.py",
    "_evidence/measures.py": "module_utils/_evidence/placement/test_read_measurements.py",
    "_evidence/metrics_fetch.py": "action/test_kubelet_metrics_info.py",
    "_evidence/nodefs.py": "module_utils/_evidence/test_canary.py",
    "_evidence/placement/cgroup_layout.py": "module_utils/_evidence/placement/test_read.py",
    "_evidence/placement/cgroups.py": "module_utils/_evidence/placement/test_read.py",
    "_evidence/placement/cpusets.py": "module_utils/_evidence/placement/test_read.py",
    "_evidence/placement/numa_maps.py": "module_utils/_evidence/placement/test_read.py",
    "_evidence/placement/threads.py": "module_utils/_evidence/placement/test_read.py",
    "_evidence/placement/usage.py": "module_utils/_evidence/placement/test_read_real.py",
    "_evidence/podresources/messages.py": "module_utils/_evidence/podresources/test_api_descriptor.py",
    "_facts/cgroup.py": "module_utils/_facts/test_gather.py",
    "_facts/cores.py": "module_utils/_facts/test_gather.py",
    "_facts/nics.py": "module_utils/_facts/test_gather.py",
    "_facts/nvidia_affinity.py": "module_utils/_facts/test_nvidia.py",
    "_facts/runner.py": "module_utils/_facts/test_gather.py",
    "_facts/sysfs_cpusets.py": "module_utils/_facts/test_sysfs.py",
    "_facts/sysfs_places.py": "module_utils/_facts/test_sysfs_fds.py",
    "_kube_api/answers.py": "module_utils/_kube_api/test_api_network.py",
    "_kube_api/connection_spec.py": "action/test_device_path_info.py",
    "_kube_api/kubeconfig.py": "module_utils/_kube_api/test_connection.py",
    "_kube_api/outcome.py": "action/test_kube_node.py",
    "_kubelet/checkpoints/files.py": "module_utils/_kubelet/checkpoints/test_fields.py",
    "_kubelet/checkpoints/go_types.py": "module_utils/_kubelet/checkpoints/test_checksum.py",
    "_kubelet/config/inventory.py": "modules/test_kubelet_baseline.py",
    "_kubelet/config/layout.py": "module_utils/_kubelet/config/test_info.py",
    "_kubelet/rules/allocatable.py": "module_utils/_kubelet/rules/test_validate.py",
    "_kubelet/rules/capacity.py": "module_utils/_kubelet/rules/test_validate.py",
    "_kubelet/rules/checker.py": "module_utils/_kubelet/config/test_fields.py",
    "_kubelet/rules/cpu.py": "module_utils/_kubelet/rules/test_validate.py",
    "_kubelet/rules/gates.py": "module_utils/_kubelet/rules/test_validate.py",
    "_kubelet/rules/memory.py": "module_utils/_kubelet/rules/test_validate.py",
    "_kubelet/rules/topology.py": "module_utils/_kubelet/rules/test_validate.py",
    "_kubelet/rules/wording.py": "module_utils/_kubelet/rules/test_validate.py",
    "_node_files/baseline/manifest.py": "module_utils/_node_files/test_backups_hostile_state.py",
    "_plan/packed.py": "module_utils/_plan/test_cpu_strategies.py",
    "_record/errors.py": "module_utils/_record/test_configdiff.py",
    "_record/inputs.py": "module_utils/_record/test_criteria.py",
    "_record/pages/markdown.py": "module_utils/_record/pages/test_html.py",
    "_service_comparison/checks.py": "module_utils/_service_comparison/test_compare.py",
    "_service_comparison/errors.py": "module_utils/_service_comparison/test_compare.py",
    "_service_comparison/inputs.py": "module_utils/_service_comparison/test_compare.py",
    "_service_comparison/objectives.py": "module_utils/_service_comparison/test_compare.py",
    "_service_comparison/pages/svg.py": "module_utils/_record/test_record_service.py",
    "_service_comparison/pages/table.py": "module_utils/_record/test_record_service.py",
    "_service_comparison/query.py": "module_utils/_service_comparison/test_window.py",
    "_service_comparison/stats.py": "module_utils/_service_comparison/test_compare.py",
    "_transition/api/budgets.py": "module_utils/_transition/api/test_drain_errors.py",
    "_transition/api/cordon.py": "module_utils/_transition/api/test_drain.py",
    "_transition/api/filters.py": "module_utils/_transition/api/test_drain.py",
    "_transition/api/node.py": "action/test_kube_node.py",
    "_transition/journal/transitions.py": "module_utils/_transition/journal/test_step.py",
    "_transition/node/checkpoint_removal.py": "modules/test_kubelet_checkpoint.py",
    "_transition/node/kubelet_service.py": "modules/test_kubelet_service.py",
    "_transition/record_read.py": "modules/test_transition_info.py",
}

# module_utils files that no test file tests at all.
UNTESTED = []


def _names(folder):
    """The plugin files' names (no .py, no __init__) in ``folder``."""
    if not os.path.isdir(folder):
        return []
    return sorted(name[:-3] for name in os.listdir(folder) if name.endswith(".py") and name != "__init__.py")


def _tested_name(test_file, names):
    """The plugin file's name that ``test_file`` (a test_*.py name) is the test of, or None."""
    stem = test_file[len("test_"):-len(".py")]
    matches = [name for name in names if stem == name or stem.startswith(name + "_")]
    return max(matches, key=len) if matches else None


def _test_files():
    """(folder relative to tests/unit/plugins, file name) of every test_*.py under tests/unit/plugins."""
    found = []
    for folder, dirnames, filenames in os.walk(TESTS):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        relative = os.path.relpath(folder, TESTS)
        found.extend((relative, name) for name in sorted(filenames) if name.startswith("test_") and name.endswith(".py"))
    return found


def test_there_are_tests_to_check():
    assert len(_test_files()) > 100


def test_every_test_file_is_named_after_a_plugin_file_of_its_mirrored_folder():
    strays = ["tests/unit/plugins/%s/%s" % (folder, name) for folder, name in _test_files()
              if _tested_name(name, _names(os.path.join(PLUGINS, folder))) is None]
    assert strays == [], "test files named after no plugins/ file of their mirrored folder (test_<name>[_<aspect>].py): %s" % strays


def _imports(path):
    """The plugin files (relative to plugins/) that the Python file at ``path`` imports from this collection."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PACKAGE):
            module = node.module[len(PACKAGE):].replace(".", "/")
            for candidate in [module] + ["%s/%s" % (module, alias.name) for alias in node.names]:
                if os.path.isfile(os.path.join(PLUGINS, candidate + ".py")):
                    found.add(candidate + ".py")
    return found


def _reached(path):
    """The plugin files that the file at ``path`` imports, and those they import, at any depth."""
    reached, todo = set(), list(_imports(path))
    while todo:
        plugin = todo.pop()
        if plugin not in reached:
            reached.add(plugin)
            todo.extend(_imports(os.path.join(PLUGINS, plugin)))
    return reached


def _module_utils_files():
    found = []
    for folder, dirnames, filenames in os.walk(os.path.join(PLUGINS, "module_utils")):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        relative = os.path.relpath(folder, os.path.join(PLUGINS, "module_utils"))
        found.extend(os.path.normpath(os.path.join(relative, name)) for name in sorted(filenames)
                     if name.endswith(".py") and name != "__init__.py")
    return found


def _named():
    """module_utils files (relative to plugins/module_utils) that have a test file named after them."""
    named = set()
    for folder, name in _test_files():
        plugin = _tested_name(name, _names(os.path.join(PLUGINS, folder)))
        if plugin is not None and folder.startswith("module_utils" + os.sep):
            named.add(os.path.normpath(os.path.join(os.path.relpath(folder, "module_utils"), plugin + ".py")))
    return named


def test_every_module_utils_file_has_a_test_file_or_is_listed_untested():
    named = _named()
    untested = [path for path in _module_utils_files() if path not in named and path not in COVERED_BY]
    assert untested == UNTESTED


def test_each_file_covered_by_another_test_file_is_reached_by_its_imports():
    named, files = _named(), set(_module_utils_files())
    stale = [path for path in COVERED_BY if path not in files or path in named]
    assert stale == [], "COVERED_BY entries for files that are gone or have a test file of their own now: %s" % stale
    unreached = [(path, test) for path, test in sorted(COVERED_BY.items())
                 if not os.path.isfile(os.path.join(TESTS, test)) or "module_utils/" + path not in _reached(os.path.join(TESTS, test))]
    assert unreached == [], "COVERED_BY test files that are gone or do not import the file (at any depth): %s" % unreached
