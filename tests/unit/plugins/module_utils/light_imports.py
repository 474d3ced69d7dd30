# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What an argument spec module loads when imported (a helper for the spec modules' tests, not a test).

An action's argument spec is declared once in module_utils, and its module file (the documentation stub) imports
it where only the node's Python and its libraries are: so a spec module must load no API client and no
third-party library. `heavy_imports` imports one in a fresh Python and names what it loaded of `HEAVY`.
"""

import json
import os
import subprocess
import sys

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

PACKAGE = "ansible_collections.gpusmith.numa_gate.plugins"
# Our API client (it imports the kubernetes package), third-party libraries, and the controller's side of Ansible.
HEAVY = ("kubernetes", "urllib3", "yaml", "prometheus_client", "google", "grpc", "ansible.plugins", "ansible.executor",
         PACKAGE + ".module_utils._kube_api.api", PACKAGE + ".module_utils._kube_api.connection",
         PACKAGE + ".module_utils._kube_api.kubeconfig", PACKAGE + ".module_utils._kube_api.transport")


def heavy_imports(spec_module, allowed=()):
    """What importing ``spec_module`` (dotted, under plugins.module_utils) loads of `HEAVY` but ``allowed``, sorted: [] for a light one."""
    code = "import json, sys; import %s.module_utils.%s; print(json.dumps(sorted(sys.modules)))" % (PACKAGE, spec_module)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=ansible_run.COLLECTIONS))
    loaded = json.loads(done.stdout)
    return [name for name in loaded if any(name == heavy or name.startswith(heavy + ".") for heavy in HEAVY if heavy not in allowed)]
