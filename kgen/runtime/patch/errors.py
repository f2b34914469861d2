"""The Status errors the API server answers a failed patch or apply with.

Each builder returns a `kgen.runtime.scheme.APIError` (a `PatchError`, which also keeps
the underlying error's text in `detail` for logs: the API server does not always put it
in the Status, as for a JSON patch that fails to apply).
"""

from __future__ import annotations

from kgen.runtime.errors import APIError, StatusCause

__all__ = [
    "PatchError",
    "bad_request",
    "unprocessable",
    "unsupported_media_type",
    "server_error",
    "apply_conflict",
    "PATCH_TYPES",
    "CUSTOM_RESOURCE_PATCH_TYPES",
]

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

#: The patch content types a built-in resource accepts, in the API server's order.
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)
#: What a custom resource accepts: no strategic merge patch.
CUSTOM_RESOURCE_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)


class PatchError(APIError):
    """An APIError from patching; `detail` is the underlying error's text."""

    def __init__(self, code: int, reason: str, message: str, causes: list[StatusCause] | None = None, detail: str = ""):
        super().__init__(code, reason, message, causes)
        self.detail = detail or message


def bad_request(message: str) -> PatchError:
    """400 BadRequest with `message` (errors.NewBadRequest)."""
    return PatchError(400, "BadRequest", message)


def unprocessable(detail: str) -> PatchError:
    """422 Invalid as NewGenericServerResponse writes it: the Status message is generic,
    the error itself is not in it, and its details are empty (what the API server answers a
    JSON patch that fails)."""
    error = PatchError(422, "Invalid", "the server rejected our request due to an error in our request", detail=detail)
    error.empty_details = True
    return error


def unsupported_media_type(accepted: tuple[str, ...] | list[str]) -> PatchError:
    """415 UnsupportedMediaType for a patch type the resource does not accept (such as a
    strategic merge patch of a custom resource)."""
    message = "the body of the request was in an unknown format - accepted media types include: " + ", ".join(accepted)
    return PatchError(415, "UnsupportedMediaType", message)


def server_error(message: str) -> PatchError:
    """500 with no reason: the API server's Status for an error that is not a Status."""
    return PatchError(500, "", message)


def apply_conflict(message: str, causes: list[StatusCause]) -> PatchError:
    """409 Conflict of a server-side apply (errors.NewApplyConflict)."""
    return PatchError(409, "Conflict", message, causes)
