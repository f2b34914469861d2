"""Examples of what a change breaks, checked with kgen's structural schema engine.

For a schema change, `Examples.explain` looks for a value of the changed node that the old
schema accepts and the new one refuses (`kgen.compat.samples` proposes them), puts it into
the smallest object the old schema accepts (`apiVersion`, `kind`, `metadata.name` and the
required fields), and checks the whole object as the API server checks a custom resource
(`kgen.runtime.structural`: defaulting, OpenAPI validation, list types, CEL rules): valid
before, refused after, with the errors the new schema gives at the changed path. Other
changes get the object that shows them: a removed field the server now prunes, a default
that reads back differently, an update that an immutability rule refuses.

An example is only stated when that check holds; a change with none is still reported
(pattern, rule and composition changes are then warnings: the new schema may accept all
the old one did).
"""

from __future__ import annotations

import copy
import json
import types
from collections.abc import Iterable, Iterator
from typing import Any

from kgen.compat import samples
from kgen.compat.changes import Change
from kgen.compat.snapshot import Resource, Steps, display_path
from kgen.runtime.structural import Structural, default, list_type_errors, prune, prune_nulls, validate, validate_update
from kgen.runtime.structural.rules import check_rules
from kgen.runtime.validation.field import ErrorType, FieldError

BUDGET = 600
"""Candidate values checked per change, at most."""
MAP_KEY = "example"
"""The key an example puts into a map (`additionalProperties`)."""
_VALIDATION_RULES = {
    "type-changed", "field-made-required", "required-field-added", "bounds-tightened", "length-tightened",
    "items-tightened", "properties-tightened", "pattern-changed", "format-changed", "enum-narrowed",
    "cel-rule-added", "cel-rule-changed", "validation-changed", "list-type-changed", "list-map-keys-changed",
}  # fmt: skip
_DEFAULT_RULES = {"default-added", "default-changed", "default-removed"}


def shown(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def errors_of(value: Any, schema: Structural, old: Any = None) -> list[FieldError]:
    """What the API server says of a value (a whole object, or one node) against a schema:
    OpenAPI validation, list types and CEL rules; an update with `old`."""
    try:
        if old is None:
            found = validate(value, schema) + _list_errors(value, schema)
        else:
            found = validate_update(value, old, schema)
        found += check_rules(value, old, schema)
    except Exception as err:  # noqa: BLE001 - a rule kgen cannot evaluate refuses nothing for sure
        return [FieldError(ErrorType.INTERNAL, None, None, f"not evaluated: {err}")]
    return found


def _list_errors(value: Any, schema: Structural) -> list[FieldError]:
    """Duplicates in set and map lists of a node that is not an object (`validate` checks an
    object's own lists; a list is checked as the one property of an object)."""
    if isinstance(value, dict):
        return []  # validate's own second pass
    holder = Structural(type="object", properties=types.MappingProxyType({"value": schema}))
    return list_type_errors({"value": value}, holder)


def _concrete(steps: Steps) -> str:
    """The field path of the example value: `spec.ports[0].name`, map keys as fields."""
    out = ""
    for step in steps:
        if step[0] == "properties":
            out += ("." if out else "") + step[1]
        elif step[0] == "items":
            out += "[0]"
        else:
            out += ("." if out else "") + MAP_KEY
    return out


def _related(error: FieldError, path: str) -> bool:
    field = error.field
    if field in ("", "<nil>") or not path:
        return True
    return field == path or field.startswith(path + ".") or field.startswith(path + "[") or path.startswith(field)


class Examples:
    """The example search for the changes of one comparison (schemas parsed once)."""

    def __init__(self) -> None:
        self._parsed: dict[int, tuple[dict[str, Any], Structural]] = {}
        self._minimal: dict[int, Any] = {}
        self._budget = BUDGET

    def structural(self, schema: dict[str, Any]) -> Structural:
        found = self._parsed.get(id(schema))
        if found is None:
            found = self._parsed[id(schema)] = (schema, Structural.from_openapi(schema))
        return found[1]

    # -- values ------------------------------------------------------------------------------

    def accepts(self, value: Any, schema: Structural) -> bool:
        self._budget -= 1
        return not errors_of(value, schema)

    def minimal(self, schema: Structural, depth: int = 0) -> Any:
        """The simplest value the node accepts (its first candidate when none does)."""
        key = id(schema)
        if key in self._minimal:
            return copy.deepcopy(self._minimal[key])
        chosen: Any = None
        for index, value in enumerate(samples.values(schema, depth, self._pick)):
            if index == 0:
                chosen = value
            if index >= 40 or self._budget <= 0:
                break
            if self.accepts(value, schema):
                chosen = value
                break
        self._minimal[key] = chosen
        return copy.deepcopy(chosen)

    def _pick(self, schema: Structural, depth: int) -> Any:
        if depth > samples.MAX_DEPTH:
            return samples.first(schema, depth)
        return self.minimal(schema, depth)

    def candidates(self, *schemas: Structural, extra: Iterable[Any] = ()) -> Iterator[Any]:
        yield from extra
        for schema in schemas:
            yield from samples.values(schema, 0, self._pick)

    def refused(self, old: Structural, new: Structural, extra: Iterable[Any] = ()) -> Any:
        """A value the old node accepts and the new one refuses, or `_NONE`."""
        for value in self.candidates(old, new, extra=extra):
            if self._budget <= 0:
                break
            if self.accepts(value, old) and not self.accepts(value, new):
                return value
        return _NONE

    # -- objects -----------------------------------------------------------------------------

    def embed(self, root: Structural, steps: Steps, value: Any, resource: Resource, version: str) -> dict[str, Any]:
        """The smallest object the old root accepts, with `value` at `steps` (absent when
        `value` is `_NONE`)."""

        def build(node: Structural | None, index: int) -> Any:
            if index == len(steps):
                return value
            step = steps[index]
            if step[0] == "properties":
                base = self.minimal(node) if node is not None else {}
                base = base if isinstance(base, dict) else {}
                child = node.properties.get(step[1]) if node is not None else None
                inner = build(child, index + 1)
                if inner is _NONE:
                    base.pop(step[1], None)
                else:
                    base[step[1]] = inner
                return base
            if step[0] == "items":
                inner = build(node.items if node is not None else None, index + 1)
                return [] if inner is _NONE else [inner]
            extra = node.additional_properties_schema if node is not None else None
            inner = build(extra, index + 1)
            return {} if inner is _NONE else {MAP_KEY: inner}

        obj = build(root, 0)
        obj = obj if isinstance(obj, dict) else {}
        head = {"apiVersion": f"{resource.group}/{version}" if resource.group else version, "kind": resource.kind,
                "metadata": {"name": "example"}}  # fmt: skip
        return {**head, **{k: v for k, v in obj.items() if k not in head}}

    # -- explanations --------------------------------------------------------------------------

    def explain(self, change: Change, old: Resource, new: Resource) -> bool:
        """Add an example to the change's notes; whether one was found."""
        self._budget = BUDGET
        version = change.version
        if version not in old.versions or version not in new.versions or change.rule == "validation-relaxed":
            return False
        old_root = self.structural(old.versions[version].schema)
        new_root = self.structural(new.versions[version].schema)
        try:
            if change.rule in _VALIDATION_RULES:
                return self._refused_object(change, old, new, old_root, new_root)
            if change.rule == "field-removed":
                return self._pruned(change, old, old_root, new_root)
            if change.rule in _DEFAULT_RULES:
                return self._defaulted(change, old, old_root, new_root)
            if change.rule == "immutable-added":
                return self._frozen(change, old, old_root, new_root)
            if change.rule == "nullable-changed" and change.severity is None:
                return self._null_dropped(change, old, old_root, new_root)
            if change.rule == "pruning-enabled":
                return self._unknown_dropped(change, old, old_root, new_root)
        except (RecursionError, TypeError, ValueError):
            return False  # a schema the engine cannot take apart gives no example
        return False

    def _node(self, root: Structural, steps: Steps) -> Structural | None:
        node: Structural | None = root
        for step in steps:
            if node is None:
                return None
            if step[0] == "properties":
                node = node.properties.get(step[1])
            elif step[0] == "items":
                node = node.items
            else:
                node = node.additional_properties_schema
        return node

    def _object_errors(
        self, obj: dict[str, Any], root: Structural, old: dict[str, Any] | None = None
    ) -> list[FieldError]:
        read = copy.deepcopy(obj)
        prune_nulls(read, root)
        default(read, root)
        previous = None
        if old is not None:
            previous = copy.deepcopy(old)
            prune_nulls(previous, root)
            default(previous, root)
        return errors_of(read, root, previous)

    def _payload(self, obj: dict[str, Any]) -> str:
        return shown({k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")})

    def _refused_object(
        self, change: Change, old: Resource, new: Resource, old_root: Structural, new_root: Structural
    ) -> bool:
        steps = change.steps
        if change.rule in ("field-made-required", "required-field-added"):
            steps = steps[:-1]
            parent = self._node(old_root, steps)
            if parent is None:
                return False
            value = self.minimal(parent)
            if isinstance(value, dict):
                value.pop(change.data.get("property", ""), None)
        else:
            old_node, new_node = self._node(old_root, steps), self._node(new_root, steps)
            if old_node is None or new_node is None:
                return False
            value = self.refused(old_node, new_node, extra=change.data.get("values", ()))
            if value is _NONE:
                return False
        obj = self.embed(old_root, steps, value, old, change.version)
        if self._object_errors(obj, old_root):
            return False
        path = _concrete(change.steps)
        errors = [e for e in self._object_errors(obj, new_root) if _related(e, path)]
        if not errors:
            return False
        if new.custom:
            change.notes.append(f"for example {self._payload(obj)} is accepted before the change and refused after "
                                f"it: {'; '.join(str(e) for e in errors[:3])}")  # fmt: skip
        else:
            change.notes.append(f"for example {self._payload(obj)} is valid before the change and not after it")
        change.data["example"] = obj
        return True

    def _pruned(self, change: Change, old: Resource, old_root: Structural, new_root: Structural) -> bool:
        node = self._node(old_root, change.steps)
        if node is None:
            return False
        obj = self.embed(old_root, change.steps, self.minimal(node), old, change.version)
        if self._object_errors(obj, old_root):
            return False
        dropped = prune(copy.deepcopy(obj), new_root)
        path = _concrete(change.steps)
        if not any(p == path or path.startswith(p + ".") or path.startswith(p + "[") for p in dropped):
            return False
        shown_path = next(p for p in dropped if p == path or path.startswith(p))
        change.notes.append(f"for example the API server drops {shown_path} from {self._payload(obj)} (unknown "
                            f"field \"{shown_path}\"), and from stored objects on their next write")  # fmt: skip
        change.data["example"] = obj
        return True

    def _read(self, obj: dict[str, Any], root: Structural, steps: Steps) -> Any:
        read = copy.deepcopy(obj)
        default(read, root)
        value: Any = read
        for step in steps:
            if step[0] == "properties":
                if not isinstance(value, dict) or step[1] not in value:
                    return _NONE
                value = value[step[1]]
            elif step[0] == "items":
                if not isinstance(value, list) or not value:
                    return _NONE
                value = value[0]
            else:
                if not isinstance(value, dict) or MAP_KEY not in value:
                    return _NONE
                value = value[MAP_KEY]
        return value

    def _defaulted(self, change: Change, old: Resource, old_root: Structural, new_root: Structural) -> bool:
        obj = self.embed(old_root, change.steps, _NONE, old, change.version)
        before, after = self._read(obj, old_root, change.steps), self._read(obj, new_root, change.steps)
        if _same(before, after):
            return False
        path = display_path(change.steps)

        def said(value: Any) -> str:
            return "without it" if value is _NONE else f"with {path} {shown(value)}"

        change.notes.append(f"for example {self._payload(obj)}, stored before the change, reads back {said(before)} "
                            f"before and {said(after)} after it")  # fmt: skip
        change.data["example"] = obj
        return True

    def _frozen(self, change: Change, old: Resource, old_root: Structural, new_root: Structural) -> bool:
        old_node, new_node = self._node(old_root, change.steps), self._node(new_root, change.steps)
        if old_node is None or new_node is None:
            return False
        start = self.minimal(old_node)
        for value in self.candidates(old_node):
            if self._budget <= 0:
                return False
            if _same(value, start) or not self.accepts(value, old_node):
                continue
            first = self.embed(old_root, change.steps, start, old, change.version)
            second = self.embed(old_root, change.steps, value, old, change.version)
            if self._object_errors(first, old_root) or self._object_errors(second, old_root, first):
                continue
            path = _concrete(change.steps)
            errors = [e for e in self._object_errors(second, new_root, first) if _related(e, path)]
            if not errors:
                continue
            change.notes.append(f"for example an update of {display_path(change.steps)} from {shown(start)} to "
                                f"{shown(value)} is accepted before the change and refused after it: "
                                f"{'; '.join(str(e) for e in errors[:3])}")  # fmt: skip
            return True
        return False

    def _null_dropped(self, change: Change, old: Resource, old_root: Structural, new_root: Structural) -> bool:
        obj = self.embed(old_root, change.steps, None, old, change.version)
        kept = copy.deepcopy(obj)
        prune_nulls(kept, old_root)
        now = copy.deepcopy(obj)
        prune_nulls(now, new_root)
        default(now, new_root)
        before, after = self._read(kept, old_root, change.steps), self._read(now, new_root, change.steps)
        if before is not None or after is None:
            return False  # the old schema dropped the null too, or the new one keeps it
        result = "dropped" if after is _NONE else f"replaced by its default {shown(after)}"
        change.notes.append(f"for example the null in {self._payload(obj)} was kept before the change and is "
                            f"{result} after it")  # fmt: skip
        return True

    def _unknown_dropped(self, change: Change, old: Resource, old_root: Structural, new_root: Structural) -> bool:
        node = self._node(old_root, change.steps)
        if node is None:
            return False
        base = self.minimal(node)
        if not isinstance(base, dict):
            return False
        base["x-example"] = "kept"
        obj = self.embed(old_root, change.steps, base, old, change.version)
        if prune(copy.deepcopy(obj), old_root):
            return False
        dropped = prune(copy.deepcopy(obj), new_root)
        if not dropped:
            return False
        change.notes.append(f"for example the API server keeps {dropped[0]} of {self._payload(obj)} before the "
                            "change and drops it after it")  # fmt: skip
        return True


class _Missing:
    def __repr__(self) -> str:
        return "<none>"


_NONE: Any = _Missing()


def _same(a: Any, b: Any) -> bool:
    if a is _NONE or b is _NONE:
        return a is b
    return shown(a) == shown(b)
