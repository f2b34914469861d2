"""The Go rules: what only the Go types of both revisions tell.

Struct types of the input's API and library packages (not the hub versions, which nothing
serves) are matched by package and name, their members by Go name (then by JSON name, for
a Go rename that keeps the wire). For each pair: the JSON name; in packages with
`+k8s:protobuf-gen=package`, the protobuf number, wire type, label and name; the Go type
where the JSON stays the same (int32 -> int64, a pointer made a value). Across the whole
message: a number or name used again that belonged to a removed member or a tombstone
(`+k8s:deprecated=<json>,protobuf=<N>`, on either side), and a member removed without a
tombstone. A field removed or retyped in JSON is reported here too, for types no kind's
schema reaches (options types); `kgen.compat.report` keeps one finding per Go field.
"""

from __future__ import annotations

from collections.abc import Iterator

from kgen.compat.changes import Change
from kgen.compat.snapshot import Snapshot
from kgen.generators.protobuf import has_protobuf, is_type_meta, tombstones
from kgen.ir.model import Member, Package, TypeDef, TypeRef, Universe


def compare(old: Snapshot, new: Snapshot) -> list[Change]:
    """Every change of the Go types of `old` in `new` (nothing when either is not Go)."""
    if old.universe is None or new.universe is None:
        return []
    out: list[Change] = []
    for before, after in _packages(old.universe, new.universe):
        protobuf = has_protobuf(before) and has_protobuf(after)
        for typedef in after.types:
            previous = before.type(typedef.name)
            if previous is None or previous.kind != "struct" or typedef.kind != "struct":
                continue
            out += _struct(old, new, before, previous, typedef, protobuf)
    return out


def _packages(old: Universe, new: Universe) -> Iterator[tuple[Package, Package]]:
    """The packages of the input both revisions have, by import path, else by group and
    version (a module renamed between them)."""

    def mine(universe: Universe) -> list[Package]:
        return [p for p in universe.generated_packages if p.role in ("api", "library") and not p.internal]

    by_path = {p.import_path: p for p in mine(old)}
    by_version = {(p.group, p.version): p for p in mine(old) if p.group}
    for package in mine(new):
        before = by_path.get(package.import_path) or by_version.get((package.group, package.version))
        if before is not None:
            yield before, package


def _where(package: Package) -> str:
    if package.group:
        return f"{package.group}/{package.version}" if package.version else package.group
    return package.import_path


def _pairs(before: TypeDef, after: TypeDef) -> tuple[list[tuple[Member, Member]], list[Member]]:
    """Members matched by Go name, then the rest by JSON name; and the old members left over."""
    skip = is_type_meta
    old_members = [m for m in before.members if not skip(m)]
    new_members = [m for m in after.members if not skip(m)]
    by_go = {m.go_name: m for m in new_members}
    pairs: list[tuple[Member, Member]] = []
    unmatched: list[Member] = []
    used: set[str] = set()
    for member in old_members:
        partner = by_go.get(member.go_name)
        if partner is not None:
            pairs.append((member, partner))
            used.add(partner.go_name)
        else:
            unmatched.append(member)
    by_json = {m.json_name: m for m in new_members if m.go_name not in used and m.json_name}
    removed: list[Member] = []
    for member in unmatched:
        partner = by_json.get(member.json_name) if member.json_name else None
        if partner is not None:
            pairs.append((member, partner))
            used.add(partner.go_name)
        else:
            removed.append(member)
    return pairs, removed


def _struct(
    old: Snapshot, new: Snapshot, package: Package, before: TypeDef, after: TypeDef, protobuf: bool
) -> list[Change]:
    out: list[Change] = []
    where = _where(package)
    pairs, removed = _pairs(before, after)
    renamed: set[str] = set()

    old_fields = {f.json_name: f for f in before.fields}

    def change(rule: str, member: Member, what: str, json_name: str | None = None, **extra) -> None:  # type: ignore[no-untyped-def]
        name = json_name or member.json_name or member.go_name
        gated = any(m.name == "featureGate" for m in member.markers)
        declared = old_fields.get(name)
        identity = (declared.position if declared is not None else "") or f"{before.package}.{before.name}.{name}"
        out.append(Change(
            rule, what, subject=f"{where} {after.name}.{name}", position=new.relabel(member.position or after.position),
            anchor=(identity, name, ()),
            data={"gated": gated, "version": package.version, "go_subject": f"{before.package}.{before.name}.{name}",
                  **extra.pop("data", {})},
            **extra,
        ))  # fmt: skip

    for was, now in pairs:
        if was.json_name and now.json_name and was.json_name != now.json_name:
            renamed.add(was.json_name)
            change("json-name-changed", now, f"JSON name changed from \"{was.json_name}\" to \"{now.json_name}\"",
                   json_name=was.json_name)  # fmt: skip
        elif was.promoted != now.promoted:
            what = "now inlined into its parent (its fields moved up)" if now.promoted else "no longer inlined"
            change("json-name-changed", now, what, json_name=was.json_name or was.go_name)
        _go_type(old.universe, new.universe, was, now, change)
        if protobuf and was.protobuf is not None and now.protobuf is not None:
            a, b = was.protobuf, now.protobuf
            if a.number != b.number:
                change("protobuf-number-changed", now, f"protobuf number changed from {a.number} to {b.number}")
            if (a.wire_type, a.label) != (b.wire_type, b.label):
                change("protobuf-wire-type-changed", now,
                       f"protobuf wire type changed from {a.wire_type},{a.label} to {b.wire_type},{b.label}")  # fmt: skip
            if a.name != b.name:
                change("protobuf-name-changed", now, f"protobuf name changed from {a.name} to {b.name}")
    if protobuf:
        for found in _reuse(new, where, before, after, pairs, removed):
            found.data["version"] = package.version
            out.append(found)
    new_fields = {f.json_name for f in after.fields}
    for name, gone in old_fields.items():
        if name in new_fields or name in renamed or name == "-":
            continue
        gated = gone.has_marker("featureGate")
        identity = gone.position or f"{before.package}.{before.name}.{name}"
        out.append(Change("field-removed", "removed", subject=f"{where} {after.name}.{name}",
                          position=new.relabel(after.position), anchor=(identity, name, ()),
                          data={"gated": gated, "version": package.version,
                                "go_subject": f"{before.package}.{before.name}.{name}"}))  # fmt: skip
    return out


def _reuse(
    new: Snapshot,
    where: str,
    before: TypeDef,
    after: TypeDef,
    pairs: list[tuple[Member, Member]],
    removed: list[Member],
) -> list[Change]:
    out: list[Change] = []
    old_tombs, _ = tombstones(before)
    new_tombs, _ = tombstones(after)
    tomb_numbers = {n: name for tombs in (old_tombs, new_tombs) for name, (n, _) in tombs.items() if n is not None}
    tomb_names = set(old_tombs) | set(new_tombs)
    previous_of = {id(now): was for was, now in pairs}
    old_numbers = {m.protobuf.number: m for m in before.members if m.protobuf is not None}
    for member in after.members:
        if member.protobuf is None:
            continue
        number = member.protobuf.number
        previous = previous_of.get(id(member))
        owner = old_numbers.get(number)
        subject = f"{where} {after.name}.{member.json_name or member.go_name}"
        position = new.relabel(member.position or after.position)
        anchor = (member.position or subject, member.json_name or member.go_name, ())
        if owner is not None and (previous is None or owner.go_name != previous.go_name):
            out.append(Change("protobuf-number-reused", f"protobuf number {number} belonged to {owner.go_name} "
                              f"(\"{owner.json_name or owner.go_name}\") before", subject=subject, position=position,
                              anchor=anchor))  # fmt: skip
        elif number in tomb_numbers and tomb_numbers[number] != member.json_name:
            out.append(Change("protobuf-number-reused", f"protobuf number {number} is tombstoned for "
                              f"\"{tomb_numbers[number]}\"", subject=subject, position=position, anchor=anchor))  # fmt: skip
        if (
            member.json_name
            and member.json_name in tomb_names
            and (previous is None or previous.json_name != member.json_name)
        ):
            out.append(Change("protobuf-name-reused", f"the name \"{member.json_name}\" is tombstoned",
                              subject=subject, position=position, anchor=anchor))  # fmt: skip
    for member in removed:
        if member.protobuf is None:
            continue
        name = member.json_name or member.go_name
        if any(n == member.protobuf.number for n, _ in new_tombs.values()):
            continue
        out.append(Change(
            "protobuf-tombstone-missing",
            f"removed without a tombstone: add `// +k8s:deprecated={name},protobuf={member.protobuf.number}` to "
            f"{after.name}",
            subject=f"{where} {after.name}.{name}", position=new.relabel(after.position),
            anchor=(member.position or f"{before.package}.{before.name}.{name}", name, ("protobuf",)),
            data={"go_subject": f"{before.package}.{before.name}.{name}"},
        ))  # fmt: skip
    return out


_JSON_BASIC = {
    "string": "string", "bool": "boolean", "bytes": "string/byte",
    **{name: "integer" for name in ("int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32",
                                    "uint64", "uintptr", "byte", "rune")},
    "float32": "number", "float64": "number",
}  # fmt: skip


def _go_shape(universe: Universe | None, ref: TypeRef, depth: int = 0) -> str:
    """A Go type as its shape: pointers, lists, maps and scalars kept, named types by what
    they are (a named string is a string; structs by name)."""
    if depth > 16 or universe is None:
        return str(ref)
    if ref.kind == "pointer" and ref.elem is not None:
        return "*" + _go_shape(universe, ref.elem, depth + 1)
    if ref.kind == "slice" and ref.elem is not None:
        return "[]" + _go_shape(universe, ref.elem, depth + 1)
    if ref.kind == "map" and ref.elem is not None and ref.key is not None:
        return f"map[{_go_shape(universe, ref.key, depth + 1)}]{_go_shape(universe, ref.elem, depth + 1)}"
    if ref.kind == "named":
        typedef = universe.resolve(ref)
        if typedef.kind == "named" and typedef.underlying is not None:
            return _go_shape(universe, typedef.underlying, depth + 1)
        return typedef.name
    return "[]byte" if ref.basic == "bytes" else str(ref.basic or ref.kind)


def _json_shape(universe: Universe | None, ref: TypeRef, depth: int = 0) -> str:
    """What the JSON of a Go type is: pointers gone, scalars by JSON type, lists and maps of."""
    if depth > 16 or universe is None:
        return str(ref)
    if ref.kind == "pointer" and ref.elem is not None:
        return _json_shape(universe, ref.elem, depth + 1)
    if ref.kind == "slice" and ref.elem is not None:
        return "array of " + _json_shape(universe, ref.elem, depth + 1)
    if ref.kind == "map" and ref.elem is not None:
        return "map of " + _json_shape(universe, ref.elem, depth + 1)
    if ref.kind == "named":
        typedef = universe.resolve(ref)
        if typedef.kind == "named" and typedef.underlying is not None:
            return _json_shape(universe, typedef.underlying, depth + 1)
        if typedef.kind == "python":
            return typedef.name
        return "object"
    if ref.kind == "any":
        return "any"
    return _JSON_BASIC.get(str(ref.basic), str(ref.basic))


def _go_type(old: Universe | None, new: Universe | None, was: Member, now: Member, change) -> None:  # type: ignore[no-untyped-def]
    before, after = _go_shape(old, was.type), _go_shape(new, now.type)
    if before == after:
        return
    json_before, json_after = _json_shape(old, was.type), _json_shape(new, now.type)
    if json_before == json_after:
        change("go-type-changed", now, f"Go type changed from {before} to {after}")
    elif was.json_name and now.json_name and not was.promoted:
        change("type-changed", now, f"type changed from {json_before} to {json_after}", json_name=was.json_name)
