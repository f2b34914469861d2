"""The API errors the store engine raises, worded as kube-apiserver words them.

Each constructor returns a `kgen.runtime.scheme.APIError` with the HTTP code, the reason of
the API conventions and the message apimachinery's `errors.New*` functions write, so a
client (kubectl, client-go, the official Python client) sees what a real cluster says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgen.runtime.errors import APIError, StatusCause
from kgen.runtime.validation.field import FieldError, invalid_error

if TYPE_CHECKING:
    from kgen.runtime.apimachinery.meta.v1.models import Status

#: storage/etcd3's messages for reads of compacted history.
EXPIRED_LIST = "The resourceVersion for the provided list is too old."
CONTINUE_EXPIRED = (
    "The provided continue parameter is too old to display a consistent list result. "
    "You can start a new list without the continue parameter."
)
INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. "
    "You can start a new list without the continue parameter, or use the continue token in this "
    "response to retrieve the remainder of the results. Continuing with the provided token results "
    "in an inconsistent list - objects that were created, modified, or deleted between the time "
    "the first chunk was returned and now may show up in the list."
)
OPTIMISTIC_LOCK = "the object has been modified; please apply your changes to the latest version and try again"


class ResourceExpired(APIError):
    """410 Expired; for an expired continue token it carries the token that continues the
    list inconsistently (the Status's `metadata.continue`)."""

    def __init__(self, message: str, continue_token: str = ""):
        super().__init__(410, "Expired", message)
        self.continue_token = continue_token

    def to_status(self) -> Status:
        """This error as a metav1.Status, with `metadata.continue` when there is a token."""
        status = super().to_status()
        if self.continue_token:
            status.metadata.continue_ = self.continue_token
        return status


def qualified_resource(group: str, resource: str) -> str:
    """`resource.group`, or `resource` in the core group (schema.GroupResource.String)."""
    return f"{resource}.{group}" if group else resource


def _details(group: str, resource: str, name: str) -> dict[str, str]:
    # Details that add retry_after_seconds (an int, as in metav1.StatusDetails) are typed
    # dict[str, Any]: APIError's `details` parameter is declared Mapping[str, str].
    return {"name": name, "group": group, "kind": resource}


def not_found(group: str, resource: str, name: str) -> APIError:
    """404 NotFound: `widgets.example.com "x" not found`."""
    return APIError(
        404,
        "NotFound",
        f'{qualified_resource(group, resource)} "{name}" not found',
        details=_details(group, resource, name),
    )


def already_exists(group: str, resource: str, name: str) -> APIError:
    """409 AlreadyExists: `widgets.example.com "x" already exists`."""
    message = f'{qualified_resource(group, resource)} "{name}" already exists'
    return APIError(409, "AlreadyExists", message, details=_details(group, resource, name))


def generate_name_conflict(group: str, resource: str, name: str) -> APIError:
    """409 AlreadyExists for a generated name that was taken on every attempt."""
    message = (
        f'{qualified_resource(group, resource)} "{name}" already exists, '
        "the server was not able to generate a unique name for the object"
    )
    details: dict[str, Any] = {**_details(group, resource, name), "retry_after_seconds": 1}
    return APIError(409, "AlreadyExists", message, details=details)


def conflict(group: str, resource: str, name: str, detail: str = OPTIMISTIC_LOCK) -> APIError:
    """409 Conflict: `Operation cannot be fulfilled on widgets.example.com "x": <detail>`."""
    message = f'Operation cannot be fulfilled on {qualified_resource(group, resource)} "{name}": {detail}'
    return APIError(409, "Conflict", message, details=_details(group, resource, name))


def expired(message: str, continue_token: str = "") -> ResourceExpired:
    """410 Expired (history that was compacted, a continue token that is too old)."""
    return ResourceExpired(message, continue_token)


def too_old_resource_version(requested: int, oldest: int) -> ResourceExpired:
    """410 Expired for a watch from before the retained history (the watch cache's words)."""
    return ResourceExpired(f"too old resource version: {requested} ({oldest})")


def too_large_resource_version(minimum: int, current: int) -> APIError:
    """504 Timeout for a resourceVersion the store has not reached (NewTooLargeResourceVersionError)."""
    details: dict[str, Any] = {"retry_after_seconds": 1}
    return APIError(
        504,
        "Timeout",
        f"Too large resource version: {minimum}, current: {current}",
        [StatusCause("ResourceVersionTooLarge", "Too large resource version")],
        details,
    )


def bad_request(message: str) -> APIError:
    """400 BadRequest."""
    return APIError(400, "BadRequest", message)


def invalid_options(kind: str, errors: list[FieldError]) -> APIError:
    """422 Invalid for request options: `ListOptions.meta.k8s.io "" is invalid: ...`."""
    return invalid_error("meta.k8s.io", kind, "", errors)


def server_timeout(group: str, resource: str, operation: str) -> APIError:
    """The API server's answer when storage is unreachable (NewServerTimeout)."""
    message = (
        f"The {operation} operation against {qualified_resource(group, resource)} "
        "could not be completed at this time, please try again."
    )
    details: dict[str, Any] = {"name": operation, "group": group, "kind": resource, "retry_after_seconds": 2}
    return APIError(500, "ServerTimeout", message, details=details)


def internal_error(message: str) -> APIError:
    """500 InternalError: `Internal error occurred: <message>`."""
    return APIError(500, "InternalError", f"Internal error occurred: {message}")


TOO_LARGE = "etcdserver: request is too large"


def too_large() -> APIError:
    """etcd's refusal of an object larger than it takes (--max-request-bytes, 1.5 MiB). The
    API server has no Status for it: the error reaches the client as it is, 500 with no
    reason (responsewriters.ErrorToAPIStatus of an error that is not a Status)."""
    return APIError(500, "", TOO_LARGE)


def is_too_large(error: APIError) -> bool:
    """Whether `error` is etcd's refusal of an object too large to store."""
    return error.code == 500 and error.message == TOO_LARGE
