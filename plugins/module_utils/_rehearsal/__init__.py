# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rehearsal step: a rollback rehearsed, the node's workloads checked to come back, what is kept on the node.

Import the submodules explicitly; this file holds only this map.

- ``evidence``: The rollback criterion's evidence, from the node's own transition records and the check kept after a rehearsal (pure).
- ``kept``: What a rehearsal keeps beside a transition's journal: the check after a rollback, the reboot after an enable.
- ``reboot``: The rehearsed reboot after an enable: what was observed, what it means, and whether a kept one is believed (pure).
- ``restart``: The opt-in restart of a recreated workload's main container after a rehearsed rollback, and its allocation compared.
- ``specs``: The rehearsal_workloads action's argument spec, declared once: the action and its module file both import it.
- ``wait``: The node's workloads through the API, before a rehearsed rollback and after it (a bounded wait with progress lines).
- ``workloads``: The check after a rehearsed rollback: did the node's workloads come back, and does PodResources show container scope (pure).
"""
