"""The errors of the API: an `APIError` is what a request gets back as a `Status` (HTTP
code, reason, message, causes with their field paths).

A leaf of the runtime: everything that reports an API error imports it from here, and it
imports nothing of the runtime but the `Status` model, when an error is turned into one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgen.runtime.apimachinery.meta.v1.models import Status


@dataclass
class StatusCause:
    type: str
    message: str
    field: str = ""


class APIError(Exception):
    """An error the API reports as a Status: HTTP code, reason, message and causes."""

    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        causes: list[StatusCause] | None = None,
        details: Mapping[str, str] | None = None,
    ):
        self.code = code
        self.reason = reason
        self.message = message
        self.causes = causes or []
        self.details: dict[str, Any] = dict(details or {})
        """Status details besides the causes: group, kind and name of the object."""
        self.empty_details = False
        """Give the Status `details: {}` when it has none (NewGenericServerResponse does)."""
        super().__init__(message)

    def to_status(self) -> Status:
        """This error as a metav1.Status object."""
        from kgen.runtime.apimachinery.meta.v1.models import (
            Status,
            StatusCause as Cause,
            StatusDetails,
        )  # noqa: PLC0415 - the models import the runtime core

        details = StatusDetails(
            causes=[Cause(reason=c.type, message=c.message, field=c.field) for c in self.causes] or None,
            **self.details,
        )
        return Status(
            kind="Status",
            api_version="v1",
            status="Failure",
            message=self.message,
            reason=self.reason,
            code=self.code,
            details=details if self.causes or self.details or self.empty_details else None,
        )


def bad_request(message: str, causes: list[StatusCause] | None = None) -> APIError:
    return APIError(400, "BadRequest", message, causes)
