# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """Options that locate a node's kubelet configuration files and state."""

    DOCUMENTATION = r"""
options:
  path:
    description:
      - The kubelet's main configuration file (C(--config)).
    type: str
    default: /var/lib/kubelet/config.yaml
  config_dir:
    description:
      - The kubelet's drop-in directory (C(--config-dir)). Every C(*.conf) file under it is merged, in
        lexical order, subdirectories included, as the kubelet does.
    type: str
    default: /etc/kubernetes/kubelet.conf.d
  dropin_name:
    description:
      - File name of the drop-in this collection manages in O(config_dir). Must end in C(.conf).
    type: str
    default: 50-numa-gate.conf
  kubelet_root_dir:
    description:
      - The kubelet's root directory, holding its C(cpu_manager_state) and C(memory_manager_state) checkpoints.
    type: str
    default: /var/lib/kubelet
  root:
    description:
      - Prefix for every path the module reads or writes (the options above, sysfs and procfs); C(/) on a real
        node, a snapshot or image directory otherwise.
    type: path
    default: /
"""
