"""The IR builder's passes over everything built: what kinds reach, unsupported members,
import and value cycles, alias cycles, default keys, and Python name collisions."""

from __future__ import annotations

from kgen.diagnostics import Position
from kgen.ir.common import _named_refs, _refs_of, _replace_named, _split_pos
from kgen.ir.model import API_RULE_EXCEPTIONS, Field, Package, TypeDef, TypeRef


class UniversePasses:
    """A part of the IR builder (`kgen.ir.build._Builder`); its state lives there."""

    def _decide_unsupported_members(self) -> None:
        """A member kgen cannot generate (an anonymous struct, an interface with methods, a
        func, `error`) is an error in a type a kind reaches. Elsewhere (Go code's own types in
        an API package, which deepcopy-gen copies and the CRD generator never meets) the type,
        and the types that use it, are left out with a warning. Fields without a json tag are
        warned about where a kind reaches them."""
        if not self.unsupported and not self.untagged:
            return
        reached = self._reached_from_kinds()
        for owner, position, message in self.untagged:
            if owner in reached:
                self.diagnostics.warning(position, message)
        dropped: set[tuple[str, str]] = set()
        for owner, position, message in self.unsupported:
            if owner is None or owner in reached:
                self.diagnostics.error(position, message)
            elif owner not in dropped:
                dropped.add(owner)
                self.diagnostics.warning(
                    position,
                    f"{owner[1]} has a field kgen cannot generate ({message.split(';')[0]}); no kind uses "
                    f"{owner[1]}, so it is left out of what kgen generates",
                )
        while dropped:  # and whatever uses a type left out, which no kind reaches either
            users = {
                key for key, typedef in self.typedefs.items()
                if typedef is not None and key not in dropped
                and any((n.package, n.name) in dropped for ref in _refs_of(typedef) for n in _named_refs(ref))
            }  # fmt: skip
            if not users:
                break
            dropped |= users
        for key in dropped:
            self.typedefs[key] = None

    def _reached_from_kinds(self) -> set[tuple[str, str]]:
        """The types that kinds and lists (and the types they name) reach."""
        stack = [key for key, t in self.typedefs.items() if t is not None and (t.is_kind or t.is_list)]
        seen: set[tuple[str, str]] = set()
        while stack:
            key = stack.pop()
            typedef = self.typedefs.get(key)
            if key in seen or typedef is None:
                continue
            seen.add(key)
            stack.extend((n.package, n.name) for ref in _refs_of(typedef) for n in _named_refs(ref))
        return seen

    def _check_import_cycles(self) -> None:
        """Packages that import each other, which the go command refuses ("import cycle not
        allowed"): an error at the import that closes each cycle."""
        edges: dict[str, list[tuple[str, Position]]] = {}
        for import_path, info in self.packages.items():
            edges[import_path] = sorted(
                {(imp.path, imp.position) for f in info.source.files for imp in f.imports if imp.path in self.packages},
                key=lambda edge: (edge[0], str(edge[1])),
            )
        state: dict[str, int] = {}  # 1: on the current path, 2: done
        path: list[str] = []
        for start in sorted(edges):
            if state.get(start):
                continue
            stack = [(start, iter(edges[start]))]
            state[start] = 1
            path.append(start)
            while stack:
                node, children = stack[-1]
                step = next(children, None)
                if step is None:
                    stack.pop()
                    path.pop()
                    state[node] = 2
                    continue
                target, position = step
                if state.get(target) == 1:
                    cycle = path[path.index(target) :] + [target]
                    self.diagnostics.error(
                        position,
                        "import cycle not allowed: "
                        + " imports ".join(cycle)
                        + " (Go refuses it too): move what both need into a package that both import",
                    )
                elif not state.get(target):
                    state[target] = 1
                    path.append(target)
                    stack.append((target, iter(edges[target])))

    def _reach(self) -> None:
        """Build every type the built types refer to, until nothing new is reached."""
        done: set[tuple[str, str]] = set()
        while pending := [key for key in self.typedefs if key not in done]:
            for key in pending:
                done.add(key)
                typedef = self.typedefs[key]
                if typedef is None:
                    continue
                for ref in _refs_of(typedef):
                    for named in _named_refs(ref):
                        if (named.package, named.name) not in self.typedefs:
                            self.typedef(named.package, named.name)

    def _api_rule_exceptions(self) -> tuple[str, ...] | None:
        """The known API rule violations (openapi-gen's exceptions list), one per line."""
        path = self.options.input / API_RULE_EXCEPTIONS
        if not path.is_file():
            return None
        lines = path.read_text(encoding="utf-8").splitlines()
        return tuple(sorted({line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")}))

    def _match_default_keys(self) -> None:
        """Object keys of `+default` values name fields as Go's encoding/json matches them.

        defaulter-gen decodes a default with encoding/json, which takes a key that equals a
        field's JSON name ignoring case; a CRD's structural schema would prune such a key
        instead. So a key that matches only ignoring case is written with the field's own
        name, with a warning; keys that match no field are left for the defaulters check."""
        for key, typedef in sorted(self.typedefs.items()):
            if typedef is None or typedef.kind != "struct" or not any(f.default is not None for f in typedef.fields):
                continue
            fields = list(typedef.fields)
            for i, f in enumerate(fields):
                if f.default is None:
                    continue
                where = f"default of {typedef.name}.{f.go_name}"
                matched = self._match_keys(f.type, f.default, where, Position(*_split_pos(f.position)), set())
                if matched != f.default:
                    fields[i] = f.model_copy(update={"default": matched, "declared_default": matched})
            if fields != list(typedef.fields):
                self.typedefs[key] = typedef.model_copy(update={"fields": tuple(fields)})

    def _match_keys(self, ref: TypeRef, value, where: str, position: Position, visiting: set):
        while ref.kind == "pointer":
            ref = ref.elem
        if ref.kind in ("slice", "map") and ref.elem is not None:
            if ref.kind == "slice" and isinstance(value, list):
                return [self._match_keys(ref.elem, item, where, position, visiting) for item in value]
            if ref.kind == "map" and isinstance(value, dict):
                return {k: self._match_keys(ref.elem, item, where, position, visiting) for k, item in value.items()}
            return value
        if ref.kind != "named" or not isinstance(value, dict) or (ref.package, ref.name) in visiting:
            return value
        typedef = self.typedefs.get((ref.package, ref.name))
        if typedef is None:
            return value
        if typedef.kind == "named" and typedef.underlying is not None:
            return self._match_keys(typedef.underlying, value, where, position, visiting | {(ref.package, ref.name)})
        if typedef.kind != "struct":
            return value
        by_json = {f.json_name: f for f in typedef.fields}
        folded: dict[str, Field] = {}
        for f in typedef.fields:
            folded.setdefault(f.json_name.casefold(), f)  # Go: the first field in order wins
        out: dict = {}
        for key, item in value.items():
            target = by_json.get(key) or folded.get(key.casefold())
            if target is None:
                out[key] = item
                continue
            if target.json_name != key:
                self.diagnostics.warning(
                    position,
                    f"{where}: key {key!r} matches field {target.go_name} ({target.json_name!r}) only ignoring case; "
                    f"Go's encoding/json takes it, a CRD's schema would drop it; kgen writes {target.json_name!r}",
                )
            if target.json_name in out:
                self.diagnostics.error(
                    position,
                    f"{where}: keys {target.json_name!r} and {key!r} both set field {target.go_name}; keep one",
                )
            out[target.json_name] = self._match_keys(
                target.type, item, where, position, visiting | {(ref.package, ref.name)}
            )
        return out

    def _check_value_cycles(self) -> None:
        """Go rejects a struct that contains itself by value (an infinitely large type)."""
        edges: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for key, typedef in self.typedefs.items():
            if typedef is not None and typedef.kind == "struct":
                edges[key] = [
                    (f.type.package, f.type.name)
                    for f in typedef.fields
                    if f.type.kind == "named"
                    and (t := self.typedefs.get((f.type.package, f.type.name))) is not None
                    and t.kind == "struct"
                ]
        state: dict[tuple[str, str], int] = {}  # 1 visiting, 2 done
        reported: set[tuple[str, str]] = set()

        def visit(key: tuple[str, str]) -> None:
            state[key] = 1
            for target in edges.get(key, ()):
                if state.get(target) == 1 and target not in reported:
                    reported.add(target)
                    typedef = self.typedefs[target]
                    self.diagnostics.error(
                        Position(*_split_pos(typedef.position)),
                        f"type {typedef.name} contains itself by value (through embedding or a struct field); use a pointer",
                    )
                elif target not in state:
                    visit(target)
            state[key] = 2

        for key in sorted(edges):
            if key not in state:
                visit(key)

    def _break_alias_cycles(self) -> None:
        """Named non-struct types that refer back to themselves (`type L []L`, or `A []B` with
        `B map[string]A`): through a list or map, legal Go whose JSON nests arrays or objects
        (their self-references become arbitrary JSON in `underlying`, see
        TypeDef.recursive_underlying); through pointers alone (`type P *P`), a type whose only
        value is nil, which is an error."""
        aliases = {key: t for key, t in self.typedefs.items() if t is not None and t.kind == "named" and t.underlying}

        def targets(ref: TypeRef) -> list[tuple[tuple[str, str], bool]]:
            """The aliases a type expression mentions, and whether a list or map is on the way."""
            found, stack = [], [(ref, False)]
            while stack:
                current, container = stack.pop()
                if current.kind == "named":
                    if (current.package, current.name) in aliases:
                        found.append(((current.package, current.name), container))
                    continue
                inner = container or current.kind in ("slice", "map")
                stack.extend((r, inner) for r in (current.elem, current.key) if r is not None)
            return found

        edges = {key: targets(t.underlying) for key, t in aliases.items()}
        in_cycle: dict[tuple[str, str], bool] = {}  # alias -> a list or map is on its cycle
        for start in sorted(edges):
            # every path from `start` back to itself, marking whether a container was passed
            seen: dict[tuple[str, str], bool] = {}
            stack = [(target, container) for target, container in edges[start]]
            while stack:
                key, container = stack.pop()
                if key == start:
                    in_cycle[start] = in_cycle.get(start, False) or container
                    continue
                if key in seen and (seen[key] or not container):
                    continue
                seen[key] = container or seen.get(key, False)
                stack.extend((t, container or c) for t, c in edges.get(key, ()))
        for key, through_container in sorted(in_cycle.items()):
            typedef = aliases[key]
            if not through_container:
                self.diagnostics.error(
                    Position(*_split_pos(typedef.position)),
                    f"type {typedef.name} refers to itself through pointers alone, so its only value is nil; "
                    "declare it as a struct, a list or a map",
                )
                continue
            broken = _replace_named(typedef.underlying, set(in_cycle))
            self.typedefs[key] = typedef.model_copy(
                update={"underlying": broken, "recursive_underlying": typedef.underlying}
            )

    def _check_python_collisions(self, packages: list[Package]) -> None:
        for package in packages:
            seen: dict[str, TypeDef] = {}
            for typedef in package.types:
                other = seen.get(typedef.python_name)
                if other is not None:
                    self.diagnostics.error(
                        Position(*_split_pos(typedef.position)),
                        f"type {typedef.name} and {other.name} map to the same Python class name",
                    )
                seen[typedef.python_name] = typedef
