"""Go constants as real API files write them: literals of every base, constant expressions,
references across files and packages, typed conversions, and enums built from them."""

from __future__ import annotations

import pytest

from conftest import build, messages, parse, write_tree


@pytest.mark.parametrize(
    "expression, value",
    [
        ("0644", 0o644),
        ("0o644", 0o644),
        ("0O17", 0o17),
        ("0x1F", 31),
        ("0XfF", 255),
        ("0b1010", 10),
        ("1_000_000", 1_000_000),
        ("0x_FF", 255),
        ("0", 0),
        ("1.5e3", 1500.0),
        ("0x1p-2", 0.25),
        ("'a'", 97),
        ("'\\n'", 10),
        ("'\\''", 39),
        ('"a" + "b"', "ab"),
        ("`raw\\n`", "raw\\n"),
        ("1 << 10", 1024),
        ("1<<63 - 1", (1 << 63) - 1),
        ("-7 / 2", -3),  # Go truncates toward zero
        ("-7 % 2", -1),
        ("7 &^ 5", 2),
        ("^0", -1),
        ("(2 + 3) * 4", 20),
        ("10 / 4.0", 2.5),
        ("len(\"héllo\")", 6),  # bytes, as Go counts
        ("int64(5)", 5),
        ("string(65)", "A"),
        ("Phase(\"Running\")", "Running"),
        ("true && !false", True),
        ("3 > 2", True),
    ],
)
def test_constant_expressions_evaluate_as_go_does(expression, value):
    go_file, diagnostics = parse(f"package v1\n\nconst X = {expression}\n")
    assert not diagnostics.items
    assert go_file.consts[0].value == value


def test_iota_repeats_the_last_expression_with_its_type():
    go_file, _ = parse(
        """
        package v1

        type Level int32

        const (
            _ = iota
            KB Level = 1 << (10 * iota)
            MB
            GB
        )
        """
    )
    assert [(c.name, c.value, c.type_name.name) for c in go_file.consts] == [
        ("KB", 1024, "Level"), ("MB", 1 << 20, "Level"), ("GB", 1 << 30, "Level"),
    ]  # fmt: skip


def test_a_conversion_gives_an_untyped_looking_constant_its_type():
    go_file, _ = parse(
        """
        package v1

        const (
            PathTypeExact = PathType("Exact")
            Other = corev1.Protocol("TCP")
            Plain = "x"
            Length = len("abc")
        )
        """
    )
    kinds = [(c.name, c.type_name and (c.type_name.kind, c.type_name.text)) for c in go_file.consts]
    assert kinds == [
        ("PathTypeExact", ("ident", "PathType")),
        ("Other", ("qualified", "corev1.Protocol")),
        ("Plain", None),
        ("Length", None),
    ]


PACKAGE_WITH_ENUMS = {
    "go.mod": "module example.com/apis\n",
    "net/v1/doc.go": """
        // +groupName=net.example.com
        package v1
        """,
    "net/v1/types.go": """
        package v1

        import "example.com/apis/shared"

        // PathType is how a path matches.
        // +enum
        type PathType string

        const (
            // Exact matches the whole path.
            PathTypeExact = PathType("Exact")
            PathTypePrefix PathType = "Prefix"
            // defined from another constant of the type: the same value
            PathTypeDefault = PathTypePrefix
        )

        // +enum
        type Mode string

        // Modes declared from constants of another file and of another package.
        const (
            ModeFast Mode = fastName
            ModeSlow Mode = shared.SlowName + "er"
        )

        type Limits struct {
            // +k8s:maximum=1000
            Max int32 `json:"max"`
        }

        const (
            FileMode int32 = 0644
            MaxPriority = shared.HighestPriority - 1
            Timeout = 30 * time.Second
        )
        """,
    "net/v1/names.go": """
        package v1

        const fastName = "Fa" + "st"
        """,
    "shared/consts.go": """
        package shared

        const (
            SlowName = "Slow"
            HighestPriority = 1 << 30
        )
        """,
}


def test_enums_and_constants_across_files_and_packages(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, PACKAGE_WITH_ENUMS)
    (tmp_path / "net/v1/types.go").write_text(
        (tmp_path / "net/v1/types.go").read_text().replace('import "example.com/apis/shared"', 'import (\n\t"time"\n\n\t"example.com/apis/shared"\n)')
    )
    universe, diagnostics = build(tmp_path)
    assert [m for m in messages(diagnostics) if "error" in m or "enum" in m] == []
    package = universe.package("example.com/apis/net/v1")
    path_type = package.type("PathType")
    assert [(v.go_name, v.value) for v in path_type.enum_values] == [
        ("PathTypeExact", "Exact"), ("PathTypePrefix", "Prefix"), ("PathTypeDefault", "Prefix"),
    ]  # fmt: skip
    mode = package.type("Mode")
    assert [(v.go_name, v.value) for v in mode.enum_values] == [("ModeFast", "Fast"), ("ModeSlow", "Slower")]


def test_shared_package_types_are_built_only_when_reached(tmp_path, monkeypatch):
    """A package of the input without +groupName is a library: only what API types use is read,
    so a type there that cannot be an API type (a func field) is no error unless it is used."""
    monkeypatch.chdir(tmp_path)
    write_tree(
        tmp_path,
        {
            "app/v1/doc.go": "// +groupName=app.example.com\npackage v1\n",
            "app/v1/types.go": """
                package v1

                import "example.com/apis/catalog"

                // Hook is implemented by Go code; it is not an API type.
                type Hook interface {
                    Name() string
                }

                type AppSpec struct {
                    Ref catalog.Ref `json:"ref"`
                }
                """,
            "catalog/catalog.go": """
                package catalog

                type Ref struct {
                    Name string `json:"name"`
                }

                type Registry struct {
                    hooks map[string]func() error
                }
                """,
        },
    )
    universe, diagnostics = build(tmp_path)
    assert messages(diagnostics) == []
    assert [t.name for t in universe.package("example.com/apis/catalog").types] == ["Ref"]
    assert [t.name for t in universe.package("example.com/apis/app/v1").types] == ["AppSpec"]


def test_an_interface_with_methods_is_an_error_only_where_a_field_uses_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_tree(
        tmp_path,
        {
            "app/v1/doc.go": "// +groupName=app.example.com\npackage v1\n",
            "app/v1/types.go": """
                package v1

                type Hook interface {
                    Name() string
                }

                type AppSpec struct {
                    Hook Hook `json:"hook"`
                }
                """,
            # a kind reaches AppSpec (a type no kind uses is left out with a warning instead)
            "app/v1/kind.go": """
                package v1

                import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

                type App struct {
                    metav1.TypeMeta   `json:",inline"`
                    metav1.ObjectMeta `json:"metadata,omitempty"`
                    Spec              AppSpec `json:"spec"`
                }
                """,
        },
    )
    _, diagnostics = build(tmp_path)
    assert [m for m in messages(diagnostics) if "error" in m] == [
        "./app/v1/types.go:8:10: error: field Hook: Hook is an interface with methods, which cannot be serialized; "
        "API types hold data only"
    ]


def test_a_function_body_kgen_cannot_read_is_only_a_note():
    go_file, diagnostics = parse(
        """
        package v1

        type A struct {
            B int `json:"b"`
        }

        func convert(in *A) *int {
            return new(in.B + 1)
        }
        """
    )
    assert go_file is not None and [t.name for t in go_file.types] == ["A"]
    assert diagnostics.errors == []
    assert all(d.severity.value == "note" for d in diagnostics.items)
    assert any("inside a function body, which kgen does not read" in d.message for d in diagnostics.items)


def test_a_default_may_name_a_constant_here_or_in_another_package(tmp_path, monkeypatch):
    """gengo's `+default=ref(Name)`: defaulter-gen and openapi-gen use the constant's value;
    controller-gen leaves such a default out of CRDs."""
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, {
        "disk/v1/doc.go": "// +groupName=disk.example.com\npackage v1\n",
        "disk/v1/types.go": """
            package v1

            import "example.com/apis/shared"

            type CachingMode string

            const CachingReadWrite CachingMode = "ReadWrite"

            type DiskSpec struct {
                // +optional
                // +default=ref(CachingReadWrite)
                Caching *CachingMode `json:"caching,omitempty"`
                // +optional
                // +default=ref(example.com/apis/shared.DefaultReason)
                Reason string `json:"reason,omitempty"`
                // +optional
                // +default=ref(Missing)
                Other string `json:"other,omitempty"`
            }
            """,
        "shared/shared.go": 'package shared\n\nconst DefaultReason = "Field" + "ValueInvalid"\n',
    })  # fmt: skip
    universe, diagnostics = build(tmp_path)
    assert [m for m in messages(diagnostics) if "error" in m] == [
        "./disk/v1/types.go:17:8: error: +default=ref(Missing): no constant Missing in example.com/apis/disk/v1 "
        "that kgen can evaluate"
    ]
    fields = {f.json_name: f for f in universe.package("example.com/apis/disk/v1").type("DiskSpec").fields}
    assert (fields["caching"].default, fields["caching"].default_is_ref) == ("ReadWrite", True)
    assert fields["reason"].default == "FieldValueInvalid"
