"""ConversionReview: custom resources converted between their versions through the hub.

The API server sends a CRD's conversion webhook the objects of one kind that are not in
the version it wants (`desiredAPIVersion`), in `apiextensions.k8s.io/v1` or `v1beta1`
ConversionReviews (apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go,
`createConversionReviewObjects`). Each object goes through the group's hub with the
generated conversions and the hand-written hooks (the Scheme's `to_internal` and
`from_internal`), is neither defaulted nor validated (the API server's comment in
`webhookConverter.Convert`: a conversion webhook should do neither), and comes back in the
desired version, in the order sent. An object already in that version comes back as it is.

Conversions serve reads and writes alike and have no stored object to consult, so hooks
see every feature gate on (`scope.enabled` is always true) and `scope.old` is None: a
field behind a gate is never dropped by a conversion, only by admission.

Lossless round trips: a version that cannot hold everything the hub holds (v1beta1 has no
`width`) would lose those fields when an object stored in v1 is read in v1beta1 and written
back. As cluster-api's conversions do, the webhook keeps what the target version cannot
say in an annotation of the converted object (`<group>/conversion-data`, the object in a
version that holds it all, without metadata) and restores it when the object comes back
through the hub: fields the client changed win, the rest is restored. The API server lets
a conversion change labels and annotations only (`restoreObjectMeta`), which is where it
lives; it is dropped as soon as the object is in a version that needs none.

A failure (an object that does not decode, a kind or version this webhook does not serve,
a hook that raises) answers the whole review with `result.status: Failure` and a message
naming the object, which the API server reports as `conversion webhook for <gvk> failed:
<message>`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from kgen.runtime import gojson
from kgen.runtime.conversion import ConversionError, Scope
from kgen.runtime.errors import APIError
from kgen.runtime.scheme import SCHEME, GroupVersion, GroupVersionKind, Scheme, decoding_error, version_priority
from kgen.webhook.records import Resource, malformed, review_api_version

#: The ConversionReview versions this webhook answers, preferred first (a CRD's
#: `conversionReviewVersions`).
REVIEW_VERSIONS = ("v1", "v1beta1")
REVIEW_GROUP = "apiextensions.k8s.io"

#: The bytes of annotations an object may carry in all (apimachinery's TotalAnnotationSizeLimitB),
#: which the API server checks on the annotations a conversion returns.
ANNOTATIONS_LIMIT = 256 * 1024

_MISSING: Any = object()


class _AllEnabled(dict[str, bool]):
    """Feature gates that are all on."""

    def get(self, key: Any, default: Any = None) -> Any:
        return True


class ConversionFailure(Exception):
    """One object could not be converted; the message names it."""


def annotation_key(group: str) -> str:
    """The annotation that keeps what a version cannot hold: `<group>/conversion-data`."""
    return f"{group}/conversion-data"


def object_name(obj: Mapping[str, Any]) -> str:
    """`namespace/name` (or `name`) of a JSON object, as the messages name it."""
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        return ""
    name, namespace = metadata.get("name") or "", metadata.get("namespace") or ""
    if not isinstance(name, str) or not isinstance(namespace, str):
        return ""
    return f"{namespace}/{name}" if namespace else name


class Converter:
    """The conversion webhook of some kinds registered in a Scheme."""

    def __init__(self, resources: Iterable[Resource], scheme: Scheme = SCHEME, preserve: bool = True):
        self.scheme = scheme
        self.resources = {(r.group, r.kind): r for r in resources}
        self.preserve = preserve
        """Keep what a target version cannot hold in the `<group>/conversion-data` annotation."""
        self.scope = Scope(_AllEnabled())

    # -- the review ------------------------------------------------------------------------

    def review(self, body: Any) -> dict[str, Any]:
        """The ConversionReview answering `body` (a ConversionReview with a request, as
        parsed JSON). A body that is not one raises `ReviewError` (HTTP 400)."""
        api_version, uid, desired, objects = _parse_review(body)
        try:
            target = GroupVersion.parse(desired)
            converted = [self.convert(obj, target, index) for index, obj in enumerate(objects)]
        except ConversionFailure as failure:
            response: dict[str, Any] = {
                "uid": uid,
                "convertedObjects": [],
                "result": {"status": "Failure", "message": str(failure)},
            }
        else:
            response = {"uid": uid, "convertedObjects": converted, "result": {"status": "Success"}}
        return {"apiVersion": api_version, "kind": "ConversionReview", "response": response}

    def convert(self, obj: Any, target: GroupVersion, index: int = 0) -> dict[str, Any]:
        """One object of a review in the `target` version; `ConversionFailure` naming it."""
        if not isinstance(obj, dict):
            raise ConversionFailure(f"request.objects[{index}]: Invalid value: it must be a JSON object")
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str) or not api_version or not kind:
            raise ConversionFailure(
                f"request.objects[{index}]: Required value: the object needs an apiVersion and a kind"
            )
        source = GroupVersion.parse(api_version)
        named = f'{kind} "{object_name(obj)}" ({api_version})'
        if source == target:
            return obj
        if source.group != target.group:
            raise ConversionFailure(
                f"{named} cannot be converted to {target.api_version}: a conversion stays within its group"
            )
        resource = self.resources.get((source.group, kind))
        if resource is None:
            raise ConversionFailure(f"{named} cannot be converted: this webhook converts no {kind} of {source.group}")
        for version in (source.version, target.version):
            if version not in resource.versions:
                raise ConversionFailure(
                    f"{named} cannot be converted to {target.api_version}: {kind} is not served in version {version}"
                    f" (served: {', '.join(resource.versions)})"
                )
        try:
            return self._convert(obj, GroupVersionKind(source.group, source.version, kind), target, resource)
        except ConversionFailure as failure:
            raise ConversionFailure(f"{named} cannot be converted to {target.api_version}: {failure}") from None
        except APIError as error:
            raise ConversionFailure(f"{named} cannot be converted to {target.api_version}: {error.message}") from None
        except ConversionError as error:
            raise ConversionFailure(f"{named} cannot be converted to {target.api_version}: {error}") from None
        except Exception as error:  # noqa: BLE001 - a hook's bug is the review's failure, never a crash
            raise ConversionFailure(
                f"{named} cannot be converted to {target.api_version}: the conversion raised "
                f"{type(error).__name__}: {error}"
            ) from None

    # -- one object ------------------------------------------------------------------------

    def _decode(self, obj: dict[str, Any], gvk: GroupVersionKind) -> Any:
        cls = self.scheme.type_for(gvk)
        try:
            return decode(cls, obj)
        except ValueError as error:
            said = decoding_error(cls, gvk, obj, error)
            if said is None:
                raise
            raise ConversionFailure(said.message) from None

    def _convert(
        self, obj: dict[str, Any], source: GroupVersionKind, target: GroupVersion, resource: Resource
    ) -> dict[str, Any]:
        key = annotation_key(source.group)
        kept, obj = _take_annotation(obj, key) if self.preserve else (None, obj)
        model = self._decode(obj, source)
        hub = self.scheme.to_internal(model, self.scope)
        if kept is not None:
            hub = self._restore(hub, kept, source, resource)
        converted = self.scheme.from_internal(hub, target.api_version, self.scope)
        out: dict[str, Any] = converted.to_dict()
        if self.preserve and self._loses(hub, converted):
            if kept is None:  # the hub is what the object sent says: it holds all of it
                value = orjson.dumps({k: v for k, v in obj.items() if k != "metadata"}).decode()
            else:
                value = self._keep(hub, target, source, resource)
            _put_annotation(out, key, value)
            annotations = out["metadata"]["annotations"]
            size = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items() if isinstance(v, str))
            if size > ANNOTATIONS_LIMIT:  # the API server would refuse the annotations (restoreObjectMeta)
                raise ConversionFailure(
                    f"with what version {target.version} cannot hold ({len(annotations[key]):,} bytes), its annotations "
                    f"take {size:,} bytes, more than the {ANNOTATIONS_LIMIT:,} bytes an object may carry"
                )
        return out

    def _loses(self, hub: Any, converted: Any) -> bool:
        """Whether an object converted from the hub lost something of it (its way back differs
        in what it writes; equal models are the quick answer)."""
        back = self.scheme.to_internal(converted, self.scope)
        return bool(back != hub and back.to_dict() != hub.to_dict())

    def _unrepresented(self, hub: Any, version: GroupVersion) -> bool:
        """Whether `version` cannot hold everything of the hub object."""
        return self._loses(hub, self.scheme.from_internal(hub, version.api_version, self.scope))

    def _keep(self, hub: Any, target: GroupVersion, source: GroupVersionKind, resource: Resource) -> str:
        """The annotation's value for a hub object merged from a kept one: the object in the
        first version that holds all of it (the source version, else the storage version,
        else the others as Kubernetes prefers them), without metadata, as compact JSON."""
        candidates = [source.version, resource.storage, *sorted(resource.versions, key=version_priority)]
        chosen = next(
            (v for v in dict.fromkeys(candidates) if v != target.version and not self._unrepresented(hub, GroupVersion(source.group, v))),
            resource.storage,
        )  # fmt: skip
        data = self.scheme.from_internal(hub, GroupVersion(source.group, chosen).api_version, self.scope).to_dict()
        data.pop("metadata", None)
        return gojson.marshal_struct(data).decode()

    def _restore(self, hub: Any, kept: str, source: GroupVersionKind, resource: Resource) -> Any:
        """The hub object with what the annotation kept and the client left alone restored: a
        three-way merge of the kept object (theirs), what the source version makes of it
        (base) and what the client sent (ours). A kept value that is not an object of a
        served version of the kind is ignored: the object converts with what it says."""
        try:
            data = json.loads(kept)
        except ValueError:
            return hub
        if not isinstance(data, dict) or data.get("kind") != source.kind:
            return hub
        kept_version = GroupVersion.parse(str(data.get("apiVersion", "")))
        if kept_version.group != source.group or kept_version.version not in resource.versions:
            return hub
        try:
            kept_model = self.scheme.type_for(
                GroupVersionKind(source.group, kept_version.version, source.kind)
            ).from_dict(data)
        except ValueError:
            return hub
        theirs = self.scheme.to_internal(kept_model, self.scope)
        base = self.scheme.to_internal(
            self.scheme.from_internal(theirs, source.group_version.api_version, self.scope), self.scope
        )
        ours = hub.to_dict()
        merged = merge(base.to_dict(), theirs.to_dict(), ours)
        if merged == ours:
            return hub
        return type(hub).from_dict(merged)


def decode(cls: type, data: dict[str, Any]) -> Any:
    """Parsed JSON data as a model of `cls`. Written out again and decoded as JSON: the JSON
    decoders are several times faster than validating Python data, and data parsed from JSON
    holds nothing they could refuse that `from_dict` would take (data that does not write as
    JSON goes to `from_dict`, which says what is wrong with it)."""
    try:
        text = orjson.dumps(data)
    except orjson.JSONEncodeError:  # integers beyond 64 bits, which Python's JSON parser reads
        return cls.from_dict(data)  # type: ignore[attr-defined]
    return cls.from_json(text)  # type: ignore[attr-defined]


def merge(base: Any, theirs: Any, ours: Any) -> Any:
    """JSON `ours` with the changes from `base` to `theirs` where `ours` still equals `base`
    (a three-way merge; objects key by key, lists of one length item by item, anything
    else whole; where both changed, ours wins). `_MISSING` stands for an absent key."""
    if theirs == base:
        return ours
    if ours == base:
        return theirs
    if type(base) is dict and type(theirs) is dict and type(ours) is dict:
        merged = dict(ours)
        for key in dict.fromkeys([*base, *theirs]):
            value = merge(base.get(key, _MISSING), theirs.get(key, _MISSING), ours.get(key, _MISSING))
            if value is _MISSING:
                merged.pop(key, None)
            else:
                merged[key] = value
        return merged
    if type(base) is list and type(theirs) is list and type(ours) is list and len(base) == len(theirs) == len(ours):
        return [merge(b, t, o) for b, t, o in zip(base, theirs, ours)]
    return ours


def _take_annotation(obj: dict[str, Any], key: str) -> tuple[str | None, dict[str, Any]]:
    """The kept data of an object and the object without it (a shallow copy when changed)."""
    metadata = obj.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if not isinstance(annotations, dict) or key not in annotations:
        return None, obj
    kept = annotations[key]
    rest = {k: v for k, v in annotations.items() if k != key}
    new_metadata = {k: v for k, v in metadata.items() if k != "annotations"}  # type: ignore[union-attr]
    if rest:
        new_metadata["annotations"] = rest
    return (kept if isinstance(kept, str) else None), {**obj, "metadata": new_metadata}


def _put_annotation(obj: dict[str, Any], key: str, value: str) -> None:
    metadata = obj.setdefault("metadata", {})
    annotations = metadata.get("annotations") or {}
    metadata["annotations"] = {**annotations, key: value}


def _parse_review(body: Any) -> tuple[str, str, str, list[Any]]:
    """The review's apiVersion, uid, desired apiVersion and objects, checked; `ReviewError`
    for anything else."""
    api_version = review_api_version(body, "ConversionReview", REVIEW_GROUP, REVIEW_VERSIONS)
    request = body.get("request")
    if not isinstance(request, dict):
        raise malformed("the ConversionReview has no request")
    uid, desired, objects = request.get("uid"), request.get("desiredAPIVersion"), request.get("objects")
    if not isinstance(uid, str) or not uid:
        raise malformed("request.uid: Required value: the ConversionReview request has no uid")
    if not isinstance(desired, str) or not desired:
        raise malformed("request.desiredAPIVersion: Required value")
    if objects is None:
        objects = []
    if not isinstance(objects, list):
        raise malformed("request.objects: Invalid value: it must be a list of objects")
    return api_version, uid, desired, objects
