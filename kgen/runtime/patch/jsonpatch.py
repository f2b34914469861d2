"""JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386) as the API server applies them.

The API server applies both with gopkg.in/evanphx/json-patch.v4; kgen follows that
library, quirks included, because a client sees what the server does, not the RFC:

- paths are split at "/" and the first segment is ignored (`a/b` acts as `/b`); `~1` and
  `~0` are unescaped; `-` appends; negative indexes count from the end;
- `add` at the root path "" fails; `replace` at "" replaces the document (an object or
  array); `replace` of a missing object key adds it;
- `test` of a missing or null value passes when the value is null or absent; numbers
  are equal only when both are integers or both are not (`1` is not `1.0`);
- `copy` of a missing key copies null; copies may add at most 3 MiB in all.

Errors are what the API server answers: a patch that does not decode is 400, more than
10,000 operations 413, and a patch that fails to apply (a failed `test` too) 422 Invalid
with the generic message "the server rejected our request due to an error in our
request"; the library's own text is in `PatchError.detail`.

A merge patch that is null or a scalar is 400 "Invalid JSON Patch"; an array patch
replaces the document (which then fails to decode as an object, as on the API server).
"""

from __future__ import annotations

import json
import re
from typing import Any

from kgen.runtime import gojson
from kgen.runtime.patch.errors import PatchError, bad_request, unprocessable
from kgen.runtime.rawjson import copy_json
from kgen.runtime.work import checkpoint

__all__ = ["apply_json_patch", "apply_merge_patch", "MAX_JSON_PATCH_OPERATIONS", "MAX_COPY_BYTES"]

#: The API server's limit on the operations of one JSON patch.
MAX_JSON_PATCH_OPERATIONS = 10000
#: The API server's limit on what `copy` operations of one patch may add (JSONPatchMaxCopyBytes).
MAX_COPY_BYTES = 3 * 1024 * 1024

_INT = re.compile(r"^[+-]?[0-9]+$")
_MISSING = object()


class _Failed(Exception):
    """An operation that does not apply, with evanphx/json-patch's words."""


def _decode_pointer_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _atoi(text: str) -> int:
    if not _INT.match(text):
        raise _Failed(f'strconv.Atoi: parsing "{text}": invalid syntax')
    return int(text)


def _get(container: Any, key: str) -> Any:
    """The value at `key` (_MISSING for an absent object key, None for null)."""
    if type(container) is dict:
        return container.get(key, _MISSING)
    index = _atoi(key)
    if index < 0:
        if index < -len(container):
            raise _Failed(f"Unable to access invalid index: {index}: invalid index referenced")
        index += len(container)
    if index >= len(container):
        raise _Failed(f"Unable to access invalid index: {index}: invalid index referenced")
    return container[index]


def _add(container: Any, key: str, value: Any) -> None:
    if type(container) is dict:
        container[key] = value
        return
    if key == "-":
        container.append(value)
        return
    if not _INT.match(key):
        raise _Failed(f"value was not a proper array index: '{key}': strconv.Atoi: parsing \"{key}\": invalid syntax")
    index = int(key)
    size = len(container) + 1
    if index >= size:
        raise _Failed(f"Unable to access invalid index: {index}: invalid index referenced")
    if index < 0:
        if index < -size:
            raise _Failed(f"Unable to access invalid index: {index}: invalid index referenced")
        index += size
    container.insert(index, value)


def _set(container: Any, key: str, value: Any) -> None:
    if type(container) is dict:
        container[key] = value
        return
    index = _atoi(key)
    if index < 0:
        if index < -len(container):
            raise _Failed(f"Unable to access invalid index: {index}: invalid index referenced")
        index += len(container)
    container[index] = value


def _remove(container: Any, key: str) -> None:
    if type(container) is dict:
        if key not in container:
            raise _Failed(f"Unable to remove nonexistent key: {key}: missing value")
        del container[key]
        return
    index = _atoi(key)
    if index >= len(container):
        raise _Failed(f"Unable to access invalid index: {index}: invalid index referenced")
    if index < 0:
        if index < -len(container):
            raise _Failed(f"Unable to access invalid index: {index}: invalid index referenced")
        index += len(container)
    del container[index]


def _find(doc: Any, path: str) -> tuple[Any, str]:
    """The container of `path` and the last token (None when a step is missing)."""
    parts = path.split("/")
    if len(parts) < 2:
        return None, ""
    node = doc
    for part in parts[1:-1]:
        try:
            node = _get(node, _decode_pointer_token(part))
        except _Failed:
            return None, ""
        if type(node) is not dict and type(node) is not list:
            return None, ""
    return node, _decode_pointer_token(parts[-1])


def _equal(a: Any, b: Any) -> bool:
    ta, tb = type(a), type(b)
    if ta is dict:
        return tb is dict and a.keys() == b.keys() and all(_equal(v, b[k]) for k, v in a.items())
    if ta is list:
        return tb is list and len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return ta is tb and a == b


def _string_field(op: dict[str, Any], name: str) -> str:
    value = op.get(name, _MISSING)
    if value is _MISSING or value is None:
        if name == "path":
            raise _Failed("operation missing path field: missing value")
        raise _Failed("operation, missing from field: missing value")
    if type(value) is not str:
        raise _Failed(f"json: cannot unmarshal {_json_kind(value)} into Go value of type string")
    return value


def _json_kind(value: Any) -> str:
    return {dict: "object", list: "array", bool: "bool", int: "number", float: "number", str: "string"}.get(
        type(value), "null"
    )


class _Applier:
    def __init__(self, doc: Any, copy_limit: int):
        self.doc = doc
        self.copied = 0
        self.copy_limit = copy_limit

    def run(self, op: dict[str, Any]) -> None:
        """Apply one operation."""
        kind = op.get("op")
        kind = kind if type(kind) is str else "unknown"
        handler = (
            getattr(self, "op_" + kind, None) if kind in ("add", "remove", "replace", "move", "test", "copy") else None
        )
        if handler is None:
            raise _Failed(f"Unexpected kind: {kind}")
        handler(op)

    def op_add(self, op: dict[str, Any]) -> None:
        """RFC 6902 add."""
        try:
            path = _string_field(op, "path")
        except _Failed:
            raise _Failed("add operation failed to decode path: missing value") from None
        container, key = _find(self.doc, path)
        if container is None:
            raise _Failed(f'add operation does not apply: doc is missing path: "{path}": missing value')
        try:
            _add(container, key, copy_json(op.get("value")))
        except _Failed as err:
            raise _Failed(f"error in add for path: '{path}': {err}") from None

    def op_remove(self, op: dict[str, Any]) -> None:
        """RFC 6902 remove."""
        try:
            path = _string_field(op, "path")
        except _Failed:
            raise _Failed("remove operation failed to decode path: missing value") from None
        container, key = _find(self.doc, path)
        if container is None:
            raise _Failed(f'remove operation does not apply: doc is missing path: "{path}": missing value')
        try:
            _remove(container, key)
        except _Failed as err:
            raise _Failed(f"error in remove for path: '{path}': {err}") from None

    def op_replace(self, op: dict[str, Any]) -> None:
        """RFC 6902 replace."""
        try:
            path = _string_field(op, "path")
        except _Failed as err:
            raise _Failed(f"replace operation failed to decode path: {err}") from None
        if path == "":
            value = op.get("value")
            if type(value) is not dict and type(value) is not list:
                raise _Failed("replace operation value must be object or array: %!w(<nil>)")
            self.doc = copy_json(value)
            return
        container, key = _find(self.doc, path)
        if container is None:
            raise _Failed(f"replace operation does not apply: doc is missing path: {path}: missing value")
        try:
            _get(container, key)
        except _Failed:
            raise _Failed(f"replace operation does not apply: doc is missing key: {path}: missing value") from None
        _set(container, key, copy_json(op.get("value")))

    def op_move(self, op: dict[str, Any]) -> None:
        """RFC 6902 move."""
        source = _string_field(op, "from")
        container, key = _find(self.doc, source)
        if container is None:
            raise _Failed(f"move operation does not apply: doc is missing from path: {source}: missing value")
        try:
            value = _get(container, key)
            _remove(container, key)
        except _Failed as err:
            raise _Failed(f"error in move for path: '{key}': {err}") from None
        path = _string_field(op, "path")
        container, key = _find(self.doc, path)
        if container is None:
            raise _Failed(f"move operation does not apply: doc is missing destination path: {path}: missing value")
        try:
            _add(container, key, None if value is _MISSING else value)
        except _Failed as err:
            raise _Failed(f"error in move for path: '{path}': {err}") from None

    def op_test(self, op: dict[str, Any]) -> None:
        """RFC 6902 test."""
        path = _string_field(op, "path")
        expected = op.get("value", _MISSING)
        if path == "":
            if not _equal(self.doc, expected):
                raise _Failed(f"testing value {path} failed: test failed")
            return
        container, key = _find(self.doc, path)
        if container is None:
            raise _Failed(f"test operation does not apply: is missing path: {path}: missing value")
        try:
            actual = _get(container, key)
        except _Failed as err:
            raise _Failed(f"error in test for path: '{path}': {err}") from None
        if actual is _MISSING or actual is None:
            if expected is _MISSING or expected is None:
                return
            raise _Failed(f"testing value {path} failed: test failed")
        if expected is _MISSING or not _equal(actual, expected):
            raise _Failed(f"testing value {path} failed: test failed")

    def op_copy(self, op: dict[str, Any]) -> None:
        """RFC 6902 copy."""
        source = _string_field(op, "from")
        container, key = _find(self.doc, source)
        if container is None:
            raise _Failed(f"copy operation does not apply: doc is missing from path: {source}: missing value")
        try:
            value = _get(container, key)
        except _Failed as err:
            raise _Failed(f"error in copy for from: '{source}': {err}") from None
        try:
            path = _string_field(op, "path")
        except _Failed:
            raise _Failed("copy operation failed to decode path: missing value") from None
        container, key = _find(self.doc, path)
        if container is None:
            raise _Failed(f"copy operation does not apply: doc is missing destination path: {path}: missing value")
        value = None if value is _MISSING else copy_json(value)
        self.copied += len(gojson.marshal(value))
        if self.copy_limit > 0 and self.copied > self.copy_limit:
            raise _Failed(
                "Unable to complete the copy, the accumulated size increase of copy is "
                f"{self.copied}, exceeding the limit {self.copy_limit}"
            )
        try:
            _add(container, key, value)
        except _Failed as err:
            raise _Failed(f"error while adding value during copy: {err}") from None


def _parse(patch: Any) -> Any:
    if isinstance(patch, (bytes, bytearray, str)):
        try:
            return json.loads(patch)
        except ValueError:
            raise bad_request("invalid JSON patch") from None
    return patch


def apply_json_patch(
    doc: Any,
    patch: Any,
    *,
    max_operations: int = MAX_JSON_PATCH_OPERATIONS,
    copy_limit: int = MAX_COPY_BYTES,
) -> Any:
    """`doc` (not changed) with the JSON patch applied. `patch` is its JSON text or the
    decoded list of operations. Raises PatchError (400, 413 or 422) as the API server."""
    ops = _parse(patch)
    if type(ops) is not list:
        raise bad_request(f"json: cannot unmarshal {_json_kind(ops)} into Go value of type jsonpatch.Patch")
    for op in ops:
        if type(op) is not dict and op is not None:
            raise bad_request(f"json: cannot unmarshal {_json_kind(op)} into Go value of type jsonpatch.Operation")
    if len(ops) > max_operations:
        raise PatchError(
            413,
            "RequestEntityTooLarge",
            f"The allowed maximum operations in a JSON patch is {max_operations}, got {len(ops)}",
        )
    applier = _Applier(copy_json(doc), copy_limit)
    for position, op in enumerate(ops):
        if position % 256 == 255:
            checkpoint()  # a request whose client has gone stops here
        try:
            applier.run(op or {})
        except _Failed as err:
            raise unprocessable(str(err)) from None
    return applier.doc


def _prune_nulls(value: Any) -> Any:
    if type(value) is dict:
        for k in [k for k, v in value.items() if v is None]:
            del value[k]
        for v in value.values():
            _prune_nulls(v)
    elif type(value) is list:
        for v in value:
            if v is not None:
                _prune_nulls(v)
    return value


def _merge_value(current: Any, patch: Any) -> Any:
    if type(current) is not dict:
        return _prune_nulls(patch)
    if type(patch) is not dict:
        return patch
    _merge_objects(current, patch)
    return current


def _merge_objects(doc: dict[str, Any], patch: dict[str, Any]) -> None:
    for k, v in patch.items():
        if v is None:
            doc.pop(k, None)
            continue
        current = doc.get(k)
        doc[k] = _prune_nulls(v) if current is None else _merge_value(current, v)


def apply_merge_patch(doc: Any, patch: Any) -> Any:
    """`doc` (not changed) with the JSON merge patch applied (evanphx/json-patch's
    MergePatch). `patch` is its JSON text or decoded value."""
    value = copy_json(_parse(patch))
    if type(value) is list:
        return _prune_nulls(value)
    if type(value) is not dict:
        raise bad_request("Invalid JSON Patch")
    result = copy_json(doc)
    if type(result) is not dict:
        return _prune_nulls(value)
    _merge_objects(result, value)
    return result
