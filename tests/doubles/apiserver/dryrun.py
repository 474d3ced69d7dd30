# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Server-side dry run (``?dryRun=All``, ``DeleteOptions.dryRun``), as the real API server reads it.

- The only value the server accepts is ``All`` (apimachinery/pkg/apis/meta/v1/validation
  validation.go ``ValidateDryRun``, called by ValidateCreateOptions / ValidateUpdateOptions /
  ValidatePatchOptions / ValidateDeleteOptions before anything is read); anything else is a 422
  ``NewInvalid`` of the options kind: ``PatchOptions.meta.k8s.io "" is invalid: dryRun:
  Unsupported value: []string{"x"}: supported values: "All"``.
- With it, a write runs every check and answers what it would have written, but persists
  nothing: apiserver/pkg/registry/generic/registry/dryrun.go ``DryRunnableStorage``. ``Create``
  refuses a taken name and returns the object unstored (so with no ``resourceVersion``);
  ``GuaranteedUpdate`` reads the current object, checks preconditions and returns what the update
  function made of it (the ``resourceVersion`` stays the current one); ``Delete`` reads, checks
  preconditions and returns the object. A graceful pod deletion goes through GuaranteedUpdate
  (store.go ``updateForGracefulDeletionAndFinalizers``), so its answer carries the
  ``deletionTimestamp`` it would have set. No revision is used, so no watch event is sent.
  The store's ``dry_run=True`` writes do exactly that (store.py).
"""

from apiserver import status as api_status

ALL = "All"


def requested(options_kind, query, options=None):
    """True when the request asks for a dry run (query ``dryRun`` or the body's DeleteOptions ``dryRun``);
    422 for a value other than ``All``, as the real option validation refuses it."""
    values = []
    if query.get("dryRun") is not None:
        values.append(query["dryRun"])
    values.extend((options or {}).get("dryRun") or [])
    unsupported = [v for v in values if v != ALL]
    if unsupported:
        detail = "Unsupported value: []string{%s}: supported values: \"%s\"" % (", ".join('"%s"' % v for v in values), ALL)
        raise api_status.ApiError({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": '%s.meta.k8s.io "" is invalid: dryRun: %s' % (options_kind, detail), "reason": "Invalid",
            "details": {"group": "meta.k8s.io", "kind": options_kind,
                        "causes": [{"reason": "FieldValueNotSupported", "message": detail, "field": "dryRun"}]},
            "code": 422})
    return bool(values)
