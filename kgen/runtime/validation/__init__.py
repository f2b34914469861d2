"""Runtime of generated validators: field errors, options, and the helpers they call.

Generated `validation.py` modules define, per struct type, `check_<Type>(obj, old, path,
options, errors)` (appends to `errors`; `old` is the previous value on update) and the
public entry points `validate_<Type>(obj, path=None, old=None, options=None)`, plus for
kinds `validate_<Kind>(obj, options=None)` and `validate_<Kind>_update(new, old,
options=None)`, which also check the object's metadata.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field as _dataclass_field
from typing import Any

from kgen.runtime.backend import backend_of
from kgen.runtime.validation.cel import Rule
from kgen.runtime.validation.field import (
    FIELD_IMMUTABLE,
    ErrorType,
    FieldError,
    Path,
    PathNode,
    aggregate_message,
    as_path,
    child,
    duplicate,
    forbidden,
    index,
    internal,
    invalid,
    invalid_error,
    key,
    not_supported,
    required,
    too_long,
    too_many,
    type_invalid,
)
from kgen.runtime.validation.formats import FORMATS, VALIDATORS
from kgen.runtime.validation.meta import validate_object_meta, validate_object_meta_update
from kgen.runtime.validation.regexp import Pattern, compile_re2

__all__ = [
    "FIELD_IMMUTABLE",
    "FORMATS",
    "VALIDATORS",
    "ErrorType",
    "FieldError",
    "Options",
    "Path",
    "Pattern",
    "PathNode",
    "Rule",
    "aggregate_message",
    "as_path",
    "check_union",
    "child",
    "compile_re2",
    "duplicate",
    "forbidden",
    "index",
    "internal",
    "invalid",
    "invalid_error",
    "key",
    "keyed",
    "malformed",
    "not_supported",
    "pattern",
    "required",
    "to_json",
    "too_long",
    "too_many",
    "type_invalid",
    "unique_map",
    "unique_set",
    "validate_object_meta",
    "validate_object_meta_update",
]


@dataclass(frozen=True)
class Options:
    """What a validation depends on besides the objects: the feature gates that are on."""

    feature_gates: Mapping[str, bool] = _dataclass_field(default_factory=dict)

    def enabled(self, gate: str) -> bool:
        return bool(self.feature_gates.get(gate, False))


DEFAULT_OPTIONS = Options()


def malformed(path: PathNode, value: Any, expected: str) -> FieldError:
    """The error for a value of the wrong Python type (a model built without validation)."""
    return type_invalid(path, _shown(value), f"must be of type {expected}")


def _shown(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else type(value).__name__


def pattern(expression: str) -> Pattern:
    """A `Pattern` marker's expression, matched as the API server matches it: RE2 (Go's
    regexp), in time linear in the input, whatever the expression."""
    return Pattern(expression)


def to_json(value: Any) -> Any:
    """A value as JSON data (what CEL rules see): models as their JSON objects."""
    to_dict = getattr(value, "to_dict", None)
    if to_dict is not None:
        return to_dict()
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    encode = getattr(value, "to_json_value", None) or getattr(value, "to_json", None)
    if encode is not None:  # value types write what Go writes: "2s", "2020-01-02T03:04:05Z", "500m"
        return encode()
    return str(value)


def unique_set(items: list[Any], path: PathNode, errors: list[FieldError]) -> None:
    """Each repeated item of a set list is a Duplicate at its index."""
    seen: list[Any] = []
    hashed: set[Any] = set()
    for i, item in enumerate(items):
        try:
            if item in hashed:
                errors.append(duplicate(index(path, i), item))
                continue
            hashed.add(item)
        except TypeError:  # unhashable items (structs) compare by value
            if item in seen:
                errors.append(duplicate(index(path, i), item))
                continue
            seen.append(item)


def unique_map(
    items: list[Any],
    key_of: Callable[[Any], tuple[Any, ...]],
    names: tuple[str, ...],
    path: PathNode,
    errors: list[FieldError],
) -> None:
    """Each item of a map list whose keys repeat an earlier item's is a Duplicate at its index."""
    seen: set[tuple[Any, ...]] = set()
    for i, item in enumerate(items):
        if item is None:
            continue
        item_key = key_of(item)
        if item_key in seen:
            shown = item_key[0] if len(item_key) == 1 else dict(zip(names, item_key))
            errors.append(duplicate(index(path, i), shown))
        seen.add(item_key)


def keyed(items: list[Any] | None, key_of: Callable[[Any], tuple[Any, ...]]) -> dict[tuple[Any, ...], Any]:
    """The items of an old map list by key: how an item is matched with its previous value."""
    if not items:
        return {}
    return {key_of(item): item for item in items if item is not None}


def check_union(
    path: PathNode,
    errors: list[FieldError],
    members: Iterable[tuple[str, str, object]],
    mode: str = "exactlyOne",
    discriminator: tuple[str, Any] | None = None,
    kubebuilder: bool = False,
) -> None:
    """Union rules of validation-gen (or controller-gen's one-of rules when `kubebuilder`).

    `members` are (JSON name, member name, is set), where "is set" is any value taken as
    true or false. With a discriminator (JSON name, value), the member it names must be
    set and the others must not be; a `zeroOrOne` union (`+unionDeprecated`) whose
    discriminator is empty falls back to "at most one".
    """
    members = list(members)
    names = ", ".join(f"`{json_name}`" for json_name, _, _ in members)
    set_fields = [json_name for json_name, _, is_set in members if is_set]
    if discriminator is not None and not (mode == "zeroOrOne" and discriminator[1] in ("", None)):
        discriminator_name, value = discriminator
        for json_name, member_name, is_set in members:
            if value == member_name and not is_set:
                errors.append(
                    invalid(
                        child(path, json_name),
                        "",
                        f'must be specified when `{discriminator_name}` is "{member_name}"',
                        "union",
                    )
                )
            elif value != member_name and is_set:
                errors.append(
                    invalid(
                        child(path, json_name),
                        "",
                        f'may only be specified when `{discriminator_name}` is "{member_name}"',
                        "union",
                    )
                )
        return
    if kubebuilder:
        listed = "[" + " ".join(json_name for json_name, _, _ in members) + "]"
        if mode == "exactlyOne" and len(set_fields) != 1:
            errors.append(invalid(path, "object", f"exactly one of the fields in {listed} must be set", "union"))
        elif mode == "zeroOrOne" and len(set_fields) > 1:
            errors.append(invalid(path, "object", f"at most one of the fields in {listed} may be set", "union"))
        elif mode == "atLeastOne" and not set_fields:
            errors.append(invalid(path, "object", f"at least one of the fields in {listed} must be set", "union"))
        return
    if not set_fields and mode in ("exactlyOne", "atLeastOne"):
        errors.append(invalid(path, "", f"must specify one of: {names}", "union"))
    elif len(set_fields) > 1 and mode in ("exactlyOne", "zeroOrOne"):
        quantity = "exactly" if mode == "exactlyOne" else "at most"
        errors.append(
            invalid(path, "{" + ", ".join(set_fields) + "}", f"must specify {quantity} one of: {names}", "union")
        )


def is_zero(value: Any) -> bool:
    """Whether a struct value is its zero value (every field unset), for either model backend."""
    if value is None:
        return True
    backend = backend_of(value)
    assert backend is not None, f"{type(value).__name__} is no model"
    return backend.is_zero(value)
