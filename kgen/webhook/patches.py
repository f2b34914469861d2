"""The JSON patch (RFC 6902) a mutating webhook answers with: what defaulting changed, as
operations on the object the API server sent.

Decoding an object into its model and encoding it again is not the identity: fields the
model does not know are gone, zero values of fields without `omitempty` appear, quantities
are written in their canonical form. A patch from the request's object to the re-encoded
one would carry all of that (controller-runtime's defaulter drops the removals it causes
for the same reason, pkg/webhook/admission/defaulter_custom.go `dropSchemeRemovals`). So
the patch is made from the difference between the decoded object before and after
mutation, applied at the places those differences are in the request's object: nothing
the mutation left alone is touched, and applying the patch to the request's object gives
the mutated values. Object members are written with `add` (which replaces a member that
is there), list items with `replace`, and a list whose length changed is replaced whole.
"""

from __future__ import annotations

from typing import Any


def escape(token: str) -> str:
    """A JSON pointer token (RFC 6901): `~` as `~0`, `/` as `~1`."""
    return token.replace("~", "~0").replace("/", "~1")


def mutation_patch(raw: Any, before: Any, after: Any) -> list[dict[str, Any]]:
    """The operations that make of `raw` (the request's object) what the mutation made of
    `before` (the decoded object, re-encoded) in `after`."""
    operations: list[dict[str, Any]] = []
    _diff(raw, before, after, "", operations)
    return operations


def _diff(raw: Any, before: Any, after: Any, pointer: str, operations: list[dict[str, Any]]) -> None:
    if before == after:
        return
    if type(raw) is dict and type(before) is dict and type(after) is dict:
        for key, value in after.items():
            old = before.get(key, _ABSENT)
            if old is not _ABSENT and old == value:
                continue
            child = f"{pointer}/{escape(key)}"
            if old is not _ABSENT and key in raw:
                _diff(raw[key], old, value, child, operations)
            else:
                operations.append({"op": "add", "path": child, "value": value})
        for key in before:
            if key not in after and key in raw:
                operations.append({"op": "remove", "path": f"{pointer}/{escape(key)}"})
        return
    if type(raw) is list and type(before) is list and type(after) is list and len(raw) == len(before) == len(after):
        for index, (raw_item, old, new) in enumerate(zip(raw, before, after)):
            _diff(raw_item, old, new, f"{pointer}/{index}", operations)
        return
    # a value that is there in the request's object: replaced whole
    operations.append({"op": "replace", "path": pointer, "value": after})


_ABSENT: Any = object()
