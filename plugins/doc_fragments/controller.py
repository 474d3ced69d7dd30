# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """Attributes of a module that runs on the controller as an action plugin; READ_ONLY for one that only reads."""

    DOCUMENTATION = r"""
attributes:
  action:
    description: Runs on the controller only, as an action plugin; the module file holds its documentation.
    support: full
  platform:
    description: Runs on the controller, a POSIX host.
    support: full
    platforms: posix
"""

    READ_ONLY = r"""
attributes:
  check_mode:
    description: It only reads, so it runs the same in check mode.
    support: full
  diff_mode:
    description: Nothing changes; no diff.
    support: none
"""
