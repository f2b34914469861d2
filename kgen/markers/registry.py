"""The registry of typed marker definitions, and parsing markers against it.

Each definition names a marker, the scopes it may appear in (package, type, field), the
type of its value and of its arguments, and a one-line help. Generators declare what
they read by name; `kgen markers` prints this table. A malformed value of a known
marker is an error; an unknown marker under a known prefix is a warning.
"""

from __future__ import annotations

import difflib
import enum
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from kgen.diagnostics import Diagnostics, Position
from kgen.markers import grammar


class Scope(str, enum.Enum):
    PACKAGE = "package"
    TYPE = "type"
    FIELD = "field"
    CONSTANT = "constant"


P, T, F, C = Scope.PACKAGE, Scope.TYPE, Scope.FIELD, Scope.CONSTANT


class Marker(BaseModel):
    """A parsed marker: its name, typed value, arguments and where it was written."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """Full marker name without the `+`, e.g. `k8s:minimum`."""
    value: Any = None
    """Typed value: None for flags, a `Marker` for chained markers."""
    args: dict[str, Any] = {}
    """Named arguments (`(k: v)` or controller-gen `k=v,...`); a positional one is under ""."""
    position: str = ""
    """`path:line:col` of the marker."""


# -- value types ---------------------------------------------------------------


def _string(text: str) -> str:
    return grammar.unquote(text)


def _int(text: str) -> int:
    text = grammar.unquote(text)
    if not re.fullmatch(r"[+-]?\d+", text):
        raise ValueError(f"must be an integer, got {text!r}")
    return int(text)


def _number(text: str) -> int | float:
    text = grammar.unquote(text)
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text) and math.isfinite(value := float(text)):
        return value
    raise ValueError(f"must be a number, got {text!r}")


def _bool(text: str) -> bool:
    text = grammar.unquote(text)
    if text not in ("true", "false"):
        raise ValueError(f"must be true or false, got {text!r}")
    return text == "true"


class ConstRef(BaseModel):
    """gengo's `+default=ref(Name)` (or `ref(import/path.Name)`): the value of a constant,
    which the IR looks up (`package` is "" for the package the marker is written in)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    package: str = ""
    name: str


_REF = re.compile(r"^ref\(\s*(?:(?P<package>[A-Za-z0-9_.\-/~]+)\.)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*\)$")


def _default(text: str) -> Any:
    """A `+default` value: JSON, or a reference to a constant (`ref(Name)`)."""
    match = _REF.match(text.strip())
    if match:
        return ConstRef(package=match.group("package") or "", name=match.group("name"))
    return _json(text)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(
            f'must be a JSON value (strings in double quotes, e.g. "Always"), got {text!r}: {err.msg}'
        ) from None


def _json_or_bare(text: str) -> Any:
    """controller-gen's default/example values: JSON, or its own syntax (`{k: v}` maps,
    `{a, b}` lists, bare strings; see `grammar.parse_untyped`)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return grammar.parse_untyped(text)
    except ValueError as err:
        raise ValueError(
            f"must be JSON or controller-gen's value syntax ({{key: value}} maps, {{a, b}} lists, "
            f"quoted or bare strings), got {text!r}: {err}"
        ) from None


def _list(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        return [grammar.unquote(p) for p in grammar.split_top_level(text[1:-1], ",") if p.strip()]
    separator = ";" if ";" in text else ","
    return [grammar.unquote(p) for p in grammar.split_top_level(text, separator) if p.strip()]


def _strings(text: str) -> list[str]:
    """controller-tools' []string argument: `a;b`, `{a,b}`, or one string, where a quoted
    empty string is an item (`groups=""` is the core group)."""
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        parts = grammar.split_top_level(text[1:-1], ",")
    else:
        parts = grammar.split_top_level(text, ";")
    return [grammar.unquote(p) for p in parts if p.strip()]


def _one_of(*choices: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        value = grammar.unquote(text)
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}, got {value!r}")
        return value

    parse.__name__ = "one of " + "|".join(choices)
    return parse


def _list_of(*choices: str) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        values = _list(text)
        for value in values:
            if value not in choices:
                raise ValueError(f"values must be among {', '.join(choices)}, got {value!r}")
        return values

    parse.__name__ = "list of " + "|".join(choices)
    return parse


_MARKER = object()  # value type of chained markers
_FLAG = object()  # no value (an explicit `=true`/`=false` is tolerated)

_TYPE_NAMES = {
    _string: "string",
    _int: "integer",
    _number: "number",
    _bool: "bool",
    _json: "JSON",
    _default: "JSON or ref(Constant)",
    _json_or_bare: "JSON or string",
    _list: "list",
}


@dataclass(frozen=True)
class MarkerDef:
    """One known marker."""

    name: str
    scopes: frozenset[Scope]
    value: object  # a parse function, _FLAG or _MARKER
    help: str
    repeatable: bool = False
    keyword_args: dict[str, Callable[[str], Any]] | None = None  # controller-gen `:k=v,...`
    paren_args: dict[str, Callable[[str], Any]] | None = None  # `(k: v)`; "" is positional
    value_optional: bool = False
    floating: bool = False
    """A package marker that may be written in any comment of any file of the package (as
    controller-tools reads `+kubebuilder:webhook`), not only above the package clause."""
    inert: str = ""
    """Why the marker, known and checked, changes nothing kgen writes (it steers Go code or
    says what kgen does anyway); `kgen markers` shows it."""
    unapplied: str = ""
    """Why kgen does not apply the marker where its upstream tool would: each use is warned about."""

    @property
    def value_type(self) -> str:
        if self.value is _FLAG:
            return "flag"
        if self.value is _MARKER:
            return "marker"
        return _TYPE_NAMES.get(self.value, getattr(self.value, "__name__", "value"))


def _excerpt(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass
class Registry:
    """All known markers by name."""

    definitions: dict[str, MarkerDef] = field(default_factory=dict)
    prefixes: frozenset[str] = frozenset({"k8s", "kubebuilder", "genclient", "kgen"})

    def add(self, name: str, scopes, value, help: str, **kwargs) -> None:
        self.definitions[name] = MarkerDef(name, frozenset(scopes), value, help, **kwargs)

    def lookup(self, name: str) -> MarkerDef | None:
        return self.definitions.get(name)

    def is_floating(self, text: str) -> bool:
        """Whether a marker line (without its `+`) is of a floating package marker."""
        return any(
            text == d.name or text.startswith((d.name + ":", d.name + "="))
            for d in self.definitions.values()
            if d.floating
        )

    def parse(self, raw: grammar.RawMarker, scope: Scope, diagnostics: Diagnostics) -> Marker | None:
        """Parse one marker line; report problems; None when the marker is unknown or bad."""
        try:
            return self._parse_text(raw.text, raw.position, scope, diagnostics)
        except grammar.ProseAfterName as err:
            # No marker has that exact name, so controller-gen and gengo ignore the line; a
            # user who meant the marker it starts with is told, and the run goes on.
            if self.lookup(err.name) is not None or err.name.split(":", 1)[0] in self.prefixes:
                diagnostics.warning(
                    raw.position,
                    f"+{_excerpt(raw.text)} is not a marker (words follow +{err.name}) and is ignored, as "
                    f"controller-gen ignores it; to apply +{err.name}, write it alone on its line",
                )
            return None
        except (grammar.MarkerSyntaxError, ValueError) as err:
            diagnostics.error(raw.position, str(err))
            return None

    def _parse_text(self, text: str, position: Position, scope: Scope, diagnostics: Diagnostics) -> Marker | None:
        syntax = grammar.split_marker(text)
        definition = self.lookup(syntax.name)
        keyword_text: str | None = None
        if definition is None:
            definition, keyword_text = self._keyword_form(syntax, text)
        if definition is None:
            head = syntax.name.split(":", 1)[0]
            if head in self.prefixes or syntax.name.split(":")[0] in self.prefixes:
                close = difflib.get_close_matches(syntax.name, self.definitions, n=1)
                hint = f"; did you mean +{close[0]}?" if close else ""
                diagnostics.warning(position, f"unknown marker +{syntax.name}{hint}")
            return None
        if scope not in definition.scopes:
            if definition.floating:
                return None  # read from every comment of the file at package scope already
            where = " or ".join(s.value + "s" for s in sorted(definition.scopes, key=list(Scope).index))
            diagnostics.warning(
                position, f"marker +{definition.name} is for {where}; on a {scope.value} it has no effect"
            )
            return None
        args: dict[str, Any] = {}
        if keyword_text is not None:
            args = self._typed_args(definition, definition.keyword_args or {}, grammar.parse_keyword_args(keyword_text))
            return Marker(name=definition.name, value=None, args=args, position=str(position))
        if syntax.paren is not None:
            if definition.paren_args is None:
                raise ValueError(f"marker +{definition.name} takes no arguments in parentheses")
            args = self._typed_args(definition, definition.paren_args, grammar.parse_named_args(syntax.paren))
        value: Any = None
        if definition.value is _MARKER:
            if syntax.value is None or not syntax.value.startswith("+"):
                raise ValueError(
                    f"marker +{definition.name} needs another marker as its value, as in +{definition.name}=+k8s:minimum=0"
                )
            value = self._parse_text(syntax.value[1:], position, scope, diagnostics)
            if value is None:
                return None
        elif definition.value is _FLAG:
            if syntax.value is not None and grammar.unquote(syntax.value) not in ("true", "false"):
                raise ValueError(f"marker +{definition.name} is a flag and takes no value")
            value = None if syntax.value is None else _bool(syntax.value)
        elif syntax.value is None:
            if definition.keyword_args is not None or definition.value_optional:
                value = None
            else:
                raise ValueError(
                    f"marker +{definition.name} needs a value ({definition.value_type}), as in +{definition.name}=..."
                )
        elif definition.value is None:
            raise ValueError(f"marker +{definition.name} takes arguments as +{definition.name}:key=value,key2=value2")
        else:
            try:
                value = definition.value(syntax.value)  # type: ignore[operator]
            except ValueError as err:
                raise ValueError(f"invalid value for +{definition.name}: {err}") from None
        return Marker(name=definition.name, value=value, args=args, position=str(position))

    def _keyword_form(self, syntax: grammar.MarkerSyntax, text: str) -> tuple[MarkerDef | None, str | None]:
        """`+kubebuilder:printcolumn:name=x,type=y`: find the longest registered prefix."""
        parts = syntax.name.split(":")
        for cut in range(len(parts) - 1, 0, -1):
            candidate = self.lookup(":".join(parts[:cut]))
            if candidate is not None and candidate.keyword_args is not None:
                return candidate, text[len(candidate.name) + 1 :]
        return None, None

    def _typed_args(self, definition: MarkerDef, schema, raw: dict[str, str]) -> dict[str, Any]:
        args: dict[str, Any] = {}
        for key, text in raw.items():
            parse = schema.get(key)
            if parse is None:
                expected = ", ".join(k or "<positional>" for k in schema) or "none"
                raise ValueError(
                    f"marker +{definition.name}: unknown argument {key or 'positional'!r} (expected {expected})"
                )
            try:
                args[key] = parse(text)
            except ValueError as err:
                raise ValueError(f"marker +{definition.name}: argument {key!r} {err}") from None
        return args


def _build_registry() -> Registry:
    r = Registry()
    flag, marker = _FLAG, _MARKER
    # Package identity.
    r.add("groupName", {P}, _string, "API group of the package (doc.go)")
    r.add("versionName", {P}, _string, "API version of the package when it differs from the directory name")
    # gengo families.
    r.add("k8s:deepcopy-gen", {P, T}, _string, "deepcopy-gen: package, true or false",
          inert="Python deep copies need no opt-in")  # fmt: skip
    r.add(
        "k8s:deepcopy-gen:interfaces",
        {T},
        _string,
        "interfaces the deep copy implements (runtime.Object)",
        repeatable=True,
    )
    r.add(
        "k8s:deepcopy-gen:nonpointer-interfaces",
        {T},
        _bool,
        "deepcopy-gen: implement interfaces on the value type",
        inert="Go method receivers; Python objects have none",
    )
    r.add(
        "k8s:defaulter-gen",
        {P, T},
        _string,
        "defaulter-gen: generate defaulters for types with this field (TypeMeta) or false",
        inert="kgen's defaulters cover every type of a package",
    )
    r.add(
        "k8s:defaulter-gen-input",
        {P},
        _string,
        "defaulter-gen: package whose types are defaulted",
        inert="kgen's defaulters are written beside the types they default",
    )
    r.add("k8s:conversion-gen", {P, T, F}, _string, "conversion-gen: internal package to convert to, or false")
    r.add("k8s:conversion-gen-external-types", {P}, _string, "conversion-gen: package holding the external types")
    r.add("k8s:conversion-fn", {T, F}, _one_of("copy-only", "drop"), "conversion-gen: how to convert this member")
    r.add("k8s:openapi-gen", {P, T, F}, _string, "openapi-gen: true, false or x-kubernetes-* extensions")
    r.add("k8s:openapi-model-package", {P}, _string, "openapi-gen: model package name")
    r.add("k8s:protobuf-gen", {P}, _string, "go-to-protobuf: package")
    r.add("protobuf", {T}, _bool, "go-to-protobuf: generate a message for this type")
    r.add("protobuf.nullable", {T, F}, _bool, "go-to-protobuf: a named slice or map type is a message (nullable)")
    r.add("protobuf.as", {T}, _string, "go-to-protobuf: use this message for the type",
          unapplied="kgen writes the type's own message from its fields; name the message with +kgen:python "
          "and its JSON form with +kgen:jsonType")  # fmt: skip
    r.add("protobuf.embed", {T}, _string, "go-to-protobuf: embed the type as this scalar",
          unapplied="kgen writes the type's own message from its fields")  # fmt: skip
    r.add(
        "protobuf.options.(gogoproto.goproto_stringer)",
        {T},
        _bool,
        "go-to-protobuf: gogo stringer option",
        inert="a Go String() method",
    )
    lifecycle = "Go methods the API server reads to warn about deprecated versions"
    r.add(
        "k8s:prerelease-lifecycle-gen",
        {P, T},
        _bool,
        "prerelease-lifecycle-gen: generate lifecycle methods",
        inert=lifecycle,
    )
    for stage in ("introduced", "deprecated", "removed", "replacement"):
        r.add(f"k8s:prerelease-lifecycle-gen:{stage}", {T}, _string, f"prerelease-lifecycle-gen: version the kind was {stage}",
              inert=lifecycle)  # fmt: skip
    r.add(
        "k8s:deprecated",
        {T, F},
        _string,
        "tombstone for a removed field: <json name>,protobuf=<number>",
        repeatable=True,
    )
    # validation-gen.
    r.add(
        "k8s:validation-gen",
        {P},
        _string,
        "validation-gen: package or TypeMeta",
        inert="kgen validates every type of a package",
    )
    r.add(
        "k8s:validation-gen-input",
        {P},
        _string,
        "validation-gen: input package",
        inert="kgen's validators are written beside the types they check",
    )
    r.add(
        "k8s:validation-gen-scheme-registry",
        {P},
        _string,
        "validation-gen: scheme registry",
        inert="the Go scheme validators register in; kgen's register in the package's scheme",
    )
    r.add(
        "k8s:validation-gen-test-fixture", {P}, _string, "validation-gen: test fixture mode", inert="Go test fixtures"
    )
    for name in ("optional", "required", "forbidden"):
        r.add(f"k8s:{name}", {T, F}, flag, f"validation: field is {name}")
    for name in ("minimum", "maximum"):
        r.add(f"k8s:{name}", {T, F}, _int, f"validation: inclusive {name}")
    for name in ("minLength", "maxLength", "maxBytes", "minItems", "maxItems", "minProperties", "maxProperties"):
        r.add(f"k8s:{name}", {T, F}, _int, f"validation: {name}")
    r.add(
        "k8s:format", {T, F},
        _one_of(
            "k8s-short-name", "k8s-long-name", "k8s-label-key", "k8s-label-value", "k8s-prefixed-label-key",
            "k8s-ip", "k8s-cidr", "k8s-uuid", "k8s-path-segment-name", "k8s-resource-fully-qualified-name",
            "k8s-resource-pool-name", "k8s-long-name-caseless", "k8s-extended-resource-name", "date-time",
            "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "byte", "duration", "uuid",
        ),
        "validation: value format",
    )  # fmt: skip
    r.add("k8s:enum", {T}, flag, "validation: the type's constants are its only allowed values")
    r.add("k8s:enumExclude", {C}, flag, "validation: leave this constant out of the enum")
    r.add("k8s:listType", {T, F}, _one_of("atomic", "set", "map"), "list semantics for apply and validation")
    r.add("k8s:listMapKey", {T, F}, _string, "key field of a map list", repeatable=True)
    r.add("k8s:unique", {T, F}, _one_of("set", "map"), "validation: items are unique")
    r.add("k8s:eachVal", {T, F}, marker, "validation: apply a marker to every list item or map value", repeatable=True)
    r.add("k8s:eachKey", {T, F}, marker, "validation: apply a marker to every map key", repeatable=True)
    r.add(
        "k8s:subfield",
        {T, F},
        marker,
        "validation: apply a marker to a named subfield",
        repeatable=True,
        paren_args={"": _string},
    )
    r.add("k8s:item", {T, F}, marker, "validation: apply a marker to the list item with these keys", repeatable=True,
          paren_args=_ANY_ARGS, unapplied="kgen does not yet check the items a +k8s:item selects; +k8s:eachVal checks every item")  # fmt: skip
    r.add(
        "k8s:unionMember",
        {F},
        flag,
        "validation: member of a union",
        paren_args={"union": _string, "memberName": _string},
        repeatable=True,
    )
    r.add("k8s:unionDiscriminator", {F}, flag, "validation: discriminator of a union", paren_args={"union": _string})
    r.add(
        "k8s:zeroOrOneOfMember",
        {F},
        flag,
        "validation: at most one of the members is set",
        paren_args={"union": _string},
    )
    r.add("k8s:immutable", {T, F}, flag, "validation: may not change once set")
    r.add(
        "k8s:update",
        {T, F},
        _list_of("NoSet", "NoUnset", "NoModify", "NoAddItem", "NoRemoveItem"),
        "validation: update restrictions",
        repeatable=True,
    )
    r.add(
        "k8s:monotonic",
        {T, F},
        _one_of("increasing", "decreasing"),
        "validation: value may only grow (or shrink) on update",
        value_optional=True,
    )
    r.add(
        "k8s:ifEnabled",
        {T, F, C},
        marker,
        "validation: apply a marker when a feature gate is on",
        paren_args={"": _string},
        repeatable=True,
    )
    r.add(
        "k8s:ifDisabled",
        {T, F, C},
        marker,
        "validation: apply a marker when a feature gate is off",
        paren_args={"": _string},
        repeatable=True,
    )
    r.add("k8s:alpha", {T, F}, marker, "validation: the marker is alpha-level", paren_args={"since": _string}, repeatable=True,
          inert="alpha rules only shadow the hand-written ones; they are not enforced")  # fmt: skip
    r.add(
        "k8s:beta",
        {T, F},
        marker,
        "validation: the marker is beta-level",
        paren_args={"since": _string},
        repeatable=True,
    )
    r.add(
        "k8s:declarativeValidationNative",
        {T, F},
        flag,
        "validation: declarative only",
        inert="kgen's validation is declarative only",
    )
    # Discriminated ("modal") rules: the field named by +k8s:discriminator chooses which rules
    # hold (validation-gen 1.36 spells them discriminator/member, 1.37 modeDiscriminator/ifMode).
    for name in ("k8s:discriminator", "k8s:modeDiscriminator"):
        r.add(name, {F}, flag, "validation: this field's value chooses the rules +k8s:member/ifMode give the others",
              paren_args={"name": _string, "": _string})  # fmt: skip
    for name in ("k8s:member", "k8s:ifMode"):
        r.add(name, {F}, marker, "validation: apply a marker when the discriminator has this value", repeatable=True,
              paren_args={"": _string, "discriminator": _string})  # fmt: skip
    r.add("k8s:dependentRequired", {F}, flag, "validation: when this field is set, the named field must be set too",
          paren_args={"": _string}, repeatable=True)  # fmt: skip
    r.add("k8s:dependentForbidden", {F}, flag, "validation: when this field is set, the named field must not be",
          paren_args={"": _string}, repeatable=True)  # fmt: skip
    r.add(
        "k8s:customUnique",
        {F, T},
        flag,
        "validation: the list's items are unique by hand-written code (no generated check)",
    )
    r.add(
        "k8s:customValidation",
        {F, T},
        flag,
        "validation: hand-written code validates this value too",
        inert="hand-written checks are kgen validation hooks",
    )
    r.add(
        "k8s:validation-gen-nolint",
        {P, T, F},
        flag,
        "validation-gen: do not lint this package or type",
        inert="validation-gen's lint",
    )
    r.add(
        "k8s:conversion-gen:explicit-from",
        {T},
        _string,
        "conversion-gen: also convert from this type (net/url.Values: query parameters)",
        inert="Go conversions from url.Values; kgen serve reads query parameters itself",
    )
    r.add("k8s:opaqueType", {F}, flag, "validation: do not descend into the field's type",
          unapplied="kgen's validators descend into the field's type and check it with its own rules")  # fmt: skip
    r.add(
        "k8s:isSubresource",
        {T},
        _string,
        "validation: the type is served at this subresource",
        inert="validation-gen's subresource wiring",
    )
    r.add(
        "k8s:supportsSubresource",
        {T},
        _string,
        "validation: the type supports this subresource",
        repeatable=True,
        inert="validation-gen's subresource wiring",
    )
    r.add("k8s:neq", {T, F}, _json_or_bare, "validation: value may not equal this", repeatable=True)
    # Field semantics shared by openapi-gen, apply and validation.
    r.add("optional", {F}, flag, "the field may be omitted")
    r.add("required", {F}, flag, "the field must be set")
    r.add("nullable", {F}, flag, "the field may be null")
    r.add("default", {T, F}, _default, "default value (JSON, or ref(Constant)) applied when the field is unset")
    r.add("listType", {T, F}, _one_of("atomic", "set", "map"), "list semantics for apply and validation")
    r.add("listMapKey", {T, F}, _string, "key field of a map list", repeatable=True)
    r.add("mapType", {T, F}, _one_of("granular", "atomic"), "map semantics for apply")
    r.add("structType", {T, F}, _one_of("granular", "atomic"), "struct semantics for apply")
    r.add(
        "patchStrategy",
        {F},
        _string,
        "strategic merge patch strategy (merge, replace, retainKeys)",
        inert='the struct tag (patchStrategy:"...") is what openapi-gen and the API server read',
    )
    r.add(
        "patchMergeKey",
        {F},
        _string,
        "strategic merge patch key",
        inert='the struct tag (patchMergeKey:"...") is what openapi-gen and the API server read',
    )
    r.add("union", {T, F}, flag, "the struct (or inlined field) is a union", paren_args={"deprecated": _string})
    r.add("unionDiscriminator", {F}, flag, "discriminator of the union")
    r.add("unionDeprecated", {F}, flag, "deprecated member of the union")
    r.add("enum", {T}, flag, "the type's constants are its allowed values")
    r.add(
        "featureGate",
        {F, C},
        _string,
        "the field (or enum value) is alpha/beta behind this feature gate",
        repeatable=True,
        inert="documentation for API review; gated rules are +k8s:ifEnabled",
    )
    r.add("resourceName", {T}, _string, "resource name when it differs from the lower-cased plural")
    # client-gen.
    r.add("genclient", {T}, flag, "generate a typed client for this kind")
    r.add("genclient:nonNamespaced", {T}, flag, "the kind is cluster-scoped")
    r.add("genclient:noVerbs", {T}, flag, "generate no verbs")
    r.add("genclient:noStatus", {T}, flag, "no update-status verb")
    r.add("genclient:readonly", {T}, flag, "only get, list and watch")
    r.add("genclient:onlyVerbs", {T}, _list_of(*_VERBS), "only these verbs")
    r.add("genclient:skipVerbs", {T}, _list_of(*_VERBS), "all verbs but these")
    r.add(
        "genclient:method",
        {T},
        _string,
        "an extra method: Name,verb=...,subresource=...,input=...,result=...",
        repeatable=True,
    )
    # controller-gen.
    r.add("kubebuilder:object:root", {T}, flag, "the type is a root object (kind)")
    r.add(
        "kubebuilder:object:generate",
        {P, T},
        _bool,
        "generate object methods",
        inert="Python deep copies need no opt-in",
    )
    r.add("kubebuilder:skip", {P}, flag, "skip this package")
    r.add("kubebuilder:subresource:status", {T}, flag, "the kind has a /status subresource")
    r.add("kubebuilder:subresource:scale", {T}, None, "the kind has a /scale subresource",
          keyword_args={"specpath": _string, "statuspath": _string, "selectorpath": _string})  # fmt: skip
    r.add("kubebuilder:resource", {T}, None, "CRD resource names and scope",
          keyword_args={"path": _string, "scope": _one_of("Namespaced", "Cluster"), "shortName": _list,
                        "categories": _list, "singular": _string})  # fmt: skip
    r.add("kubebuilder:printcolumn", {T}, None, "an additional printer column", repeatable=True,
          keyword_args={"name": _string, "type": _string, "JSONPath": _string, "description": _string,
                        "format": _string, "priority": _int})  # fmt: skip
    r.add("kubebuilder:storageversion", {T}, flag, "this version is the storage version")
    r.add("kubebuilder:skipversion", {T}, flag, "leave this version out of the CRD")
    r.add("kubebuilder:unservedversion", {T}, flag, "this version is not served")
    r.add("kubebuilder:deprecatedversion", {T}, None, "this version is deprecated", keyword_args={"warning": _string})
    r.add(
        "kubebuilder:selectablefield",
        {T},
        None,
        "a field selector",
        repeatable=True,
        keyword_args={"JSONPath": _string},
    )
    r.add(
        "kubebuilder:metadata",
        {T},
        None,
        "CRD labels and annotations",
        keyword_args={"annotations": _list, "labels": _list},
    )
    # controller-tools' webhook markers (pkg/webhook/parser.go Config and WebhookConfig).
    r.add("kubebuilder:webhook", {P}, None, "an admission webhook of the webhook manifests", repeatable=True,
          floating=True,
          keyword_args={"mutating": _bool, "failurePolicy": _string, "matchPolicy": _string, "sideEffects": _string,
                        "timeoutSeconds": _int, "groups": _strings, "resources": _strings, "verbs": _strings,
                        "versions": _strings, "name": _string, "serviceName": _string, "serviceNamespace": _string,
                        "path": _string, "servicePort": _int, "webhookVersions": _strings,
                        "admissionReviewVersions": _strings, "reinvocationPolicy": _string, "url": _string,
                        "patch": _string})  # fmt: skip
    r.add("kubebuilder:webhookconfiguration", {P}, None, "the name of the Mutating or ValidatingWebhookConfiguration",
          repeatable=True, floating=True, keyword_args={"mutating": _bool, "name": _string})  # fmt: skip
    r.add("kubebuilder:default", {T, F}, _json_or_bare, "default value applied when the field is unset")
    r.add("kubebuilder:example", {T, F}, _json_or_bare, "example value")
    r.add("kubebuilder:title", {T, F}, _string, "schema title")
    r.add("kubebuilder:pruning:PreserveUnknownFields", {T, F}, flag, "keep unknown fields (opaque JSON)")
    r.add("kubebuilder:validation:Optional", {P, T, F}, flag, "fields are optional (package) or this field is")
    r.add("kubebuilder:validation:Required", {P, T, F}, flag, "fields are required (package) or this field is")
    for prefix, scopes in (("kubebuilder:validation:", {T, F}), ("kubebuilder:validation:items:", {T, F})):
        r.add(prefix + "Minimum", scopes, _number, "inclusive minimum")
        r.add(prefix + "Maximum", scopes, _number, "inclusive maximum")
        r.add(prefix + "ExclusiveMinimum", scopes, _bool, "the minimum is exclusive")
        r.add(prefix + "ExclusiveMaximum", scopes, _bool, "the maximum is exclusive")
        r.add(prefix + "MultipleOf", scopes, _number, "value is a multiple of this")
        r.add(prefix + "MinLength", scopes, _int, "minimum string length")
        r.add(prefix + "MaxLength", scopes, _int, "maximum string length")
        r.add(prefix + "Pattern", scopes, _string, "regular expression the string matches")
        r.add(prefix + "MinItems", scopes, _int, "minimum list length")
        r.add(prefix + "MaxItems", scopes, _int, "maximum list length")
        r.add(prefix + "UniqueItems", scopes, _bool, "list items are unique")
        r.add(prefix + "MinProperties", scopes, _int, "minimum map size")
        r.add(prefix + "MaxProperties", scopes, _int, "maximum map size")
        r.add(prefix + "Enum", scopes, _list, "allowed values")
        r.add(prefix + "Format", scopes, _string, "OpenAPI format")
        r.add(prefix + "Type", scopes, _string, "OpenAPI type override")
        r.add(prefix + "XValidation", scopes, None, "a CEL validation rule", repeatable=True,
              keyword_args={"rule": _string, "message": _string, "messageExpression": _string,
                            "reason": _string, "fieldPath": _string, "optionalOldSelf": _bool})  # fmt: skip
    r.add("kubebuilder:validation:ExactlyOneOf", {T}, _list, "exactly one of these fields is set", repeatable=True)
    r.add("kubebuilder:validation:AtMostOneOf", {T}, _list, "at most one of these fields is set", repeatable=True)
    r.add("kubebuilder:validation:AtLeastOneOf", {T}, _list, "at least one of these fields is set", repeatable=True)
    r.add("kubebuilder:validation:Schemaless", {F}, flag, "emit no schema for this field")
    r.add("kubebuilder:validation:EmbeddedResource", {T, F}, flag, "the field holds an embedded object")
    r.add("kubebuilder:validation:XEmbeddedResource", {T, F}, flag, "the field holds an embedded object")
    r.add("kubebuilder:validation:XIntOrString", {T, F}, flag, "the field is an int or a string")
    # kgen's own.
    r.add("kgen:storageVersion", {T}, flag, "this version is the storage version of the kind")
    r.add(
        "kgen:python",
        {T},
        _string,
        "the type is implemented by this Python class (module:Name); its JSON form is custom",
    )
    r.add("kgen:jsonType", {T}, _one_of("string", "integer", "number", "boolean", "object", "int-or-string", "any"),
          "JSON type of a type implemented by a Python class")  # fmt: skip
    r.add("kgen:mutable", {T}, flag, "instances of a Python-implemented type are mutable and must be copied")
    r.add(
        "kgen:celCost",
        {P, T, F},
        _one_of("error", "warn"),
        "a CEL rule over the API server's cost budget: an error (the default: the server refuses the CRD) or, "
        "for rules declared here (in this package, on this type or field), a warning",
    )
    r.add("kgen:opaque", {T, F}, flag, "arbitrary JSON: the value is kept as parsed")
    return r


_VERBS = (
    "create",
    "update",
    "updateStatus",
    "delete",
    "deleteCollection",
    "get",
    "list",
    "watch",
    "patch",
    "apply",
    "applyStatus",
)


class _AnyArgs(dict):
    """Argument schema that accepts any key as a string (for `+k8s:item(key: value)`)."""

    def get(self, key, default=None):  # noqa: D102 - dict protocol
        return _string


_ANY_ARGS = _AnyArgs()

REGISTRY = _build_registry()
