# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stack step: the versions a node and its cluster run, observed and dated; support as data; eligibility before any change.

Import the submodules explicitly; this file holds only this map.

- ``eligibility``: Eligibility before the first change: what keeps a node from enable.yml, each refusal naming what is missing (pure).
- ``errors``: The stack step's one error.
- ``observe``: The stack as observed: each version with where it was read and when, from the API's answers (pure).
- ``ranges``: Versions as the stack step compares them, and the ranges of the support table (pure).
- ``specs``: The stack_info action's argument spec, declared once (the module file documents the same dict).
- ``support``: Support as data: the support table's entries checked, merged with the operator's, and held against the versions (pure).
"""
