# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transition's journal on the node: which transition is open, its steps' events, fsynced.

Import the submodules explicitly; this file holds only this map.

- ``journal``: A transition's journal: one line per step event, fsynced before the step goes on.
- ``lines``: The lines of a transition's journal: what one is, and reading a whole journal's bytes into entries.
- ``step``: A transition step that journals itself: its ``started`` and ``finished`` events, fsynced, in the run that does its work.
- ``transitions``: Transitions on a node: which one is open, opening a new one, closing it.
"""
