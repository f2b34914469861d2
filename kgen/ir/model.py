"""The intermediate representation: Universe -> Package -> TypeDef -> Field -> TypeRef.

Frozen pydantic records, fully resolved: every reference points at a type that exists,
every name a generator needs is computed once in `kgen.ir.build`, embedded structs are
flattened the way Go's encoding/json flattens them. The same records serialize to the
versioned JSON document that `kgen ir` prints (format `IR_FORMAT`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr

from kgen.markers.registry import Marker

IR_FORMAT = "kgen.dev/ir/v1alpha1"
API_RULE_EXCEPTIONS = "api-rules/violation_exceptions.list"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class TypeRef(_Frozen):
    """A reference to a type.

    kind `basic` is a Go predeclared type (`string`, `int32`, `bool`, `float64`, `bytes`
    for `[]byte`, ...); `named` refers to a TypeDef by package import path and name;
    `pointer`, `slice` and `map` wrap `elem` (and `key`); `any` is arbitrary JSON.
    """

    kind: Literal["basic", "named", "pointer", "slice", "map", "any"]
    basic: str | None = None
    package: str | None = None
    name: str | None = None
    elem: TypeRef | None = None
    key: TypeRef | None = None

    def __str__(self) -> str:
        if self.kind == "basic":
            return "[]byte" if self.basic == "bytes" else str(self.basic)
        if self.kind == "named":
            return f"{self.package}.{self.name}"
        if self.kind == "pointer":
            return f"*{self.elem}"
        if self.kind == "slice":
            return f"[]{self.elem}"
        if self.kind == "map":
            return f"map[{self.key}]{self.elem}"
        return "any"


class ProtobufInfo(_Frozen):
    """The parsed `protobuf:` tag of a field."""

    wire_type: str
    number: int
    label: str
    name: str
    options: dict[str, str] = {}


class CelRule(_Frozen):
    """A CEL validation rule (`+kubebuilder:validation:XValidation`)."""

    rule: str
    message: str = ""
    message_expression: str = ""
    reason: str = ""
    """FieldValueInvalid (default), FieldValueForbidden, FieldValueRequired or FieldValueDuplicate."""
    field_path: str = ""
    optional_old_self: bool = False
    position: str = ""


class Constraints(_Frozen):
    """What validation checks of one value: a field, a named type, list items, map keys or values.

    Read from the `+k8s:*` (validation-gen), `+kubebuilder:validation:*` (controller-gen)
    and shared (`+listType`, `+required`, ...) markers; the validation generator turns it
    into code and the OpenAPI generator into schema keywords, so both judge alike.
    """

    presence: Literal["required", "optional", "forbidden"] | None = None
    """Set only by a marker (or the package default); None leaves requiredness unchecked."""
    minimum: int | float | None = None
    exclusive_minimum: bool = False
    maximum: int | float | None = None
    exclusive_maximum: bool = False
    multiple_of: int | float | None = None
    min_length: int | None = None
    """In characters, as are `max_length`."""
    max_length: int | None = None
    max_bytes: int | None = None
    pattern: str | None = None
    format: str | None = None
    enum: tuple[Any, ...] | None = None
    """Allowed values listed by `+kubebuilder:validation:Enum`; type enums come from constants."""
    neq: tuple[Any, ...] = ()
    min_items: int | None = None
    max_items: int | None = None
    list_type: Literal["atomic", "set", "map"] | None = None
    list_map_keys: tuple[str, ...] = ()
    """JSON names of the key fields of a `map` list."""
    unique: Literal["set", "map"] | None = None
    """Items must be unique: by value (`set`), or by their `list_map_keys` (`map`)."""
    min_properties: int | None = None
    max_properties: int | None = None
    items: Constraints | None = None
    """Of every list item or map value (`+k8s:eachVal`, `+kubebuilder:validation:items:*`)."""
    keys: Constraints | None = None
    """Of every map key (`+k8s:eachKey`)."""
    subfields: dict[str, Constraints] = {}
    """Of named fields of a struct value, by JSON name (`+k8s:subfield("name")`)."""
    immutable: bool = False
    update: tuple[Literal["NoSet", "NoUnset", "NoModify", "NoAddItem", "NoRemoveItem"], ...] = ()
    monotonic: Literal["increasing", "decreasing"] | None = None
    rules: tuple[CelRule, ...] = ()
    gated: tuple[Gated, ...] = ()
    """Constraints that apply only while a feature gate is on (or off)."""
    discriminator: bool = False
    """The field's value chooses which `modal` rules of the struct's other fields hold
    (`+k8s:discriminator`, `+k8s:modeDiscriminator`)."""
    modal: tuple[Modal, ...] = ()
    """Constraints that apply while the struct's discriminator field has a value
    (`+k8s:member("Limited")=+k8s:required`, `+k8s:ifMode(...)`)."""
    dependent_required: tuple[str, ...] = ()
    """JSON names of fields that must be set when this one is (`+k8s:dependentRequired`)."""
    dependent_forbidden: tuple[str, ...] = ()
    """JSON names of fields that must not be set when this one is (`+k8s:dependentForbidden`)."""
    custom_unique: bool = False
    """The list's items are unique by hand-written code: no generated check (`+k8s:customUnique`)."""
    position: str = ""
    """Where the first validation marker of this value was written."""

    def is_empty(self) -> bool:
        """No constraint at all (where it was written does not count)."""
        values = self.__dict__
        return all(values[name] == default for name, default in _CONSTRAINT_DEFAULTS)


class Modal(_Frozen):
    """`+k8s:member("Value")=+...`: constraints that hold while the discriminator is `value`."""

    value: str
    constraints: Constraints


class Gated(_Frozen):
    """`+k8s:ifEnabled(Gate)=+...` / `+k8s:ifDisabled(Gate)=+...`."""

    gate: str
    enabled: bool
    """Applies while the gate is on (ifEnabled) or off (ifDisabled)."""
    constraints: Constraints


Constraints.model_rebuild()
Modal.model_rebuild()
_CONSTRAINT_DEFAULTS = tuple(
    (name, info.get_default(call_default_factory=True))
    for name, info in Constraints.model_fields.items()
    if name != "position"
)


class UnionMember(_Frozen):
    json_name: str
    member_name: str
    """The discriminator value naming this member (the Go field name unless given)."""


class Union(_Frozen):
    """A group of fields of which exactly one, at most one, or at least one is set."""

    name: str = ""
    mode: Literal["exactlyOne", "zeroOrOne", "atLeastOne"] = "exactlyOne"
    members: tuple[UnionMember, ...] = ()
    discriminator: str | None = None
    """JSON name of the field that names the member that is set."""
    origin: str = ""
    """The marker that declared it (`union`, `k8s:unionMember`, `kubebuilder:validation:ExactlyOneOf`, ...)."""
    position: str = ""


class Field(_Frozen):
    """A JSON-visible field of a struct, after embedded structs are flattened."""

    go_name: str
    """Name of the Go struct member."""
    go_path: tuple[str, ...]
    """Go selector from the struct to the member: ("ObjectMeta",) or ("TypeMeta", "Kind")."""
    json_name: str
    python_name: str
    """snake_case attribute name on the generated model."""
    type: TypeRef
    doc: str = ""
    """Doc comment with markers removed."""
    markers: tuple[Marker, ...] = ()
    omitempty: bool = False
    omitzero: bool = False
    json_string: bool = False
    """`json:",string"`: the number or bool is encoded inside a JSON string."""
    optional: bool = True
    """Per the API conventions: markers, then the package default, then omitempty."""
    protobuf: ProtobufInfo | None = None
    patch_strategy: str | None = None
    patch_merge_key: str | None = None
    tags: dict[str, str] = {}
    """Every struct tag as written, unknown keys included."""
    default: Any = None
    """The JSON default (`+default`, `+kubebuilder:default`, or the type's); None when none,
    or when it is the Go zero value of a non-pointer field (defaulting would change nothing)."""
    declared_default: Any = None
    """The default as the markers declare it, a zero value included (`+default=""`): what
    schemas state, as openapi-gen and controller-gen write it."""
    default_is_ref: bool = False
    """The default is `+default=ref(Constant)`, which controller-gen leaves out of CRDs."""
    validation: Constraints = Constraints()
    openapi: Constraints = Constraints()
    """`validation` as openapi-gen publishes it for Kubernetes' own groups: without
    controller-gen's markers and validation-gen's rule tags (`+k8s:minimum`...), which the
    API server enforces in code. (Custom resources publish all of `validation`: their
    schema is their validation.)"""
    crd: Constraints = Constraints()
    """`validation` as controller-gen publishes it (of a type a CRD embeds from a package
    that is not a custom resource, such as core/v1): without validation-gen's rule tags."""
    position: str = ""

    def marker(self, name: str) -> Marker | None:
        return next((m for m in self.markers if m.name == name), None)

    def has_marker(self, name: str) -> bool:
        return any(m.name == name for m in self.markers)


class Member(_Frozen):
    """A Go struct member as written (before flattening); what conversion and protobuf see."""

    go_name: str
    type: TypeRef
    embedded: bool = False
    promoted: bool = False
    """Embedded and promoted into the parent's JSON object (empty JSON name)."""
    json_name: str | None = None
    """None when `json:"-"` (a member only for its protobuf tag) or promoted."""
    protobuf: ProtobufInfo | None = None
    tags: dict[str, str] = {}
    """Every struct tag as written."""
    markers: tuple[Marker, ...] = ()
    doc: str = ""
    comment: tuple[str, ...] = ()
    """The comment above the member as written, markers included (as go-to-protobuf copies it)."""
    position: str = ""


class EnumValue(_Frozen):
    """A typed constant of a named scalar type."""

    go_name: str
    python_name: str
    value: str | int | float | bool
    doc: str = ""
    markers: tuple[Marker, ...] = ()
    excluded_when: tuple[tuple[str, bool], ...] = ()
    """Feature gates under which the constant is not an allowed value: (gate, enabled)."""
    position: str = ""


class TypeDef(_Frozen):
    """A named type.

    kind `struct`: `members` as written and `fields` as JSON sees them.
    kind `named`: a named non-struct type over `underlying` (`type Phase string`,
    `type ResourceList map[ResourceName]resource.Quantity`), with `enum_values`.
    kind `python`: implemented by a runtime Python class (`python_class`) with a custom
    JSON form (`json_type`), like Quantity and Time.
    """

    name: str
    package: str
    kind: Literal["struct", "named", "python"]
    python_name: str
    doc: str = ""
    comment: tuple[str, ...] = ()
    """The comment block directly above the type as written, markers included."""
    markers: tuple[Marker, ...] = ()
    position: str = ""
    members: tuple[Member, ...] = ()
    """Struct members as written; also kept for kind `python` types declared as structs
    (their protobuf messages)."""
    fields: tuple[Field, ...] = ()
    underlying: TypeRef | None = None
    recursive_underlying: TypeRef | None = None
    """kind `named`: the type as written when it refers back to itself through lists or maps
    (`type L []L`, legal Go whose JSON is nested arrays). `underlying` then has every such
    self-reference replaced by arbitrary JSON (`any`), which is how generators that walk
    types see it; the models type it exactly, as a recursive alias."""
    enum_values: tuple[EnumValue, ...] = ()
    is_enum: bool = False
    """The type's constants are its known values (open-ended string enum in Python)."""
    python_class: str | None = None
    """`module:Name` of the runtime class for kind `python`."""
    json_type: str | None = None
    mutable: bool = False
    """kind `python`: instances are mutable and must be copied by deep copies."""
    defined_from: str | None = None
    """`type X other.Y`: the type X was defined from."""
    is_kind: bool = False
    """A top-level API object: inlines TypeMeta and has ObjectMeta as `metadata`."""
    is_list: bool = False
    """A list kind: inlines TypeMeta, ListMeta as `metadata`, and `items`."""
    list_item: TypeRef | None = None
    validation: Constraints = Constraints()
    """Constraints of the type itself (type-level markers), applied wherever it is used; a
    struct's include the rules of the structs it embeds inline."""
    openapi: Constraints = Constraints()
    """`validation` as openapi-gen publishes it (see Field.openapi)."""
    crd: Constraints = Constraints()
    """`validation` as controller-gen publishes it (see Field.crd)."""
    unions: tuple[Union, ...] = ()
    """A struct's unions, those of the structs it embeds inline included."""

    def marker(self, name: str) -> Marker | None:
        return next((m for m in self.markers if m.name == name), None)

    def has_marker(self, name: str) -> bool:
        return any(m.name == name for m in self.markers)

    @property
    def is_resource(self) -> bool:
        """A kind with object metadata, which a server stores and a CRD serves (a component
        configuration kind has TypeMeta only: models, defaults and conversion, no CRD)."""
        return self.is_kind and any(
            f.json_name == "metadata" and f.type.kind == "named" and f.type.name == "ObjectMeta"
            and f.type.package == "k8s.io/apimachinery/pkg/apis/meta/v1"
            for f in self.fields
        )  # fmt: skip


class Hook(_Frozen):
    """A top-level function of a hand-written hook module beside the API types."""

    module: str
    """"defaults", "conversion" or "validation"."""
    name: str
    parameters: tuple[str, ...]
    flexible: bool = False
    """It also takes *args, **kwargs, keyword-only or defaulted parameters."""
    position: str = ""


class Package(_Frozen):
    """One Go package: an API group/version (internal or external) or a well-known package."""

    import_path: str
    go_name: str
    group: str
    version: str
    internal: bool
    """The hub version (types in the group directory, no version)."""
    output_dir: str
    """Where its generated files go, relative to the output root ("example/v1")."""
    python_package: str
    """Dotted module path, relative to the output root, or absolute for built-ins."""
    builtin: bool = False
    """A well-known package whose Python code ships in kgen's runtime."""
    role: Literal["api", "library", "dependency", "builtin"] = "api"
    """`api`: an API group/version of the input, every type of which is generated; `library`:
    an input package of shared types, `dependency`: a package from outside the input (the
    module cache, vendor/, an import map), `builtin`: one of kgen's well-known packages;
    of these, only the types API types reach are in the package."""
    custom_resources: bool = False
    """Its kinds are custom resources (CRDs; storage versions chosen by markers): an API
    group of the input that is not one of Kubernetes' built-in groups, not `+kubebuilder:skip`."""
    generate: bool = True
    doc: str = ""
    markers: tuple[Marker, ...] = ()
    files: tuple[str, ...] = ()
    types: tuple[TypeDef, ...] = ()
    hooks: tuple[Hook, ...] = ()
    manual_conversions: tuple[str, ...] = ()
    """Hand-written Go conversion functions of the package (`Convert_v1beta1_X_To_v1beta2_X`),
    as conversion-gen finds them: a direction they cover needs a Python hook too."""
    hooks_module: str | None = None
    """Dotted module path the hook modules are imported under (`apis.example.v1`)."""

    _by_name: dict[str, TypeDef] = PrivateAttr(default_factory=dict)

    def model_post_init(self, __context) -> None:
        self._by_name.update({t.name: t for t in self.types})

    def type(self, name: str) -> TypeDef | None:
        # Reads the private index directly: pydantic's private-attribute lookup is slow in hot loops.
        return self.__pydantic_private__["_by_name"].get(name)

    def marker(self, name: str) -> Marker | None:
        return next((m for m in self.markers if m.name == name), None)

    def hook(self, module: str, name: str) -> Hook | None:
        return next((h for h in self.hooks if h.module == module and h.name == name), None)


class Universe(_Frozen):
    """Every package kgen read, the input and what it references."""

    format: str = IR_FORMAT
    module: str = ""
    packages: tuple[Package, ...] = ()
    api_rule_exceptions: tuple[str, ...] | None = None
    """Known API rule violations (`api-rules/violation_exceptions.list` in the input), as
    openapi-gen reports them: `API rule violation: <rule>,<package>,<type>,<field>`.
    None when the input has no such list (violations are then only reported)."""

    _by_path: dict[str, Package] = PrivateAttr(default_factory=dict)

    def model_post_init(self, __context) -> None:
        self._by_path.update({p.import_path: p for p in self.packages})

    def package(self, import_path: str) -> Package:
        return self.__pydantic_private__["_by_path"][import_path]

    def resolve(self, ref: TypeRef) -> TypeDef:
        """The TypeDef a `named` TypeRef points at."""
        assert ref.kind == "named" and ref.package is not None and ref.name is not None
        found = self.__pydantic_private__["_by_path"][ref.package].type(ref.name)
        assert found is not None, f"unresolved {ref}"
        return found

    @property
    def generated_packages(self) -> tuple[Package, ...]:
        return tuple(p for p in self.packages if p.generate)
