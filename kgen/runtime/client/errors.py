"""The errors of the REST transport: API `Status` errors, transport and configuration errors.

A response that is not a success becomes an `APIStatusError` holding the decoded
`metav1.Status`: its code, reason, message and details (with the causes), and the
response's headers. The subclass is chosen as apimachinery's `k8s.io/apimachinery/pkg/api/errors`
chooses: by the Status's reason first and, when the reason is not one it knows, by the
HTTP code (`NotFound` for 404, `Invalid` for 422, ...). A body that is not a Status (a
proxy's `502 Bad Gateway` page) gets the Status client-go's `NewGenericServerResponse`
writes for it, with the body's text as an `UnexpectedServerResponse` cause.

The `is_*` helpers answer exactly as their Go namesakes (`is_not_found` is
`errors.IsNotFound`), following `__cause__` as Go's `errors.As` unwraps. `Expired`
is a subclass of `Gone` so that `except Gone` catches both 410s a watch may end with;
`is_gone()` still answers as Go does (False for reason `Expired`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgen.runtime.apimachinery.meta.v1.models import Status, StatusCause, StatusDetails
    from kgen.runtime.client.warning import WarningHeader

__all__ = [
    "ClientError",
    "ConfigError",
    "TransportError",
    "TransportTimeout",
    "APIStatusError",
    "BadRequest",
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "MethodNotAllowed",
    "NotAcceptable",
    "AlreadyExists",
    "Conflict",
    "Gone",
    "Expired",
    "RequestEntityTooLarge",
    "UnsupportedMediaType",
    "Invalid",
    "TooManyRequests",
    "InternalError",
    "ServiceUnavailable",
    "Timeout",
    "ServerTimeout",
    "StorageReadError",
    "ResourceRef",
    "error_from_status",
    "generic_server_response",
]


class ClientError(Exception):
    """The base of every error the transport raises."""


class ConfigError(ClientError):
    """A kubeconfig or in-cluster configuration kgen cannot use; the message says what to do.

    Messages name files, contexts, clusters and users, never a credential's value."""


class TransportError(ClientError):
    """The server could not be reached or the connection broke (its `__cause__` is httpx's error)."""


class TransportTimeout(TransportError):
    """Connecting, sending or reading took longer than the configured timeout."""


@dataclass(frozen=True)
class ResourceRef:
    """What a request is about, for the messages of errors whose body is not a Status:
    `the server could not find the requested resource (get widgets.example.com w1)`."""

    group: str = ""
    resource: str = ""
    name: str = ""

    def qualified(self) -> str:
        """`resource.group`, or `resource` in the core group (schema.GroupResource.String)."""
        return f"{self.resource}.{self.group}" if self.group else self.resource


class APIStatusError(ClientError):
    """A response of the API that is not a success, with the `metav1.Status` that says why.

    `str(error)` is the Status's message, as Go's `StatusError.Error()`."""

    def __init__(
        self,
        status: Status,
        headers: Mapping[str, str] | None = None,
        warnings: Sequence[WarningHeader] = (),
    ) -> None:
        super().__init__(status.message)
        self.status = status
        """The decoded Status (or the one client-go would make up for a body that is none)."""
        self.headers: Mapping[str, str] = headers if headers is not None else {}
        """The response's headers (`Retry-After`, `Audit-Id`, ...)."""
        self.warnings: tuple[WarningHeader, ...] = tuple(warnings)
        """The `Warning` headers of the response (already given to the warning handler)."""

    @property
    def code(self) -> int:
        """The HTTP code the Status gives (0 when it gives none)."""
        return int(self.status.code)

    @property
    def reason(self) -> str:
        """The Status's machine-readable reason (`NotFound`, `Conflict`, ...), or ""."""
        return str(self.status.reason)

    @property
    def message(self) -> str:
        """The Status's human-readable message."""
        return self.status.message

    @property
    def details(self) -> StatusDetails | None:
        """The Status's details: name, group, kind, uid, causes, retryAfterSeconds."""
        return self.status.details

    @property
    def causes(self) -> list[StatusCause]:
        """The causes of the details (for `Invalid`, one per field error); [] when none."""
        details = self.status.details
        return list(details.causes or []) if details is not None else []

    @property
    def retry_after_seconds(self) -> int:
        """The details' `retryAfterSeconds` (0 when the server suggested no delay)."""
        details = self.status.details
        return int(details.retry_after_seconds) if details is not None else 0

    def __str__(self) -> str:
        return self.status.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, reason={self.reason!r}, message={self.message!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.status, dict(self.headers), self.warnings))


class BadRequest(APIStatusError):
    """400 BadRequest: the request is malformed (a bad selector, an unparsable body)."""


class Unauthorized(APIStatusError):
    """401 Unauthorized: the server did not accept the credentials (or got none)."""


class Forbidden(APIStatusError):
    """403 Forbidden: the user may not do this (RBAC, admission, a namespace being deleted)."""


class NotFound(APIStatusError):
    """404 NotFound: the object (or the resource, or the namespace) does not exist."""


class MethodNotAllowed(APIStatusError):
    """405 MethodNotAllowed: the resource does not support this verb."""


class NotAcceptable(APIStatusError):
    """406 NotAcceptable: the server cannot answer in any content type the client accepts."""


class AlreadyExists(APIStatusError):
    """409 AlreadyExists: a create named an object that exists."""


class Conflict(APIStatusError):
    """409 Conflict: the object changed since it was read (its resourceVersion is stale)."""


class Gone(APIStatusError):
    """410 Gone: the resource version asked for is no longer available."""


class Expired(Gone):
    """410 Expired: the resource version (or continue token) is too old; list again."""


class RequestEntityTooLarge(APIStatusError):
    """413 RequestEntityTooLarge: the request body is larger than the server accepts."""


class UnsupportedMediaType(APIStatusError):
    """415 UnsupportedMediaType: the server does not read the body's content type."""


class Invalid(APIStatusError):
    """422 Invalid: the object failed validation; `causes` has one entry per field error."""


class TooManyRequests(APIStatusError):
    """429 TooManyRequests: the server is throttling this client (priority and fairness)."""


class InternalError(APIStatusError):
    """500 InternalError: the server failed (or answered with something that is not the API)."""


class ServiceUnavailable(APIStatusError):
    """503 ServiceUnavailable: the server (or an aggregated API behind it) is not available."""


class Timeout(APIStatusError):
    """504 Timeout: the server did not finish in time; the operation may still complete."""


class ServerTimeout(APIStatusError):
    """Reason ServerTimeout: the server could not finish in time and asks the client to retry."""


class StorageReadError(APIStatusError):
    """Reason StorageReadError: the server could not read or decode the object from storage."""


#: The subclass of each reason apimachinery knows (its `knownReasons`).
REASON_CLASSES: dict[str, type[APIStatusError]] = {
    "Unauthorized": Unauthorized,
    "Forbidden": Forbidden,
    "NotFound": NotFound,
    "AlreadyExists": AlreadyExists,
    "Conflict": Conflict,
    "Gone": Gone,
    "Invalid": Invalid,
    "ServerTimeout": ServerTimeout,
    "StorageReadError": StorageReadError,
    "Timeout": Timeout,
    "TooManyRequests": TooManyRequests,
    "BadRequest": BadRequest,
    "MethodNotAllowed": MethodNotAllowed,
    "NotAcceptable": NotAcceptable,
    "RequestEntityTooLarge": RequestEntityTooLarge,
    "UnsupportedMediaType": UnsupportedMediaType,
    "InternalError": InternalError,
    "Expired": Expired,
    "ServiceUnavailable": ServiceUnavailable,
}

#: The subclass of each code, for a reason apimachinery does not know (the `Is*` fallbacks).
CODE_CLASSES: dict[int, type[APIStatusError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    405: MethodNotAllowed,
    406: NotAcceptable,
    409: Conflict,
    410: Gone,
    413: RequestEntityTooLarge,
    415: UnsupportedMediaType,
    422: Invalid,
    429: TooManyRequests,
    500: InternalError,
    503: ServiceUnavailable,
    504: Timeout,
}


def error_from_status(
    status: Status, headers: Mapping[str, str] | None = None, warnings: Sequence[WarningHeader] = ()
) -> APIStatusError:
    """The exception for a failure Status: the class of its reason, else of its code."""
    cls = REASON_CLASSES.get(str(status.reason))
    if cls is None:
        cls = CODE_CLASSES.get(int(status.code), APIStatusError)
    return cls(status, headers, warnings)


# -- a Status for a body that is none (NewGenericServerResponse) ----------------------------

_GENERIC: dict[int, tuple[str, str | None]] = {
    # code: (reason, message); None keeps the server's message.
    404: ("NotFound", "the server could not find the requested resource"),
    400: ("BadRequest", "the server rejected our request for an unknown reason"),
    401: ("Unauthorized", "the server has asked for the client to provide credentials"),
    403: ("Forbidden", None),
    415: ("UnsupportedMediaType", None),
    405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
    422: ("Invalid", "the server rejected our request due to an error in our request"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
    504: (
        "Timeout",
        "the server was unable to return a response in the time allotted, but may still be processing the request",
    ),
    429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
}


def generic_server_response(
    code: int,
    method: str,
    resource: ResourceRef | None,
    server_message: str,
    retry_after_seconds: int = 0,
    unexpected: bool = True,
) -> Status:
    """The Status client-go's `errors.NewGenericServerResponse` makes of a response whose body
    is not a Status: the reason and message of its code, the verb and resource appended, and
    (when `unexpected`) the body's text as an `UnexpectedServerResponse` cause."""
    from kgen.runtime.apimachinery.meta.v1.models import Status, StatusCause, StatusDetails

    reason = ""
    message = f"the server responded with the status code {code} but did not return more information"
    if code == 409:
        reason = "AlreadyExists" if method.upper() == "POST" else "Conflict"
        message = "the server reported a conflict"
    elif code == 406:
        reason = "NotAcceptable"
        message = server_message
        if not server_message or server_message == "unknown":
            message = "the server was unable to respond with a content type that the client supports"
    elif code in _GENERIC:
        reason, fixed = _GENERIC[code]
        message = server_message if fixed is None else fixed
    elif code >= 500:
        reason = "InternalError"
        message = f"an error on the server ({go_quote(server_message)}) has prevented the request from succeeding"
    ref = resource or ResourceRef()
    if ref.resource and ref.name:
        message = f"{message} ({method.lower()} {ref.qualified()} {ref.name})"
    elif ref.resource:
        message = f"{message} ({method.lower()} {ref.qualified()})"
    causes = [StatusCause(reason="UnexpectedServerResponse", message=server_message)] if unexpected else None
    details = StatusDetails(
        group=ref.group, kind=ref.resource, name=ref.name, causes=causes, retry_after_seconds=retry_after_seconds
    )
    return Status(status="Failure", code=code, reason=reason, message=message, details=details)


_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def go_quote(text: str) -> str:
    """Go's `strconv.Quote` (`%q`). (kgen.runtime.validation has one too; importing it would
    load the CEL and RE2 libraries into every client.)"""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ch in _C_ESCAPES:
            out.append(_C_ESCAPES[ch])
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\\ufffd")
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


# -- the Is* helpers -------------------------------------------------------------------------


def _chain(err: BaseException | None) -> Iterator[BaseException]:
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        yield err
        err = err.__cause__


def _status_error(err: BaseException | None) -> APIStatusError | None:
    for link in _chain(err):
        if isinstance(link, APIStatusError):
            return link
    return None


def reason_for_error(err: BaseException | None) -> str:
    """The Status reason of an error (errors.ReasonForError); "" for any other error."""
    status_error = _status_error(err)
    return status_error.reason if status_error is not None else ""


def _reason_and_code(err: BaseException | None) -> tuple[str, int]:
    status_error = _status_error(err)
    return (status_error.reason, status_error.code) if status_error is not None else ("", 0)


def _is(err: BaseException | None, reason: str, code: int) -> bool:
    """Go's pattern: the reason, or the code when the reason is not one apimachinery knows."""
    actual_reason, actual_code = _reason_and_code(err)
    if actual_reason == reason:
        return True
    return actual_reason not in REASON_CLASSES and actual_code == code


def is_not_found(err: BaseException | None) -> bool:
    """errors.IsNotFound: reason NotFound, or code 404 with a reason apimachinery does not know."""
    return _is(err, "NotFound", 404)


def is_already_exists(err: BaseException | None) -> bool:
    """errors.IsAlreadyExists: reason AlreadyExists."""
    return reason_for_error(err) == "AlreadyExists"


def is_conflict(err: BaseException | None) -> bool:
    """errors.IsConflict: reason Conflict, or code 409 with an unknown reason."""
    return _is(err, "Conflict", 409)


def is_invalid(err: BaseException | None) -> bool:
    """errors.IsInvalid: reason Invalid, or code 422 with an unknown reason."""
    return _is(err, "Invalid", 422)


def is_gone(err: BaseException | None) -> bool:
    """errors.IsGone: reason Gone, or code 410 with an unknown reason (not reason Expired)."""
    return _is(err, "Gone", 410)


def is_resource_expired(err: BaseException | None) -> bool:
    """errors.IsResourceExpired: reason Expired."""
    return reason_for_error(err) == "Expired"


def is_not_acceptable(err: BaseException | None) -> bool:
    """errors.IsNotAcceptable: reason NotAcceptable, or code 406 with an unknown reason."""
    return _is(err, "NotAcceptable", 406)


def is_unsupported_media_type(err: BaseException | None) -> bool:
    """errors.IsUnsupportedMediaType: reason UnsupportedMediaType, or 415 with an unknown reason."""
    return _is(err, "UnsupportedMediaType", 415)


def is_method_not_supported(err: BaseException | None) -> bool:
    """errors.IsMethodNotSupported: reason MethodNotAllowed, or 405 with an unknown reason."""
    return _is(err, "MethodNotAllowed", 405)


def is_service_unavailable(err: BaseException | None) -> bool:
    """errors.IsServiceUnavailable: reason ServiceUnavailable, or 503 with an unknown reason."""
    return _is(err, "ServiceUnavailable", 503)


def is_bad_request(err: BaseException | None) -> bool:
    """errors.IsBadRequest: reason BadRequest, or 400 with an unknown reason."""
    return _is(err, "BadRequest", 400)


def is_unauthorized(err: BaseException | None) -> bool:
    """errors.IsUnauthorized: reason Unauthorized, or 401 with an unknown reason."""
    return _is(err, "Unauthorized", 401)


def is_forbidden(err: BaseException | None) -> bool:
    """errors.IsForbidden: reason Forbidden, or 403 with an unknown reason."""
    return _is(err, "Forbidden", 403)


def is_timeout(err: BaseException | None) -> bool:
    """errors.IsTimeout: reason Timeout, or 504 with an unknown reason."""
    return _is(err, "Timeout", 504)


def is_server_timeout(err: BaseException | None) -> bool:
    """errors.IsServerTimeout: reason ServerTimeout (no code means it)."""
    return reason_for_error(err) == "ServerTimeout"


def is_internal_error(err: BaseException | None) -> bool:
    """errors.IsInternalError: reason InternalError, or 500 with an unknown reason."""
    return _is(err, "InternalError", 500)


def is_too_many_requests(err: BaseException | None) -> bool:
    """errors.IsTooManyRequests: reason TooManyRequests, or code 429 whatever the reason."""
    reason, code = _reason_and_code(err)
    return reason == "TooManyRequests" or code == 429


def is_request_entity_too_large(err: BaseException | None) -> bool:
    """errors.IsRequestEntityTooLargeError: reason RequestEntityTooLarge, or code 413 whatever the reason."""
    reason, code = _reason_and_code(err)
    return reason == "RequestEntityTooLarge" or code == 413


def is_store_read_error(err: BaseException | None) -> bool:
    """errors.IsStoreReadError: reason StorageReadError."""
    return reason_for_error(err) == "StorageReadError"


def status_cause(err: BaseException | None, cause_type: str) -> StatusCause | None:
    """The first cause of this type in the error's Status details (errors.StatusCause), or None."""
    status_error = _status_error(err)
    if status_error is None:
        return None
    for cause in status_error.causes:
        if cause.reason == cause_type:
            return cause
    return None


def has_status_cause(err: BaseException | None, cause_type: str) -> bool:
    """errors.HasStatusCause: the Status details have a cause of this type."""
    return status_cause(err, cause_type) is not None


def is_unexpected_server_error(err: BaseException | None) -> bool:
    """errors.IsUnexpectedServerError: the response was not in the API's format (a proxy's page)."""
    return has_status_cause(err, "UnexpectedServerResponse")


def suggests_client_delay(err: BaseException | None) -> int | None:
    """errors.SuggestsClientDelay: the seconds the server asks the client to wait, or None."""
    status_error = _status_error(err)
    if status_error is None or status_error.details is None:
        return None
    if status_error.reason == "ServerTimeout":
        return status_error.retry_after_seconds
    if status_error.retry_after_seconds > 0:
        return status_error.retry_after_seconds
    return None
