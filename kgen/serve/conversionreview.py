"""Converting custom resources through a CRD's conversion webhook, as the apiextensions-apiserver
does when a CRD's `spec.conversion.strategy` is `Webhook`.

Objects not already in the desired version go in one `ConversionReview` (v1, or v1beta1 when
the CRD lists only that among its `conversionReviewVersions`), with a fresh `uid` and the
`desiredAPIVersion`. The answer must be a ConversionReview of the same version, for that uid,
with `result.status` Success and one converted object per object sent, each of the desired
group/version and of the same kind, name, namespace and uid. The converted object keeps the
original's metadata, but for the labels and annotations the webhook set, which must be valid.
Any failure is a 500 InternalError whose message names the kind and what went wrong, as a
cluster's is.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Mapping
from typing import Any

from kgen.runtime.errors import APIError, StatusCause
from kgen.serve.webhooks import WebhookCaller, WebhookError

__all__ = ["REVIEW_VERSIONS", "TIMEOUT_SECONDS", "convert"]

REVIEW_VERSIONS = ("v1", "v1beta1")
"""The ConversionReview versions kgen serve speaks."""
TIMEOUT_SECONDS = 30.0
"""How long a conversion webhook may take (the API server's fixed timeout)."""


def internal_error(message: str) -> APIError:
    """A 500 InternalError as apimachinery's NewInternalError makes one."""
    return APIError(500, "InternalError", f"Internal error occurred: {message}", [StatusCause("", message)])


def convert(
    caller: WebhookCaller,
    conversion: Mapping[str, Any],
    objects: list[dict[str, Any]],
    desired_api_version: str,
    kind: str,
) -> list[dict[str, Any]]:
    """`objects` in `desired_api_version`, converted by the CRD's webhook (`conversion` is its
    `spec.conversion`); objects already in that version are not sent."""
    pending = [i for i, obj in enumerate(objects) if obj.get("apiVersion") != desired_api_version]
    if not pending:
        return objects
    label = f"{objects[pending[0]].get('apiVersion', '')}, Kind={kind}"
    try:
        converted = _review(caller, conversion, [objects[i] for i in pending], desired_api_version)
    except WebhookError as error:
        raise internal_error(f"conversion webhook for {label} failed: {error}") from None
    if len(converted) != len(pending):
        raise internal_error(
            f"conversion webhook for {label} returned {len(converted)} objects, expected {len(pending)}"
        )
    result = list(objects)
    single = len(objects) == 1
    for position, (index, out) in enumerate(zip(pending, converted)):
        original = objects[index]
        where = "" if single else f" at index {position}"
        if not isinstance(out, dict):
            raise internal_error(
                f"conversion webhook for {label} returned invalid converted object{where}: not an object"
            )
        problem = _mismatch(original, out, desired_api_version)
        if problem:
            raise internal_error(f"conversion webhook for {label} returned invalid {_object(single)}{where}: {problem}")
        try:
            result[index] = _restore_metadata(original, out)
        except ValueError as error:
            raise internal_error(
                f"conversion webhook for {label} returned invalid metadata{where and ' in object' + where}: {error}"
            ) from None
    return result


def _object(single: bool) -> str:
    return "object" if single else "converted object"


def _review(
    caller: WebhookCaller, conversion: Mapping[str, Any], objects: list[dict[str, Any]], desired_api_version: str
) -> list[Any]:
    webhook = conversion.get("webhook") or {}
    offered = list(webhook.get("conversionReviewVersions") or ["v1"])
    version = next((v for v in offered if v in REVIEW_VERSIONS), None)
    if version is None:
        raise WebhookError("no supported conversion review versions")
    request_uid = str(uuid.uuid4())
    review = {
        "apiVersion": f"apiextensions.k8s.io/{version}",
        "kind": "ConversionReview",
        "request": {"uid": request_uid, "desiredAPIVersion": desired_api_version, "objects": objects},
    }
    answer = caller.post(webhook.get("clientConfig") or {}, review, TIMEOUT_SECONDS)
    if version == "v1":  # v1beta1 answers were never checked for kind and uid
        expected = "apiextensions.k8s.io/v1, Kind=ConversionReview"
        got = f"{answer.get('apiVersion', '')}, Kind={answer.get('kind', '')}"
        if got != expected:
            raise WebhookError(f"expected webhook response of {expected}, got {got}")
    response = answer.get("response")
    if not isinstance(response, dict):
        raise WebhookError("no response provided")
    if version == "v1" and response.get("uid") != request_uid:
        raise WebhookError(f'expected response.uid="{request_uid}", got "{response.get("uid", "")}"')
    result = response.get("result") or {}
    if result.get("status") != "Success":
        if result.get("message"):
            raise WebhookError(str(result["message"]))
        raise WebhookError(f"response.result.status was '{result.get('status', '')}', not 'Success'")
    converted = response.get("convertedObjects") or []
    if not isinstance(converted, list):
        raise WebhookError("response.convertedObjects is not a list")
    return converted


def _mismatch(original: dict[str, Any], converted: dict[str, Any], desired_api_version: str) -> str:
    """Why a converted object cannot stand for the original, or ""."""
    got = converted.get("apiVersion", "")
    if got != desired_api_version:
        return f"invalid groupVersion (expected {desired_api_version}, received {got})"
    if converted.get("kind") != original.get("kind"):
        return f"invalid kind (expected {original.get('kind')}, received {converted.get('kind')})"
    before, after = original.get("metadata") or {}, converted.get("metadata") or {}
    for name, what in (("name", "name"), ("namespace", "namespace"), ("uid", "UID")):
        if (before.get(name) or "") != ((after.get(name) if isinstance(after, dict) else "") or ""):
            return f"must have the same {what}: {before.get(name) or ''} != {after.get(name) or ''}"
    return ""


def _restore_metadata(original: dict[str, Any], converted: dict[str, Any]) -> dict[str, Any]:
    """`converted` with the original's metadata, but for the labels and annotations it set."""
    from kgen.runtime.validation import field
    from kgen.runtime.validation.meta import validate_annotations, validate_labels

    answered = converted.get("metadata")
    if answered is None:
        raise ValueError("missing metadata in converted object")
    if not isinstance(answered, dict):
        raise ValueError(f"invalid metadata of type {type(answered).__name__} in converted object")
    metadata = copy.deepcopy(original.get("metadata") or {})
    for name in ("labels", "annotations"):
        given = answered.get(name)
        if given is None:
            metadata.pop(name, None)
            continue
        if not isinstance(given, dict):
            raise ValueError(f"invalid metadata.{name} of type {type(given).__name__} in converted object")
        for key, value in given.items():
            if not isinstance(value, str):
                raise ValueError(
                    f"metadata.{name}[{key}] must be a string, but is {type(value).__name__} in converted object"
                )
        if given != (metadata.get(name) or {}):
            errors: list[Any] = []
            check = validate_labels if name == "labels" else validate_annotations
            check(given, field.child(None, "metadata", "labels" if name == "labels" else "annotation"), errors)
            if errors:
                raise ValueError("[" + ", ".join(map(str, errors)) + "]" if len(errors) > 1 else str(errors[0]))
        metadata[name] = given
    return {**converted, "metadata": metadata}
