"""The IR builder: resolution, embedding as encoding/json does it, enums, kinds, diagnostics."""

from __future__ import annotations

import pytest

from conftest import TESTDATA, build, messages, write_tree
from kgen.ir.build import META_V1

REALWORLD = TESTDATA / "realworld"
SHOP = "example.com/shop/apis/shop/v1"


@pytest.fixture(scope="module")
def shop():
    universe, diagnostics = build(
        REALWORLD / "apis",
        module="example.com/shop/apis",
        import_map={"example.com/gateway/apis/v1": REALWORLD / "third_party/gateway/v1"},
    )
    assert [d for d in diagnostics.sorted() if d.severity.value == "error"] == []
    return universe


def fields(universe, package, name):
    return [(f.json_name, ".".join(f.go_path), str(f.type)) for f in universe.package(package).type(name).fields]


def test_package_identity_from_doc_go(shop):
    package = shop.package(SHOP)
    assert (package.group, package.version, package.internal) == ("shop.example.com", "v1", False)
    assert package.output_dir == "shop/v1"
    assert package.doc == "Package v1 contains API Schema definitions for the shop v1 API group."
    assert [m.name for m in package.markers] == [
        "k8s:deepcopy-gen", "k8s:openapi-gen", "groupName", "kubebuilder:validation:Optional",
    ]  # fmt: skip


def test_embedded_structs_are_flattened_as_encoding_json_does(shop):
    assert fields(shop, SHOP, "StoreSpec")[:6] == [
        ("street", "Address.Street", "string"),  # json:"" promotes
        # Address.City and Hours.City collide at the same depth, both tagged: Go drops both.
        ("opens", "Hours.Opens", "string"),  # *Hours without a tag promotes
        ("closes", "Hours.Closes", "string"),
        ("owner", "Owner", "example.com/shop/apis/shop/v1.Owner"),  # a named tag keeps it a field
        ("Shelves", "Shelves", "int32"),  # no tag: the Go name
        ("Bins", "Bins", "int32"),
    ]


def test_type_meta_inline_and_object_meta_named(shop):
    assert fields(shop, SHOP, "Store")[:3] == [
        ("kind", "TypeMeta.Kind", "string"),
        ("apiVersion", "TypeMeta.APIVersion", "string"),
        ("metadata", "ObjectMeta", f"{META_V1}.ObjectMeta"),
    ]


def test_field_types_resolve_through_named_types_aliases_and_imports(shop):
    by_name = {f.json_name: f for f in shop.package(SHOP).type("StoreSpec").fields}
    assert str(by_name["stock"].type) == f"{SHOP}.ResourceList"
    assert str(by_name["blobs"].type) == "map[string][]byte"
    assert str(by_name["aisles"].type) == f"map[{SHOP}.AisleName][]string"
    assert str(by_name["logo"].type) == "[]byte"
    assert str(by_name["port"].type) == "*k8s.io/apimachinery/pkg/util/intstr.IntOrString"
    assert str(by_name["extra"].type) == "any"
    last_audit = shop.package(SHOP).type("StoreStatus").fields[0]
    assert str(last_audit.type) == f"*{META_V1}.Time"  # through `type Time = metav1.Time`
    assert shop.package(SHOP).type("Time") is None  # aliases are not types of their own


def test_json_tag_options_and_skipped_fields(shop):
    by_name = {f.json_name: f for f in shop.package(SHOP).type("StoreSpec").fields}
    assert "Ignored" not in by_name and "ignored" not in by_name  # json:"-"
    assert by_name["-"].go_name == "Dash"  # json:"-," names the field "-"
    assert by_name["count"].json_string and by_name["count"].omitempty
    assert by_name["closed"].omitzero and not by_name["closed"].omitempty
    assert by_name["required"].tags == {"json": "required", "yaml": "required", "custom": "kept verbatim"}


def test_optional_follows_markers_then_the_package_default(shop):
    by_name = {f.json_name: f for f in shop.package(SHOP).type("StoreSpec").fields}
    assert by_name["required"].optional is False  # +required
    assert by_name["Shelves"].optional is True  # +kubebuilder:validation:Optional in doc.go


def test_type_defined_from_another_packages_struct(shop):
    route = shop.package(SHOP).type("Route")
    assert route.kind == "struct" and route.defined_from == "example.com/gateway/apis/v1.GRPCRoute"
    assert [f.json_name for f in route.fields] == ["kind", "apiVersion", "metadata", "spec"]
    dependency = shop.package("example.com/gateway/apis/v1")
    assert dependency.output_dir == "_deps/example_com/gateway/apis/v1"


def test_enums_from_typed_consts(shop):
    phase = shop.package(SHOP).type("StorePhase")
    assert phase.is_enum
    assert [(v.python_name, v.value, v.doc) for v in phase.enum_values] == [
        ("OPEN", "Open", "StorePhaseOpen means the store is open."),
        ("CLOSED", "Closed", ""),
    ]  # StorePhaseLegacy has +k8s:enumExclude; notAPhase is untyped
    level = shop.package(SHOP).type("Level")
    assert [(v.python_name, v.value) for v in level.enum_values] == [("LOW", 1), ("MID", 2), ("HIGH", 3)]


def test_kinds_and_lists(shop):
    store, store_list = shop.package(SHOP).type("Store"), shop.package(SHOP).type("StoreList")
    assert (store.is_kind, store.is_list) == (True, False)
    assert (store_list.is_kind, store_list.is_list, str(store_list.list_item)) == (False, True, f"{SHOP}.Store")
    assert shop.package(SHOP).type("StoreSpec").is_kind is False


def test_type_markers_and_docs(shop):
    store = shop.package(SHOP).type("Store")
    assert [m.name for m in store.markers] == [
        "genclient", "genclient:nonNamespaced", "k8s:deepcopy-gen:interfaces", "kubebuilder:resource",
    ]  # fmt: skip
    assert store.doc == "Store is a shop front.\n\nIt sells Items. This second paragraph is still\ndocumentation of Store."


def test_build_constraints_choose_one_declaration(shop, tmp_path):
    assert [f.json_name for f in shop.package(SHOP).type("Tuning").fields] == ["speed"]


def test_generated_test_and_platform_files_are_not_read(shop):
    files = [f.rsplit("/", 1)[-1] for f in shop.package(SHOP).files]
    assert files == ["doc.go", "tuning_default.go", "types.go"]


def test_well_known_types(shop):
    meta = shop.package(META_V1)
    assert meta.builtin and not meta.generate
    assert meta.python_package == "kgen.runtime.apimachinery.meta.v1"
    assert meta.type("Time").kind == "python" and meta.type("Time").python_class == "kgen.runtime.timeutil:Time"
    quantity = shop.package("k8s.io/apimachinery/pkg/api/resource").type("Quantity")
    assert (quantity.kind, quantity.json_type) == ("python", "int-or-string")
    assert [f.json_name for f in meta.type("ObjectMeta").fields][-3:] == ["ownerReferences", "finalizers", "managedFields"]


# -- bad input: exact messages and locations ------------------------------------------------

BAD_INPUTS = [
    (
        "func field",
        "type A struct {\n\tHook func() `json:\"hook\"`\n}\n",
        ["v1/types.go:4:7: error: func fields cannot be serialized; API types hold data only"],
    ),
    (
        "chan field",
        "type A struct {\n\tC chan int `json:\"c\"`\n}\n",
        ["v1/types.go:4:4: error: channel fields cannot be serialized; API types hold data only"],
    ),
    (
        "bare interface",
        "type A struct {\n\tAnything interface{} `json:\"anything\"`\n}\n",
        [
            "v1/types.go:4:11: error: interface{} holds arbitrary JSON: mark the field or type with +kgen:opaque "
            "(or +kubebuilder:pruning:PreserveUnknownFields) to keep it as parsed JSON"
        ],
    ),
    (
        "undefined type",
        "type A struct {\n\tB Missing `json:\"b\"`\n}\n",
        ["v1/types.go:4:4: error: undefined type Missing in package example.com/apis/v1"],
    ),
    (
        "unknown package",
        "type A struct {\n\tB corev1.Pod `json:\"b\"`\n}\n",
        ["v1/types.go:4:4: error: undefined package 'corev1' in corev1.Pod: import it in this file"],
    ),
    (
        "fixed array",
        "type A struct {\n\tB [4]int32 `json:\"b\"`\n}\n",
        ["v1/types.go:4:4: error: fixed-size arrays are not supported in API types; use a slice"],
    ),
    (
        "bad map key",
        "type A struct {\n\tB map[bool]string `json:\"b\"`\n}\n",
        [
            "v1/types.go:4:8: error: map key type bool cannot be a JSON object key: use string, an integer type, "
            "or a named string type"
        ],
    ),
    (
        "malformed protobuf tag",
        "type A struct {\n\tB string `protobuf:\"bytes,x,opt,name=b\"`\n}\n",
        [
            "v1/types.go:4:11: error: protobuf tag 'bytes,x,opt,name=b': field number 'x' must be a positive integer"
        ],
    ),
    (
        "recursive value",
        "type A struct {\n\tB A `json:\"b\"`\n}\n",
        [
            "v1/types.go:3:6: error: type A contains itself by value (through embedding or a struct field); use a pointer"
        ],
    ),
    (
        "recursive value through embedding",
        "type A struct {\n\tB `json:\",inline\"`\n}\n\ntype B struct {\n\tA\n}\n",
        [
            "v1/types.go:3:6: error: type A contains itself by value (through embedding or a struct field); use a pointer"
        ],
    ),
    (
        "error field",
        "type A struct {\n\tErr error `json:\"err\"`\n}\n",
        [
            "v1/types.go:4:6: error: error is an interface with methods and cannot be serialized; API types hold "
            "data only (a message is a string field)"
        ],
    ),
    (
        "complex field",
        "type A struct {\n\tZ complex128 `json:\"z\"`\n}\n",
        ["v1/types.go:4:4: error: complex numbers have no JSON form (encoding/json rejects them); use two float fields"],
    ),
    (
        "duplicate json names",
        "type A struct {\n\tB string `json:\"x\"`\n\tC string `json:\"x\"`\n}\n",
        ["v1/types.go:5:2: error: fields B and C both use the JSON name 'x'; Go would drop both: rename one"],
    ),
    (
        "malformed marker value",
        "type A struct {\n\t// +k8s:maximum=ten\n\tB int32 `json:\"b\"`\n}\n",
        ["v1/types.go:4:5: error: invalid value for +k8s:maximum: must be an integer, got 'ten'"],
    ),
]


def test_a_marker_given_twice_counts_once_the_first_as_upstream_reads_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, {"v1/types.go": (
        "package v1\n\ntype A struct {\n\t// +default=1\n\t// +default=2\n\t// +patchMergeKey=name\n"
        "\t// +patchMergeKey=name\n\tB int32 `json:\"b\"`\n}\n"
    )})  # fmt: skip
    universe, diagnostics = build(tmp_path / "v1", module="example.com/apis/v1")
    assert messages(diagnostics) == [
        "v1/types.go:5:5: warning: +default is given twice with different values (first at v1/types.go:4:5); "
        "the first counts, as controller-gen and gengo read it: keep one"
    ]
    field = universe.package("example.com/apis/v1").type("A").fields[0]
    assert field.default == 1 and [m.name for m in field.markers].count("patchMergeKey") == 1


# A kind that reaches A: a member kgen cannot generate is an error where a kind reaches it
# (in Go code's own types no kind uses, a warning: tests/test_upstream_tolerance.py).
KIND_USING_A = """package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// K is a kind.
type K struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	A                 *A `json:"a,omitempty"`
}
"""


@pytest.mark.parametrize("case, body, expected", BAD_INPUTS, ids=[c[0] for c in BAD_INPUTS])
def test_bad_input_is_a_diagnostic_with_location(tmp_path, monkeypatch, case, body, expected):
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, {"v1/types.go": "package v1\n\n" + body, "v1/kind.go": KIND_USING_A})
    _, diagnostics = build(tmp_path / "v1", module="example.com/apis/v1")
    assert [m for m in messages(diagnostics) if "error" in m] == expected


def test_a_cycle_through_a_pointer_is_not_a_value_cycle(tmp_path, monkeypatch):
    """go-openapi's shape: Schema points to Items, which embeds Schema by value; legal Go."""
    monkeypatch.chdir(tmp_path)
    body = (
        "type Schema struct {\n\t// +optional\n\tItems *Items `json:\"items,omitempty\"`\n"
        "\t// +optional\n\tType string `json:\"type,omitempty\"`\n}\n\n"
        "// +default={}\ntype Items struct {\n\tSchema `json:\",inline\"`\n\t// +optional\n\tRef string `json:\"ref,omitempty\"`\n}\n"
    )
    write_tree(tmp_path, {"v1/types.go": "package v1\n\n" + body})
    universe, diagnostics = build(tmp_path / "v1", module="example.com/apis/v1")
    assert [m for m in messages(diagnostics) if "error" in m] == []
    types = {t.name: t for t in universe.package("example.com/apis/v1").types}
    assert [f.json_name for f in types["Items"].fields] == ["items", "type", "ref"]
    # The default of the pointed-to type still reaches the field that points to it.
    assert types["Schema"].fields[0].default == {}


def test_all_errors_are_reported_not_just_the_first(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_tree(
        tmp_path,
        {"v1/types.go": "package v1\n\ntype A struct {\n\tB Missing\n\tC func()\n\t// +k8s:minimum=x\n\tD int32\n}\n",
         "v1/kind.go": KIND_USING_A},
    )
    _, diagnostics = build(tmp_path / "v1", module="example.com/apis/v1")
    assert len(diagnostics.errors) == 3


def test_unresolvable_import_names_the_fix(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_tree(
        tmp_path,
        {"v1/types.go": 'package v1\n\nimport corev1 "k8s.io/api/core/v1"\n\ntype A struct {\n\tP corev1.PodSpec `json:"p"`\n}\n'},
    )
    _, diagnostics = build(tmp_path / "v1", module="example.com/apis/v1")
    assert messages(diagnostics) == [
        "v1/types.go:6:4: error: corev1.PodSpec: cannot find package 'k8s.io/api/core/v1': there is no go.mod at or "
        "above the input to say where it comes from; add an import-map line k8s.io/api/core/v1=DIR, or run kgen "
        "in the Go module"
    ]


def test_duplicate_declarations_without_build_tags_collide(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, {"v1/a.go": "package v1\n\ntype A struct{}\n", "v1/b.go": "package v1\n\ntype A struct{}\n"})
    _, diagnostics = build(tmp_path / "v1", module="example.com/apis/v1")
    assert messages(diagnostics) == [
        "v1/b.go:3:6: error: type A is declared twice in package example.com/apis/v1 (first at v1/a.go:3:6); "
        "give one file a build constraint or rename one"
    ]


def test_internal_and_versioned_packages(tmp_path):
    write_tree(
        tmp_path,
        {
            "widgets/doc.go": "// +groupName=widgets.example.com\npackage widgets\n",
            "widgets/types.go": "package widgets\n\ntype W struct{}\n",
            "widgets/v1alpha1/doc.go": "// +groupName=widgets.example.com\npackage v1alpha1\n",
            "widgets/v1alpha1/types.go": "package v1alpha1\n\ntype W struct{}\n",
        },
    )
    universe, diagnostics = build(tmp_path)
    assert not diagnostics.items
    internal = universe.package("example.com/apis/widgets")
    external = universe.package("example.com/apis/widgets/v1alpha1")
    assert (internal.group, internal.version, internal.internal) == ("widgets.example.com", "__internal", True)
    assert (external.group, external.version, external.internal) == ("widgets.example.com", "v1alpha1", False)


def test_a_type_defined_from_another_takes_its_type_markers(tmp_path, monkeypatch):
    """`type A B` has B's validation, list semantics and default, as controller-gen reads it;
    A's own markers win; what makes B a kind (+genclient, +kubebuilder:object:root) stays with B."""
    monkeypatch.chdir(tmp_path)
    write_tree(
        tmp_path,
        {
            "net/v1/doc.go": "// +groupName=net.example.com\npackage v1\n",
            "net/v1/types.go": """
                package v1

                // +kubebuilder:validation:MinLength=1
                // +kubebuilder:validation:MaxLength=253
                // +kubebuilder:validation:Pattern=`^[a-z.]+$`
                type Hostname string

                // +kubebuilder:validation:MaxLength=63
                type ShortHostname Hostname

                // +listType=set
                // +kubebuilder:validation:MaxItems=16
                type Hostnames []Hostname

                type MoreHostnames Hostnames

                // +kubebuilder:validation:XValidation:rule="self.port > 0"
                type Listener struct {
                    Port int32 `json:"port"`
                }

                type SecureListener Listener
                """,
        },
    )
    universe, diagnostics = build(tmp_path)
    assert messages(diagnostics) == []
    package = universe.package("example.com/apis/net/v1")
    short = package.type("ShortHostname").validation
    assert (short.min_length, short.max_length, short.pattern) == (1, 63, "^[a-z.]+$")
    more = package.type("MoreHostnames").validation
    assert (more.list_type, more.max_items) == ("set", 16)
    secure = package.type("SecureListener")
    assert [r.rule for r in secure.validation.rules] == ["self.port > 0"]
    assert secure.defined_from == "example.com/apis/net/v1.Listener"


def test_a_malformed_struct_tag_is_read_as_go_reads_it(tmp_path, monkeypatch):
    """`json:"a",omitempty` (prometheus-operator has several) is valid Go: reflect reads
    `json:"a"` and stops, so omitempty does not apply. go vet's complaint is a warning."""
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, {"v1/types.go": 'package v1\n\ntype A struct {\n\tB string `json:"b",omitempty`\n\tC string `json:c`\n}\n'})
    universe, diagnostics = build(tmp_path / "v1", module="example.com/apis/v1")
    assert messages(diagnostics) == [
        "v1/types.go:4:11: warning: malformed struct tag 'json:\"b\",omitempty': expected key:\"value\" pairs "
        "separated by spaces; Go reads only json:\"b\" from it",
        "v1/types.go:5:11: warning: malformed struct tag 'json:c': expected key:\"value\" pairs separated by "
        "spaces; Go reads nothing from it",
    ]
    fields = universe.package("example.com/apis/v1").type("A").fields
    assert [(f.json_name, f.omitempty) for f in fields] == [("b", False), ("C", False)]
