"""The Scheme: kinds by GroupVersionKind, their defaulters, conversions and storage version.

Generated `register.py` modules add each group/version to `SCHEME` (the process-wide
scheme, as client-go has one) when their package is imported; tests and servers can
build their own `Scheme()` and call `add_to_scheme(scheme)` of each package.

The request flow of the API change guide: `decode` reads apiVersion/kind, decodes with
field validation (Strict, Warn or Ignore) and applies defaults; `convert` goes through
the internal version; `encode` writes any served version. Errors are `APIError`
values with `to_status()`, the API's Status kind.
"""

from __future__ import annotations

import enum
import itertools
import json
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any


from kgen.runtime import yamlio
from kgen.runtime.conversion import DEFAULT_SCOPE, Scope
from kgen.runtime.errors import APIError, StatusCause, bad_request
from kgen.runtime.backend import backend_of

if TYPE_CHECKING:
    from kgen.runtime.validation.field import FieldError

__all__ = [
    "INTERNAL_VERSION", "MAX_DOCUMENT_DEPTH", "MAX_REQUEST_BODY_BYTES", "SCHEME", "APIError", "DecodeResult",
    "DecodeError", "FieldValidation", "GroupVersion", "GroupVersionKind", "GroupVersionResource", "Scheme",
    "StatusCause", "bad_request", "cannot_handle", "decoding_error",
    "load_all", "version_priority",
]  # fmt: skip

INTERNAL_VERSION = "__internal"

#: The API server's default limit on a request body (its MaxRequestBodyBytes, 3 MiB).
MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024

#: How deep a request body may nest. Go reads 10,000 levels; Python's JSON parser recurses,
#: and how far it gets depends on the interpreter (3.11 stops near 1,000, 3.12 goes further),
#: so the limit is set here, the same on every Python.
MAX_DOCUMENT_DEPTH = 512

_KUBE_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


def version_priority(version: str) -> tuple[int, int, int, str]:
    """A sort key that orders versions as Kubernetes prefers them (apimachinery's
    CompareKubeAwareVersionStrings): GA before beta before alpha, higher numbers first,
    versions of another form last, alphabetically. `sorted(versions, key=version_priority)`
    puts the preferred version first."""
    match = _KUBE_VERSION.match(version)
    if match is None:
        return (3, 0, 0, version)
    major, stage, minor = int(match.group(1)), match.group(2), int(match.group(3) or 0)
    rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (rank, -major, -minor, version)


class FieldValidation(str, enum.Enum):
    """What to do with unknown and duplicate fields (the API server's fieldValidation)."""

    STRICT = "Strict"
    WARN = "Warn"
    IGNORE = "Ignore"


@dataclass(frozen=True, order=True)
class GroupVersion:
    group: str
    version: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @classmethod
    def parse(cls, api_version: str) -> GroupVersion:
        group, _, version = api_version.rpartition("/")
        return cls(group, version)


@dataclass(frozen=True, order=True)
class GroupVersionKind:
    group: str
    version: str
    kind: str

    @property
    def group_version(self) -> GroupVersion:
        return GroupVersion(self.group, self.version)

    def __str__(self) -> str:
        return f"{self.group_version.api_version}, Kind={self.kind}"

    def as_dict(self) -> dict[str, str]:
        """As metav1.GroupVersionKind is written in JSON (an AdmissionRequest's kind)."""
        return {"group": self.group, "version": self.version, "kind": self.kind}


@dataclass(frozen=True, order=True)
class GroupVersionResource:
    """A resource (its plural) of a group and version, as the API's paths name it."""

    group: str
    version: str
    resource: str

    def as_dict(self) -> dict[str, str]:
        """As metav1.GroupVersionResource is written in JSON (an AdmissionRequest's resource)."""
        return {"group": self.group, "version": self.version, "resource": self.resource}


@dataclass
class DecodeResult:
    """A decoded, defaulted object and the warnings decoding produced (Warn mode)."""

    object: Any
    gvk: GroupVersionKind
    warnings: list[str] = field(default_factory=list)


class Scheme:
    """Registered kinds and how to default and convert them."""

    def __init__(self) -> None:
        self._types: dict[GroupVersionKind, type[Any]] = {}
        self._kinds: dict[type, GroupVersionKind] = {}
        self._defaulters: dict[type, Callable[[Any], None]] = {}
        self._to_internal: dict[type, Callable[..., Any]] = {}
        self._from_internal: dict[tuple[type, GroupVersion], Callable[..., Any]] = {}
        self._pending_from_internal: list[tuple[GroupVersion, Mapping[type, Callable[..., Any]]]] = []
        self._storage: dict[tuple[str, str], str] = {}
        self._validators: dict[type, Callable[..., Any]] = {}

    # -- registration (called by generated register.py modules) ---------------------

    def add_kinds(
        self, group_version: GroupVersion, kinds: Mapping[str, type[Any]], storage: tuple[str, ...] = ()
    ) -> None:
        for kind, cls in kinds.items():
            gvk = GroupVersionKind(group_version.group, group_version.version, kind)
            self._types[gvk] = cls
            self._kinds[cls] = gvk
        for kind in storage:
            self._storage[(group_version.group, kind)] = group_version.version

    def add_defaulters(self, defaulters: Mapping[type, Callable[[Any], None]]) -> None:
        self._defaulters.update(defaulters)

    def add_validators(self, validators: Mapping[type, Callable[..., Any]]) -> None:
        self._validators.update(validators)

    def add_conversions(
        self,
        group_version: GroupVersion,
        to_internal: Mapping[type, Callable[..., Any]],
        from_internal: Mapping[type, Callable[..., Any]],
    ) -> None:
        """Converters into the hub by external class, and out of it by hub class. The second
        table is read when a conversion is first looked up, not now: it may name the classes
        of a version that is still importing (`LazyMapping`)."""
        self._to_internal.update(to_internal)
        self._pending_from_internal.append((group_version, from_internal))

    def _resolve_pending(self) -> None:
        while self._pending_from_internal:
            group_version, from_internal = self._pending_from_internal.pop(0)
            for internal_cls, function in from_internal.items():
                self._from_internal[(internal_cls, group_version)] = function

    def add_hub(self, group_version: GroupVersion, kinds: Mapping[str, type[Any]]) -> None:
        """Make a served version the hub of these kinds (conversion-gen's versioned target,
        kubebuilder's storage-version hub): they are the group's internal form as they are."""

        def same(obj: Any, scope: Scope = DEFAULT_SCOPE) -> Any:
            return obj.deep_copy()

        for cls in kinds.values():
            self._to_internal[cls] = same
            self._from_internal[(cls, group_version)] = same

    # -- lookups --------------------------------------------------------------------------

    def kind_of(self, obj_or_cls: Any) -> GroupVersionKind:
        cls = obj_or_cls if isinstance(obj_or_cls, type) else type(obj_or_cls)
        try:
            return self._kinds[cls]
        except KeyError:
            raise APIError(500, "InternalError", f"{cls.__name__} is not registered in the scheme") from None

    def type_for(self, gvk: GroupVersionKind) -> type[Any]:
        try:
            return self._types[gvk]
        except KeyError:
            raise bad_request(
                f'no kind "{gvk.kind}" is registered for version "{gvk.group_version.api_version}" in the scheme'
            ) from None

    def storage_version(self, group: str, kind: str) -> GroupVersion:
        try:
            return GroupVersion(group, self._storage[(group, kind)])
        except KeyError:
            raise APIError(500, "InternalError", f"no storage version is registered for {kind} in {group}") from None

    def served_versions(self, group: str, kind: str) -> list[GroupVersion]:
        return sorted(
            gvk.group_version
            for gvk in self._types
            if gvk.group == group and gvk.kind == kind and gvk.version != INTERNAL_VERSION
        )

    # -- the request flow -------------------------------------------------------------------

    def default(self, obj: Any) -> Any:
        """Apply the object's defaulter, if it has one; returns the object."""
        defaulter = self._defaulters.get(type(obj))
        if defaulter is not None:
            defaulter(obj)
        return obj

    def validate(self, obj: Any, old: Any = None, options: Any = None) -> list[FieldError]:
        """The validation errors of an object being created (or updated from `old`); [] when valid.

        `options` is a `kgen.runtime.validation.Options` (the feature gates validation sees).
        Kinds without generated validation have no errors.
        """
        validator = self._validators.get(type(obj))
        if validator is None:
            return []
        errors: list[FieldError] = validator(obj, None, old, options)
        return errors

    def validate_served(
        self, obj: Any, old: Any = None, options: Any = None, scope: Scope = DEFAULT_SCOPE
    ) -> list[FieldError]:
        """The validation errors of an object of a served version (and of the update from
        `old`, in the same version) as the API server's typed flow finds them: the internal
        version's validation (hand-written rules, metadata) of the object converted with
        `scope`, then the version's own declarative validation, each error once. A kind
        without a hub has only its own."""
        if not self.converts(obj) or self.kind_of(obj).version == INTERNAL_VERSION:
            return self.validate(obj, old, options)
        internal = self.to_internal(obj, scope)
        old_internal = self.to_internal(old, scope) if old is not None else None
        errors = self.validate(internal, old_internal, options) + self.validate(obj, old, options)
        unique: dict[str, FieldError] = {}
        for error in errors:
            unique.setdefault(str(error), error)
        return list(unique.values())

    def check_valid(self, obj: Any, old: Any = None, options: Any = None) -> Any:
        """The object, or the API server's 422 `Invalid` error listing every validation error."""
        errors = self.validate(obj, old, options)
        if errors:
            from kgen.runtime.validation.field import invalid_error

            gvk = self.kind_of(obj)
            name = getattr(getattr(obj, "metadata", None), "name", "") or ""
            raise invalid_error(gvk.group, gvk.kind, name, errors)
        return obj

    def decode(
        self,
        data: bytes | str,
        field_validation: FieldValidation | str = FieldValidation.STRICT,
        default: bool = True,
        max_bytes: int | None = MAX_REQUEST_BODY_BYTES,
        defaults: GroupVersionKind | None = None,
    ) -> DecodeResult:
        """Decode a serialized object of any registered kind, check its fields, default it.

        Raises only `APIError`: 413 RequestEntityTooLarge for data longer than `max_bytes`
        (the API server's default request body limit; None for no limit), else 400 BadRequest
        for anything that is not a valid object of a registered kind: not JSON (NaN and
        Infinity are not JSON), nested deeper than `MAX_DOCUMENT_DEPTH`,
        strict field errors, values of the wrong type or out of range (causes name their
        fields, `spec.ports[0].port`, on pydantic models and msgspec structs alike).

        `defaults` is what the request's path says the object is: an apiVersion or kind the
        data leaves out is taken from it, as the API server's decoder fills them."""
        mode = FieldValidation(field_validation)
        if isinstance(data, str):
            raw = data.encode("utf-8", "surrogatepass")  # a lone surrogate is then invalid UTF-8
        elif isinstance(data, (bytes, bytearray, memoryview)):
            raw = bytes(data)
        else:
            raise bad_request(f"the object must be JSON text (str or bytes), not {type(data).__name__}")
        if max_bytes is not None and len(raw) > max_bytes:
            raise APIError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {max_bytes}")
        try:
            document = json.loads(raw, object_pairs_hook=_PairsDict, parse_constant=_not_json)
        except ValueError as err:  # JSONDecodeError, UnicodeDecodeError, integers Python does not read
            problem = "a number has more than 4300 digits" if "integer string conversion" in str(err) else err
            raise bad_request(f"invalid JSON: {problem}") from None
        except RecursionError:  # the standard library's parser recurses; the limit is far below it
            raise bad_request(f"invalid JSON: nested more than {MAX_DOCUMENT_DEPTH} levels deep") from None
        if not isinstance(document, dict):
            raise bad_request("the object must be a JSON object")
        if text_nested_deeper_than(raw):
            raise bad_request(f"invalid JSON: nested more than {MAX_DOCUMENT_DEPTH} levels deep")
        api_version, kind = document.get("apiVersion"), document.get("kind")
        if defaults is not None:
            api_version = api_version or defaults.group_version.api_version
            kind = kind or defaults.kind
        if not isinstance(kind, str) or not kind:
            raise bad_request(f"Object 'Kind' is missing in '{_excerpt(raw)}'")
        if not isinstance(api_version, str) or not api_version:
            raise bad_request(f"Object 'apiVersion' is missing in '{_excerpt(raw)}'")
        group_version = GroupVersion.parse(api_version)
        gvk = GroupVersionKind(group_version.group, group_version.version, kind)
        cls = self.type_for(gvk)
        warnings: list[str] = []
        if mode is not FieldValidation.IGNORE:
            problems = field_problems(cls, document)
            if problems and mode is FieldValidation.STRICT:
                raise cannot_handle(
                    kind,
                    group_version.version,
                    "strict decoding error: " + ", ".join(problems),
                    [StatusCause("FieldValueInvalid", p) for p in problems],
                )
            warnings = problems
        try:
            obj = cls.from_json(raw)
        except ValueError as err:  # pydantic's ValidationError and msgspec's DecodeError are ValueErrors
            said = decoding_error(cls, gvk, document, err)
            if said is None:
                raise
            raise said from None
        if default:
            self.default(obj)
        return DecodeResult(obj, gvk, warnings)

    def converts(self, obj_or_cls: Any) -> bool:
        """Whether the kind of this object (or class) converts through a hub: an internal
        version, or a served version registered as the hub (`add_hub`). A kind served in
        one version without either is its own internal form."""
        cls = obj_or_cls if isinstance(obj_or_cls, type) else type(obj_or_cls)
        return cls in self._to_internal or self.kind_of(cls).version == INTERNAL_VERSION

    def from_internal(self, internal: Any, api_version: str, scope: Scope = DEFAULT_SCOPE) -> Any:
        """An object of the internal version (what `to_internal` returned) in a served
        version of its group; `internal` itself is not copied first, nor changed."""
        source = self.kind_of(internal)
        target = GroupVersion.parse(api_version)
        if target.version == source.version:
            return internal.deep_copy()
        return self._out_of_internal(internal, source.kind, target, api_version, scope)

    def to_internal(self, obj: Any, scope: Scope = DEFAULT_SCOPE) -> Any:
        """The object in its group's internal version."""
        gvk = self.kind_of(obj)
        if gvk.version == INTERNAL_VERSION:
            return obj.deep_copy()
        try:
            return self._to_internal[type(obj)](obj, scope)
        except KeyError:
            raise APIError(500, "InternalError", f"no conversion from {gvk} to the internal version") from None

    def convert(self, obj: Any, api_version: str, scope: Scope = DEFAULT_SCOPE) -> Any:
        """The object in another version of its group, through the internal version."""
        source = self.kind_of(obj)
        target = GroupVersion.parse(api_version)
        if target.group != source.group:
            raise bad_request(f"cannot convert {source} to {api_version}: a different group")
        if target.version == source.version:
            return obj.deep_copy()
        internal = self.to_internal(obj, scope)
        if target.version == INTERNAL_VERSION:
            return internal
        return self._out_of_internal(internal, source.kind, target, api_version, scope)

    def _out_of_internal(self, internal: Any, kind: str, target: GroupVersion, api_version: str, scope: Scope) -> Any:
        """An internal object of `kind` converted to `target` (`api_version` as the caller
        gave it); 400 when the kind is not served there."""
        if self._pending_from_internal:
            self._resolve_pending()
        try:
            convert = self._from_internal[(type(internal), target)]
        except KeyError:
            raise bad_request(f"{kind} is not served in version {api_version}") from None
        return convert(internal, scope)

    def encode(self, obj: Any, api_version: str | None = None) -> bytes:
        """The object as JSON, in `api_version` (internal objects need one: never served as is)."""
        gvk = self.kind_of(obj)
        if api_version is None and gvk.version == INTERNAL_VERSION:
            raise APIError(500, "InternalError", f"{gvk.kind} is internal: encode it in a served version")
        if api_version is not None and GroupVersion.parse(api_version) != gvk.group_version:
            obj = self.convert(obj, api_version)
        data: bytes = obj.to_json()
        return data


class DecodeError(APIError):
    """A body the decoder refused; `problem` is the decoder's own words, which a create or
    update wraps as `cannot_handle` does and a patch reports at `patch`."""

    def __init__(self, message: str, problem: str, causes: list[StatusCause] | None = None):
        super().__init__(400, "BadRequest", message, causes)
        self.problem = problem


def cannot_handle(kind: str, version: str, problem: str, causes: list[StatusCause] | None = None) -> DecodeError:
    """The 400 the API server answers for a body its decoder refused:
    `<Kind> in version "<version>" cannot be handled as a <Kind>: <problem>`
    (endpoints/handlers/rest.go transformDecodeError)."""
    return DecodeError(f'{kind} in version "{version}" cannot be handled as a {kind}: {problem}', problem, causes)


SCHEME = Scheme()
"""The process-wide scheme that generated packages register themselves in when imported."""


def decoding_error(cls: type, gvk: GroupVersionKind, document: Any, error: Exception) -> APIError | None:
    """The API server's 400 for data a model's decoder refused (`Frobber in version "v1"
    cannot be handled as a Frobber: spec.replicas: ...`, one cause per field), or None when
    `error` is not one of the model backend's decoding errors."""
    backend = backend_of(cls)
    said = backend.decode_problems(cls, document, error) if backend is not None else None
    if said is None:
        return None
    causes = [StatusCause("FieldValueInvalid", message, field) for message, field in said]
    problem = "; ".join(f"{c.field}: {c.message}" if c.field else c.message for c in causes)
    return cannot_handle(gvk.kind, gvk.version, problem, causes)


# -- strict field validation --------------------------------------------------------------


class _PairsDict(dict[str, Any]):
    """A JSON object that remembers keys given more than once."""

    def __init__(self, pairs: list[tuple[str, Any]]):
        super().__init__(pairs)
        seen: set[str] = set()
        self.duplicates: list[str] = []
        for key, _ in pairs:
            if key in seen:
                self.duplicates.append(key)
            else:
                seen.add(key)


def parse_json_with_duplicates(raw: bytes | str) -> tuple[Any, list[str]]:
    """JSON text as plain data, and `duplicate field "<path>"` for each key it gives twice, in
    document order, as the API server words them."""
    repeated: dict[int, list[str]] = {}

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) != len(items):
            seen: set[str] = set()
            twice = repeated[id(obj)] = []
            for key, _ in items:
                if key in seen:
                    twice.append(key)
                seen.add(key)
        return obj

    document = json.loads(raw, object_pairs_hook=pairs, parse_constant=_not_json)
    if not repeated:
        return document, []
    problems: list[str] = []
    stack: list[tuple[Any, Any]] = [(document, None)]
    while stack:
        value, path = stack.pop()
        if type(value) is dict:
            for key in repeated.get(id(value), ()):
                problems.append(f'duplicate field "{_path_text((path, key, False))}"')
            stack.extend((item, (path, key, False)) for key, item in reversed(list(value.items())))
        elif type(value) is list:
            stack.extend((item, (path, index, True)) for index, item in reversed(list(enumerate(value))))
    return document, problems


def field_problems(cls: type, document: Any) -> list[str]:
    """Unknown and duplicate fields of a decoded JSON document, as the API server words them,
    in document order. The walk keeps its own stack: nesting costs no Python recursion."""
    problems: list[str] = []
    # Entries are (shape, value, path) to walk, or a problem to report when reached, so
    # that problems come out in the order a recursive walk finds them. Paths are linked
    # (parent, key, index?) tuples, written out only for a problem.
    stack: list[Any] = [(_shape(cls), document, None)]
    while stack:
        entry = stack.pop()
        if type(entry) is str:
            problems.append(entry)
            continue
        (kind, argument), value, path = entry
        if kind is _MODEL:
            if not isinstance(value, dict):
                continue
            for key in dict.fromkeys(getattr(value, "duplicates", ())):
                problems.append(f'duplicate field "{_path_text((path, key, False))}"')
            backend = backend_of(argument)
            assert backend is not None  # a model's shape is only given to model classes
            fields = backend.json_fields(argument)
            children: list[Any] = []
            for key, item in value.items():
                field_annotation = fields.get(key)
                if field_annotation is None:
                    children.append(f'unknown field "{_path_text((path, key, False))}"')
                else:
                    shape = _shape(field_annotation)
                    if shape[0] is not _LEAF:
                        children.append((shape, item, (path, key, False)))
            stack.extend(reversed(children))
        elif kind is _UNION:
            stack.extend((option, value, path) for option in reversed(argument))
        elif kind is _LIST:
            if isinstance(value, list):
                stack.extend((argument, value[index], (path, index, True)) for index in range(len(value) - 1, -1, -1))
        elif kind is _MAP:
            if isinstance(value, dict):
                for key in dict.fromkeys(getattr(value, "duplicates", ())):
                    problems.append(f'duplicate field "{_path_text((path, key, True))}"')
                stack.extend((argument, item, (path, key, True)) for key, item in reversed(value.items()))
        elif kind is _MAP_OF_LEAVES:
            for key in dict.fromkeys(getattr(value, "duplicates", ())):
                problems.append(f'duplicate field "{_path_text((path, key, True))}"')
    return problems


def _path_text(path: Any) -> str:
    """`spec.ports[1].name` from a linked path of the field walk."""
    parts: list[str] = []
    while path is not None:
        path, key, indexed = path
        parts.append(f"[{key}]" if indexed else (f".{key}" if path is not None else key))
    return "".join(reversed(parts))


_MODEL, _UNION, _LIST, _MAP, _MAP_OF_LEAVES, _LEAF = "model", "union", "list", "map", "map of leaves", "leaf"
_SHAPES: dict[Any, tuple[str, Any]] = {}


def _shape(annotation: Any) -> tuple[str, Any]:
    """What the field walk does with a value of this annotation, and with what: a model's
    class, a union's options, a list's or map's item annotation (cached: the walk is hot)."""
    try:
        return _SHAPES[annotation]
    except KeyError:
        shape = _SHAPES[annotation] = _compute_shape(annotation)
        return shape
    except TypeError:  # an unhashable annotation
        return _compute_shape(annotation)


def _compute_shape(annotation: Any) -> tuple[str, Any]:
    """Shapes of unions, lists and maps hold the shapes of what they hold; leaves are skipped."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _shape(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        options = tuple(_shape(option) for option in typing.get_args(annotation) if option is not type(None))
        options = tuple(option for option in options if option[0] is not _LEAF)
        return (_UNION, options) if options else (_LEAF, None)
    if origin is list:
        item = _shape(typing.get_args(annotation)[0])
        return (_LIST, item) if item[0] is not _LEAF else (_LEAF, None)
    if origin is dict:
        item = _shape(typing.get_args(annotation)[1])
        return (_MAP, item) if item[0] is not _LEAF else (_MAP_OF_LEAVES, None)
    if isinstance(annotation, type) and backend_of(annotation) is not None:
        return (_MODEL, annotation)
    return (_LEAF, None)


def _excerpt(raw: bytes) -> str:
    text = raw[:400].decode("utf-8", "replace")
    return text if len(text) <= 80 else text[:77] + "..."


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_DEPTH_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def text_nested_deeper_than(raw: bytes, limit: int = MAX_DOCUMENT_DEPTH) -> bool:
    """Whether JSON text nests lists and objects more than `limit` deep, found without
    parsing it (Python's parser recurses, and gives up at an interpreter-dependent depth):
    strings taken out, the brackets left summed. Linear in the text; text with no more
    than `limit` brackets is answered at once."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    brackets = _JSON_STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    return max(itertools.accumulate(_DEPTH_STEP[b] for b in brackets), default=0) > limit


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON (Go refuses it too)")


def load_all(
    text: str | bytes,
    scheme: Scheme = SCHEME,
    field_validation: FieldValidation | str = FieldValidation.STRICT,
    default: bool = True,
    max_bytes: int | None = MAX_REQUEST_BODY_BYTES,
) -> list[Any]:
    """Decode each document of a YAML stream into the kind its apiVersion and kind name,
    through `scheme`, as the API server decodes a YAML body: converted to JSON, then
    `Scheme.decode` with `field_validation` and `default`. Empty documents are skipped,
    as kubectl skips them.

    Raises only `APIError`: 413 RequestEntityTooLarge for a document longer than
    `max_bytes` (the API server's request body limit; None for none), 400 BadRequest for
    text that is not YAML or has no JSON form, and every error `Scheme.decode` reports."""
    objects: list[Any] = []
    documents = yamlio.to_json_documents(text, max_document_bytes=max_bytes)
    while True:
        try:
            document = next(documents, None)
        except yamlio.DocumentTooLarge:
            raise APIError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {max_bytes}") from None
        except yamlio.YAMLError as err:
            raise bad_request(f"error converting YAML to JSON: {err}") from None
        if document is None:
            return objects
        if document != b"null":
            objects.append(scheme.decode(document, field_validation, default, max_bytes=None).object)
