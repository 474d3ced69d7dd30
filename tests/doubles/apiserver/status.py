# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API server's ``Status`` error bodies, built the way the real server builds them.

Each constructor copies one function of k8s.io/apimachinery/pkg/api/errors/errors.go
(staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go in kubernetes/kubernetes):
``NewNotFound``, ``NewAlreadyExists``, ``NewConflict``, ``NewBadRequest``, ``NewTooManyRequests``,
``NewServiceUnavailable``, ``NewMethodNotSupported``, ``NewInternalError``. The wire form is the
v1 ``Status`` kind; ``omitempty`` fields (details, retryAfterSeconds, causes) are left out when
empty, as Go's encoder leaves them out. ``ApiError`` carries one of them to the HTTP layer, which
also sets ``Retry-After`` when ``details.retryAfterSeconds`` > 0, as ErrorNegotiated does in
staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/writers.go.
"""


class ApiError(Exception):
    """A request the double refuses: ``status`` is the Status body, ``code`` its HTTP status."""

    def __init__(self, status):
        super().__init__(status["message"])
        self.status = status
        self.code = status["code"]


def _status(code, reason, message, details=None):
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message}
    if reason:
        body["reason"] = reason
    if details is not None:
        body["details"] = details
    body["code"] = code
    return body


def _qualified(group, resource):
    """schema.GroupResource.String(): ``pods`` for the core group, ``daemonsets.apps`` otherwise."""
    return "%s.%s" % (resource, group) if group else resource


def _details(group, resource, name=None):
    details = {}
    if name:
        details["name"] = name
    if group:
        details["group"] = group
    details["kind"] = resource
    return details


def not_found(resource, name, group=""):
    """NewNotFound: 404, reason NotFound, message ``pods "x" not found``."""
    return ApiError(_status(404, "NotFound", '%s "%s" not found' % (_qualified(group, resource), name), _details(group, resource, name)))


def already_exists(resource, name, group=""):
    """NewAlreadyExists: 409, reason AlreadyExists, message ``nodes "x" already exists``."""
    return ApiError(_status(409, "AlreadyExists", '%s "%s" already exists' % (_qualified(group, resource), name), _details(group, resource, name)))


def conflict(resource, name, why, group=""):
    """NewConflict: 409, reason Conflict, ``Operation cannot be fulfilled on nodes "x": <why>``."""
    message = 'Operation cannot be fulfilled on %s "%s": %s' % (_qualified(group, resource), name, why)
    return ApiError(_status(409, "Conflict", message, _details(group, resource, name)))


# The generic registry's wording for a stale resourceVersion (apiserver/pkg/registry/generic/registry/store.go OptimisticLockErrorMsg).
OPTIMISTIC_LOCK = "the object has been modified; please apply your changes to the latest version and try again"


def bad_request(message):
    """NewBadRequest: 400, reason BadRequest, the message as given."""
    return ApiError(_status(400, "BadRequest", message))


def too_many_requests(message, retry_after_seconds=0, causes=None):
    """NewTooManyRequests: 429, reason TooManyRequests, details.retryAfterSeconds (omitted when 0) and causes."""
    details = {}
    if causes:
        details["causes"] = causes
    if retry_after_seconds:
        details["retryAfterSeconds"] = retry_after_seconds
    body = _status(429, "TooManyRequests", message)
    # NewTooManyRequests always sets Details; an empty StatusDetails still encodes as {}.
    body["details"] = details
    body["code"] = body.pop("code")
    return ApiError(body)


def service_unavailable(message):
    """NewServiceUnavailable: 503, reason ServiceUnavailable."""
    return ApiError(_status(503, "ServiceUnavailable", message))


def method_not_supported(resource, action, group=""):
    """NewMethodNotSupported: 405, ``<action> is not supported on resources of kind "<resource>"``."""
    message = '%s is not supported on resources of kind "%s"' % (action, _qualified(group, resource))
    return ApiError(_status(405, "MethodNotAllowed", message, _details(group, resource)))


def internal_error(message):
    """NewInternalError: 500, reason InternalError, ``Internal error occurred: <err>``."""
    return ApiError(_status(500, "InternalError", "Internal error occurred: %s" % message, {"causes": [{"message": message}]}))


def plain_not_found():
    """A path no API serves: 404 with the wording of NewGenericServerResponse's 404 case (errors.go)."""
    return ApiError(_status(404, "NotFound", "the server could not find the requested resource", {}))


def success(details=None):
    """``Status`` with status Success, as the eviction subresource returns it (eviction.go ``metav1.StatusSuccess``)."""
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
    if details:
        body["details"] = details
    return body
