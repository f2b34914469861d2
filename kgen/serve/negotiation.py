"""Content negotiation: what a request body is, and what the client accepts back.

Bodies are JSON, YAML or `application/vnd.kubernetes.protobuf` (patches have their own
types). Responses are JSON, YAML or protobuf, optionally transformed as the Accept header's
parameters ask: `as=Table;g=meta.k8s.io;v=v1` (what kubectl get asks for),
`as=PartialObjectMetadata` and `as=PartialObjectMetadataList`. The first acceptable entry
of the Accept header wins, as kube-apiserver's negotiation picks; nothing acceptable is 406.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgen.runtime.errors import APIError

JSON = "application/json"
YAML = "application/yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"
SERIALIZERS = (JSON, YAML, PROTOBUF)
_ALIASES = {"application/x-yaml": YAML, "text/yaml": YAML}
META_GROUP = "meta.k8s.io"
TABLE = "Table"
PARTIAL = "PartialObjectMetadata"
PARTIAL_LIST = "PartialObjectMetadataList"


@dataclass(frozen=True, slots=True)
class MediaRange:
    """One entry of an Accept header."""

    type: str
    params: dict[str, str]
    quality: float = 1.0


def parse_accept(header: str) -> list[MediaRange]:
    """The entries of an Accept header, in the client's order, without q=0 entries."""
    ranges = []
    for part in header.split(","):
        pieces = [p.strip() for p in part.split(";")]
        if not pieces[0]:
            continue
        params: dict[str, str] = {}
        for piece in pieces[1:]:
            key, _, value = piece.partition("=")
            params[key.strip().lower()] = value.strip().strip('"')
        try:
            quality = float(params.pop("q", "1"))
        except ValueError:
            quality = 1.0
        if quality <= 0:
            continue
        ranges.append(MediaRange(pieces[0].lower(), params, quality))
    return ranges


@dataclass(frozen=True, slots=True)
class Representation:
    """What a response is written as: a serializer and, maybe, a transformation."""

    media_type: str
    target: str = ""
    """"" (the object itself), Table, PartialObjectMetadata or PartialObjectMetadataList."""
    target_version: str = ""

    @property
    def content_type(self) -> str:
        """The Content-Type header of the response."""
        if self.target:
            return f"{self.media_type};as={self.target};g={META_GROUP};v={self.target_version}"
        return self.media_type


def _serializer(media_type: str, allowed: tuple[str, ...]) -> str | None:
    media_type = _ALIASES.get(media_type, media_type)
    if media_type in ("*/*", "application/*"):
        return allowed[0]
    return media_type if media_type in allowed else None


def negotiate(header: str, *, targets: tuple[str, ...] = (), allowed: tuple[str, ...] = SERIALIZERS) -> Representation:
    """The representation for an Accept header; `targets` are the transformations this
    endpoint can make (Table, PartialObjectMetadata(List)). 406 NotAcceptable otherwise."""
    if not header.strip():
        return Representation(allowed[0])
    for media in parse_accept(header):
        serializer = _serializer(media.type, allowed)
        if serializer is None:
            continue
        target = media.params.get("as", "")
        if not target:
            return Representation(serializer)
        group, version = media.params.get("g", ""), media.params.get("v", "")
        if target in targets and group == META_GROUP and version in ("v1", "v1beta1") and serializer != YAML:
            return Representation(serializer, target, version)
    raise not_acceptable(allowed)


def not_acceptable(allowed: tuple[str, ...] = SERIALIZERS) -> APIError:
    """406 NotAcceptable, in the API server's words."""
    return APIError(406, "NotAcceptable", "only the following media types are accepted: " + ", ".join(allowed))


def body_media_type(content_type: str) -> str:
    """The media type of a request's Content-Type (without parameters), aliases resolved;
    JSON when the header is absent or empty. A header Go's mime.ParseMediaType cannot read
    (`;;;===;;`: no media type) names no type any endpoint reads: it is answered 415, as
    the API server answers it, never taken for JSON."""
    if not content_type.strip():
        return JSON
    media = content_type.split(";", 1)[0].strip().lower()
    if not _MEDIA_TYPE.fullmatch(media):
        return ""
    return _ALIASES.get(media, media)


_TOKEN = r"[!#$%&'*+\-.^_`|~0-9a-z]+"
_MEDIA_TYPE = re.compile(f"{_TOKEN}(/{_TOKEN})?")


def unsupported_media_type(allowed: tuple[str, ...] = SERIALIZERS) -> APIError:
    """415 UnsupportedMediaType for a body of a type the endpoint does not read."""
    message = "the body of the request was in an unknown format - accepted media types include: " + ", ".join(allowed)
    return APIError(415, "UnsupportedMediaType", message)
