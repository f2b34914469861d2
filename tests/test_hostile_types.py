"""Types that are legal Go but push a generator to its limits: long chains of structs,
deeply nested type expressions, types that refer to themselves. Each one generates code
that imports, or is an input error at its place; none is a crash."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

from tests.conftest import write_tree

DOC = "// +groupName=ex.example.com\npackage v1\n"


_outputs = 0


def _generate(cli, root: Path, types: str):
    """Generate into `gen`, and return the result and the package name it is imported as
    (unique to the test: generated packages of earlier tests stay imported)."""
    global _outputs
    _outputs += 1
    write_tree(root, {"apis/ex/v1/doc.go": DOC, "apis/ex/v1/types.go": types})
    result = cli(["generate", "--input", "apis", "--output", f"gen{_outputs}", "--module", "example.com/x"], root)
    return result, f"gen{_outputs}"


def _import_in_a_fresh_interpreter(root: Path, statement: str) -> str:
    """Run `statement` where a user would: a new process with Python's default stack."""
    done = subprocess.run([sys.executable, "-c", statement], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_a_chain_of_150_structs_generates_and_imports(cli, tmp_path):
    chain = "".join(f"type S{i} struct {{\n\tNext *S{i + 1} `json:\"next,omitempty\"`\n}}\n\n" for i in range(150))
    result, gen = _generate(cli, tmp_path, "package v1\n\n" + chain + "type S150 struct {\n\tX string `json:\"x\"`\n}\n")
    assert result.exit_code == 0, result.output
    document = '{"next":' * 150 + '{"x":"deep"}' + "}" * 150
    out = _import_in_a_fresh_interpreter(
        tmp_path,
        "import sys; sys.setrecursionlimit(3000)\n"  # decoding 150 levels is the user's choice; importing is not
        f"from {gen}.ex.v1 import models, deepcopy\n"
        f"s = models.S0.from_json({document!r})\n"
        "node = s.deep_copy()\n"
        "for _ in range(150): node = node.next\n"
        "print(node.x, s.to_json() == " + repr(document.encode()) + ")",
    )
    assert out.split() == ["deep", "True"]


def test_a_type_nested_deeper_than_kgen_supports_is_an_error_at_its_place(cli, tmp_path):
    result, gen = _generate(cli, tmp_path, "package v1\n\ntype A struct {\n\tX " + "[]" * 600 + "string `json:\"x\"`\n}\n")
    assert result.exit_code == 2
    assert "apis/ex/v1/types.go:4:46: error: this type nests more than 20 levels deep" in result.output
    assert not (tmp_path / gen).exists()


def test_a_type_nested_20_levels_deep_generates_and_round_trips(cli, tmp_path):
    """20 levels, kgen's limit: every generated module compiles on each supported Python (the
    compilers of 3.12 and 3.13 crash on comprehensions nested 21 deep)."""
    result, gen = _generate(cli, tmp_path, "package v1\n\ntype A struct {\n\tX " + "[]map[string]" * 10 + "int32 `json:\"x\"`\n}\n")
    assert result.exit_code == 0, result.output
    value = 7
    for _ in range(10):
        value = [{"k": value}]
    out = _import_in_a_fresh_interpreter(
        tmp_path,
        f"import json\nfrom {gen}.ex.v1 import models\n"
        f"a = models.A.from_dict({{'x': {value!r}}})\n"
        "print(json.loads(a.to_json()) == {'x': " + repr(value) + "}, a.deep_copy() == a)",
    )
    assert out.split() == ["True", "True"]


def test_a_list_type_of_itself_decodes_as_go_decodes_it(cli, tmp_path, monkeypatch):
    """`type L []L` and a map and list that hold each other: Go's JSON is nested arrays and
    objects, and anything else (a number inside) is refused, as encoding/json refuses it."""
    result, gen = _generate(cli, tmp_path, """package v1

type L []L

type M map[string]N

type N []M

type A struct {
\tX L `json:"x"`
\tY M `json:"y,omitempty"`
}
""")
    assert result.exit_code == 0, result.output
    monkeypatch.syspath_prepend(str(tmp_path))
    models = importlib.import_module(f"{gen}.ex.v1.models")
    deepcopy = importlib.import_module(f"{gen}.ex.v1.deepcopy")
    assert deepcopy is not None
    body = b'{"x":[[],[null,[[]]]],"y":{"a":[{"b":[]}]}}'
    a = models.A.from_json(body)
    assert a.x == [[], [None, [[]]]]
    assert a.to_json() == body
    copied = a.deep_copy()
    assert copied == a and copied.x is not a.x and copied.x[1][1] is not a.x[1][1]
    for bad in (b'{"x":[1]}', b'{"x":[[["a"]]]}', b'{"y":{"a":{"b":1}}}'):
        try:
            models.A.from_json(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} decoded")


def test_a_pointer_to_itself_is_an_error_at_the_type(cli, tmp_path):
    result, gen = _generate(cli, tmp_path, "package v1\n\ntype P *P\n\ntype A struct {\n\tX P `json:\"x\"`\n}\n")
    assert result.exit_code == 2
    assert "apis/ex/v1/types.go:3:6: error: type P refers to itself through pointers alone" in result.output


def test_a_protobuf_name_that_is_not_an_identifier_is_an_error_at_the_tag(cli, tmp_path):
    result, gen = _generate(cli, tmp_path, "package v1\n\ntype A struct {\n\tX string `json:\"x\" protobuf:\"bytes,1,opt,name=x('y\"`\n}\n")
    assert result.exit_code == 2
    assert "apis/ex/v1/types.go:4:11: error: protobuf tag" in result.output
    assert "name \"x('y\" is not a protobuf field name" in result.output


def test_a_json_name_with_a_newline_reaches_validation_code_escaped(cli, tmp_path, monkeypatch):
    """A raw-string struct tag may hold a line break; the validation code names the field
    in its errors exactly (a path spliced into generated code once unescaped it)."""
    result, gen = _generate(cli, tmp_path, "package v1\n\ntype A struct {\n\t// +kubebuilder:validation:Enum=a;b\n"
                       "\tMode string `json:\"mo\nde\\\\n,omitempty\"`\n}\n")  # fmt: skip
    assert result.exit_code == 0, result.output
    monkeypatch.syspath_prepend(str(tmp_path))
    models = importlib.import_module(f"{gen}.ex.v1.models")
    validation = importlib.import_module(f"{gen}.ex.v1.validation")
    errors = validation.validate_A(models.A.from_dict({"mo\nde\\n": "c"}))
    assert [e.field for e in errors] == ["mo\nde\\n"]


def test_a_union_without_members_is_an_error_at_the_marker(cli, tmp_path):
    result, gen = _generate(cli, tmp_path, "package v1\n\n// +union\ntype A struct {\n\tX string `json:\"x\"`\n}\n")
    assert result.exit_code == 2
    assert "apis/ex/v1/types.go:3:4: error: +union, but the struct has no optional field" in result.output
