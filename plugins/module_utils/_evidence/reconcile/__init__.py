# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the kubelet said against what the kernel shows and the oracle expects: devices mapped, findings (pure).

Import the submodules explicitly; this file holds only this map.

- ``findings``: Placement findings for one pod: what the kubelet said against what the kernel shows and the oracle expects (pure).
- ``recheck``: The canary's placement checks for the workloads a rehearsed rollback recreated (pure).
"""
