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
      - File name of the drop-in this collection manages in O(config_dir). Must end in C(.conf) and contain no C(/).
    type: str
    default: 50-numa-gate.conf
  kubelet_root_dir:
    description:
      - The kubelet's root directory, holding its C(cpu_manager_state) and C(memory_manager_state) checkpoints.
    type: str
    default: /var/lib/kubelet
  root:
    description:
      - The folder every path option is read or written in, as if it were C(/) (the way a chroot sees it); C(/) on a
        real node, a snapshot or image directory otherwise.
      - Paths never leave it. C(..) stops at O(root) and a symlink's absolute target is read inside O(root).
      - Must not be empty; neither may any path option above (an empty value is refused, never taken as a default).
    type: path
    default: /
"""
