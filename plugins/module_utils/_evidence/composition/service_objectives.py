# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``service_objectives`` source: baseline against canary under the same load, measured (pure).

Public: `compose`, `SHAPE`, `STATES`, `RESULT`.

When the service_comparison role ran here (``service_comparison_ran``), its ``service_comparison_result``
(null in check mode: nothing measured); otherwise the comparison given by the operator
(``service_comparison_given``: the service_comparison filter's result, or null). The verdict checks
its shape: a typed-in ``{held: true}`` is refused there.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S

# What the record takes for it (`Source.shape`): anything; the service criterion first names what it must be (`STATES`), then
# checks `RESULT` (`_record.inputs.check_service`), so a typed-in {held: ...} is refused in the verdict's words.
SHAPE = S.ANY
STATES = ("held", "not held", "incomparable")
RESULT = S.Fields("the service_comparison filter's result", {"state": S.OneOf(*STATES)}, {
    "reasons": S.Nullable(S.ListOf(S.STR)),
    "repetitions": S.Nullable(S.Fields("repetitions per side", {}, {"baseline": S.Nullable(S.COUNT), "canary": S.Nullable(S.COUNT)}))})


def compose(reads):
    if reads.get("service_comparison_ran"):
        return reads.get("service_comparison_result")
    return reads.get("service_comparison_given")
