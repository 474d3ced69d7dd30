# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stack step: the versions a node and its cluster run, observed and dated; support as data; eligibility before any change.

Import the submodules explicitly; this file holds only this map.

- ``errors``: The stack step's one error.
- ``ranges``: Versions as the stack step compares them, and the ranges of the support table (pure).
- ``support``: Support as data: the support table's entries checked, merged with the operator's, and held against the versions (pure).
"""
