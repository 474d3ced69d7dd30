"""How tests run real Ansible in a subprocess: the collection where it was imported, the Python running the tests.

Not a test. The checkout is imported through ``.build/collections`` (pytest.ini) and ansible-test's copy
lies under ``.../ansible_collections/gpusmith/numa_gate``: either way the collection's parent folder is
found from this file's path, and ``ansible``/``ansible-playbook`` sit beside the interpreter running
the tests. ansible-test gives module_utils tests a PYTHONPATH with only ``ansible.module_utils`` in it,
so the subprocess gets the interpreter's own ansible-core instead.
"""

import os
import sys

_HERE = os.path.abspath(__file__)
_MARK = os.sep + "ansible_collections" + os.sep
if _MARK in _HERE:
    COLLECTIONS = _HERE[:_HERE.rindex(_MARK)]
    REPO = os.path.join(COLLECTIONS, "ansible_collections", "gpusmith", "numa_gate")
else:
    REPO = os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))
    COLLECTIONS = os.path.join(REPO, ".build", "collections")
BIN = os.path.dirname(sys.executable)
PYTHON = sys.executable


def environment(tmp_path, **extra):
    """os.environ for an ansible or ansible-playbook run: this collection, the json callback, a private temp folder."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"), ANSIBLE_COLLECTIONS_PATH=COLLECTIONS,
               ANSIBLE_STDOUT_CALLBACK="json", ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"), ANSIBLE_NOCOLOR="1")
    env.update(extra)
    return env


def environment_without_api_settings(tmp_path):
    """`environment` with HOME an empty folder and no KUBECONFIG or K8S_AUTH_*: the API is reached only through what the
    play itself gives (a kubeconfig setting, module_defaults), never through the machine's own client settings."""
    home = tmp_path / "home"
    home.mkdir()
    env = environment(tmp_path, HOME=str(home))
    return {name: value for name, value in env.items() if name != "KUBECONFIG" and not name.startswith("K8S_AUTH_")}
