# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """The check and diff mode attributes of a module that runs on the node and only reads (controller.read_only is the controller's)."""

    DOCUMENTATION = r"""
attributes:
  check_mode:
    description: Reads only; the same in check mode.
    support: full
  diff_mode:
    description: Reads only; there is no diff.
    support: none
"""
