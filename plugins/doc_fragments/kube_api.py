# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """How the controller-side actions reach the Kubernetes API and which node they act on."""

    DOCUMENTATION = r"""
requirements:
  - The C(kubernetes) Python library on the controller.
options:
  kubeconfig:
    description:
      - The kubeconfig file on the controller. When not set, the C(kubernetes) library's default
        (E(KUBECONFIG) or C(~/.kube/config)).
    type: path
  context:
    description:
      - The kubeconfig context to use; the file's current context when not set.
    type: str
  node:
    description:
      - The node's name in the cluster.
    type: str
    required: true
"""
