"""A fuzzer of API sources: mutates a small API (its Go source, its markers and its struct
tags) and runs `kgen generate` on each mutant as a user would, checking kgen's promises:

- the exit code is 0 or 2 (3 is a bug in kgen; a traceback never reaches the user);
- every error line of an exit 2 names its place (`path:line[:col]: error: ...`);
- the output directory holds, afterwards, either exactly what it held before (exit 2) or
  exactly what the run generates (exit 0: `--verify-only` then finds nothing to change);
- every module of an exit-0 output imports.

`tests/test_source_fuzz.py` runs a few hundred mutants on every `make test`; `make fuzz`
(`python -m tests.sourcefuzz --runs N`) runs thousands and prints what happened.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import os
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner

SEED_FILES = Path(__file__).parent / "testdata" / "fuzzseed"
"""The API every mutant starts from: one group with a kind, its list, an enum, a list map,
quantities, int-or-strings, times, defaults, patterns, CEL rules and protobuf tags."""

LOCATED = re.compile(r"^[^\s:][^:]*:\d+(:\d+)?: error: ")

# Values that have broken code generators: quotes of every kind, code, huge and odd numbers,
# regular expressions that do not compile, unicode, and nothing at all.
HOSTILE_VALUES = [
    "", '"', "'", "`", "\\", '"); import os #', "'''", '"""', "{", "}", "{{", "}}", "[", "]", "(", ")",
    "\x00", "\u2028", "é", "💥", "a" * 300, "-1", "0", "1e309", "9" * 40, "0x10", "0644", "1.5", "NaN",
    "true", "false", "null", "=", "==", ";", ",", "a;b;c", "{a: b}", "[1,2]", '{"a": 1}', "ref(PhasePending)",
    "ref(Nope)", "`^[a-z]+$`", "(", "[a-", "(?P<x>a)", "(a+)+b", "\\z", "self.x", "self.", "has(self.name)",
    "self.all(p, p.port > 0)", "../../etc", "g.example.com", "UPPER.example.com", "v1", "v1beta1", "x y",
]

KNOWN_MARKERS = [
    "+optional", "+required", "+k8s:optional", "+k8s:required", "+listType=map", "+listType=set",
    "+listType=atomic", "+listMapKey=name", "+listMapKey=port", "+mapType=granular", "+structType=atomic",
    "+default=", "+kubebuilder:default=", "+kubebuilder:validation:Minimum=", "+kubebuilder:validation:Maximum=",
    "+kubebuilder:validation:MinLength=", "+kubebuilder:validation:MaxLength=", "+kubebuilder:validation:Pattern=",
    "+kubebuilder:validation:Enum=", "+kubebuilder:validation:Format=", "+kubebuilder:validation:MaxItems=",
    "+kubebuilder:validation:XValidation:rule=", "+kubebuilder:validation:Type=", "+k8s:minimum=",
    "+k8s:maxLength=", "+k8s:format=", "+k8s:immutable", "+k8s:enum", "+enum", "+union", "+unionDiscriminator",
    "+k8s:unionMember", "+patchStrategy=merge", "+patchMergeKey=name", "+genclient", "+genclient:nonNamespaced",
    "+kubebuilder:object:root=true", "+kubebuilder:subresource:status", "+kubebuilder:storageversion",
    "+kubebuilder:printcolumn:name=", "+kubebuilder:resource:scope=", "+kubebuilder:skip", "+k8s:eachVal=+k8s:minimum=",
    "+featureGate=", "+k8s:conversion-gen=false", "+groupName=", "+kubebuilder:validation:EmbeddedResource",
    "+kubebuilder:pruning:PreserveUnknownFields", "+kubebuilder:validation:Schemaless", "+nullable", "+unknown",
]

TYPES = [
    "string", "int32", "int64", "bool", "float64", "[]byte", "*string", "[]string", "map[string]string",
    "map[string][]int32", "[]*Port", "*Port", "Port", "[]Port", "Phase", "*Phase", "[]Phase", "WidgetSpec",
    "*WidgetSpec", "Widget", "interface{}", "any", "chan int", "func()", "Nope", "metav1.Nope", "nope.Thing",
    "resource.Quantity", "intstr.IntOrString", "metav1.Time", "*metav1.Duration", "metav1.ObjectMeta",
    "runtime.RawExtension", "[3]int32", "map[Phase]Port", "map[int32]string", "struct{ X string `json:\"x\"` }",
    "[][]map[string]*[]Port", "uint64", "complex128", "error", "uintptr", "[]" * 40 + "string",
]

TAG_VALUES = [
    'json:"x"', 'json:"-"', 'json:"-,"', 'json:""', 'json:",inline"', 'json:",omitempty"', 'json:"x,string"',
    'json:"name"', 'json:"spec"', 'json:"a b"', 'json:"é"', 'json:"x,omitzero"', 'json:"metadata"',
    'json:"x" protobuf:"bytes,1,opt,name=x"', 'json:"x" protobuf:"bytes,0,opt,name=x"',
    'json:"x" protobuf:"varint,536870912,opt,name=x"', 'json:"x" protobuf:"bytes,19000,opt,name=x"',
    'json:"x" protobuf:"nonsense"', 'json:"x" protobuf:"bytes,2,rep,name=x"', 'json:"x" protobuf:"-"',
    'json:"x" patchStrategy:"merge" patchMergeKey:"nope"', 'json:"x" patchStrategy:"retainKeys,merge"',
    'json:x', 'json:"x', 'json:"x",omitempty', '', ' ', '`', 'json:"x" json:"y"',
]


@dataclass
class Outcome:
    """What one mutant did."""

    mutation: str
    exit_code: int
    problems: list[str] = field(default_factory=list)
    """Broken promises; empty when kgen kept them all."""
    seconds: float = 0.0


def seed_sources() -> dict[str, str]:
    return {p.relative_to(SEED_FILES).as_posix(): p.read_text() for p in sorted(SEED_FILES.rglob("*.go"))}


# -- mutations -----------------------------------------------------------------------------


def _lines_where(text: str, predicate) -> list[int]:
    return [i for i, line in enumerate(text.split("\n")) if predicate(line)]


def _pick(rng: random.Random, lines: list[int]) -> int:
    if not lines:
        raise _NotApplicable
    return rng.choice(lines)


class _NotApplicable(Exception):
    """The file has nothing this mutation changes."""


def _replace_line(text: str, index: int, new: str) -> str:
    lines = text.split("\n")
    lines[index] = new
    return "\n".join(lines)


def _marker_value(rng: random.Random, text: str) -> tuple[str, str]:
    lines = _lines_where(text, lambda line: line.lstrip().startswith("// +"))
    index = _pick(rng, lines)
    line = text.split("\n")[index]
    head = line.split("=", 1)[0] if "=" in line else line
    value = rng.choice(HOSTILE_VALUES)
    return _replace_line(text, index, f"{head}={value}"), f"marker value {head.strip()}={value!r}"


def _marker_insert(rng: random.Random, text: str) -> tuple[str, str]:
    lines = _lines_where(text, lambda line: re.match(r"^\t[A-Z]\w* ", line) or line.startswith("type "))
    index = _pick(rng, lines)
    marker = rng.choice(KNOWN_MARKERS)
    if marker.endswith("="):
        marker += rng.choice(HOSTILE_VALUES)
    indent = "\t" if text.split("\n")[index].startswith("\t") else ""
    all_lines = text.split("\n")
    all_lines.insert(index, f"{indent}// {marker}")
    return "\n".join(all_lines), f"marker {marker!r} inserted at line {index + 1}"


def _struct_tag(rng: random.Random, text: str) -> tuple[str, str]:
    lines = _lines_where(text, lambda line: "`" in line and line.startswith("\t"))
    index = _pick(rng, lines)
    line = text.split("\n")[index]
    tag = rng.choice(TAG_VALUES)
    new = re.sub(r"`[^`]*`", lambda _: f"`{tag}`", line, count=1)
    return _replace_line(text, index, new), f"struct tag {tag!r} at line {index + 1}"


def _field_type(rng: random.Random, text: str) -> tuple[str, str]:
    lines = _lines_where(text, lambda line: re.match(r"^\t[A-Z]\w* +\S", line) is not None and "`" in line)
    index = _pick(rng, lines)
    line = text.split("\n")[index]
    new_type = rng.choice(TYPES)
    new = re.sub(r"^(\t[A-Z]\w* +)(\S+)", lambda m: m.group(1) + new_type, line, count=1)
    return _replace_line(text, index, new), f"field type {new_type!r} at line {index + 1}"


def _bytes(rng: random.Random, text: str) -> tuple[str, str]:
    choice = rng.randrange(5)
    position = rng.randrange(len(text))
    if choice == 0:
        length = rng.randint(1, 40)
        return text[:position] + text[position + length :], f"deleted {length} characters at {position}"
    if choice == 1:
        insert = "".join(rng.choice("{}[]()`\"'*.,;:=+-/\\\n\t xX0") for _ in range(rng.randint(1, 6)))
        return text[:position] + insert + text[position:], f"inserted {insert!r} at {position}"
    if choice == 2:
        lines = text.split("\n")
        index = rng.randrange(len(lines))
        lines.insert(index, lines[index])
        return "\n".join(lines), f"duplicated line {index + 1}"
    if choice == 3:
        return text[:position], f"truncated at {position}"
    lines = text.split("\n")
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines), f"swapped lines {a + 1} and {b + 1}"


# Names that have broken generators of Python: keywords, soft keywords, builtins, pydantic's
# API, digits, non-ASCII letters and a letter with a combining mark (which Go refuses).
PYTHON_NAMES = [
    "class", "from", "import", "as", "in", "None", "True", "match", "case", "type", "_", "list", "dict", "str",
    "int", "bool", "object", "self", "cls", "copy", "json", "schema", "model_dump", "validate", "123", "9lives",
    "é", "Café", "Cafe\u0301", "x-y", "a.b", "models", "register", "protobuf", "Ω",
]


def _python_names(rng: random.Random, text: str) -> tuple[str, str]:
    """A JSON name, field name or type name renamed after one of Python's own names."""
    name = rng.choice(PYTHON_NAMES)
    choice = rng.randrange(3)
    if choice == 0:
        lines = _lines_where(text, lambda line: 'json:"' in line and ",inline" not in line)
        index = _pick(rng, lines)
        new = re.sub(r'json:"[^",]*', f'json:"{name}', text.split("\n")[index], count=1)
        return _replace_line(text, index, new), f"JSON name {name!r} at line {index + 1}"
    if choice == 1:
        lines = _lines_where(text, lambda line: re.match(r"^\t[A-Z]\w* +\S", line) is not None)
        index = _pick(rng, lines)
        field = name[:1].upper() + name[1:] if name[:1].isalpha() else "F" + name
        new = re.sub(r"^\t[A-Z]\w*", "\t" + field, text.split("\n")[index], count=1)
        return _replace_line(text, index, new), f"field name {field!r} at line {index + 1}"
    types = re.findall(r"^type (\w+) ", text, re.M)
    if not types:
        raise _NotApplicable
    old = rng.choice(types)
    return re.sub(rf"\b{old}\b", name, text), f"type {old} renamed {name!r}"


def _grammar_package(rng: random.Random, text: str) -> tuple[str, str]:
    """A whole types.go written from a small grammar of API packages: kinds, their lists,
    structs, enums and named types, with random field types, tags and markers."""
    if not text.lstrip().startswith("package") or "type " not in text:
        raise _NotApplicable
    package = re.match(r"\s*package (\w+)", text).group(1)
    names = [f"{rng.choice(['Widget', 'Gadget', 'Spec', 'Item', 'Rule', 'A'])}{i}" for i in range(rng.randint(1, 8))]
    out = [f"package {package}\n", 'import (\n\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"\n'
           '\t"k8s.io/apimachinery/pkg/api/resource"\n\t"k8s.io/apimachinery/pkg/util/intstr"\n)\n',
           "var _ = resource.Quantity{}\nvar _ = intstr.IntOrString{}\n"]  # fmt: skip
    for index, name in enumerate(names):
        markers = "".join(f"// {m}{rng.choice(HOSTILE_VALUES) if m.endswith('=') else ''}\n"
                          for m in rng.sample(KNOWN_MARKERS, rng.randint(0, 3)))  # fmt: skip
        if rng.random() < 0.2:
            out.append(f"{markers}// {name} is named.\ntype {name} string\n\nconst (\n\t{name}A {name} = \"A\"\n)\n")
            continue
        kind = rng.random() < 0.4
        fields = []
        if kind:
            fields += ['\tmetav1.TypeMeta `json:",inline"`', '\tmetav1.ObjectMeta `json:"metadata,omitempty"`']
        for number in range(rng.randint(0, 6)):
            ref = rng.choice(TYPES + [rng.choice(names), "*" + rng.choice(names), "[]" + rng.choice(names)])
            tag = rng.choice(TAG_VALUES) if rng.random() < 0.2 else f'json:"f{number},omitempty"'
            marker = f"\t// {rng.choice(KNOWN_MARKERS)}\n" if rng.random() < 0.3 else ""
            fields.append(f"{marker}\tF{number} {ref} `{tag}`")
        body = "\n".join(fields)
        root = "// +kubebuilder:object:root=true\n" if kind else ""
        out.append(f"{root}{markers}// {name} is generated.\ntype {name} struct {{\n{body}\n}}\n")
        if kind and rng.random() < 0.8:
            out.append(f"// +kubebuilder:object:root=true\n// {name}List is a list.\ntype {name}List struct {{\n"
                       f'\tmetav1.TypeMeta `json:",inline"`\n\tmetav1.ListMeta `json:"metadata,omitempty"`\n'
                       f'\tItems []{name} `json:"items"`\n}}\n')  # fmt: skip
    return "\n".join(out), f"grammar-generated package of {len(names)} types"


def _long_cycle(rng: random.Random, text: str) -> tuple[str, str]:
    """A ring of pointer types appended (`T0 -> *T1 -> ... -> *T0`)."""
    if not text.lstrip().startswith("package"):
        raise _NotApplicable
    n = rng.randint(20, 300)
    ring = "".join(f"// Ring{i} links on.\ntype Ring{i} struct {{\n\t// +optional\n\tNext *Ring{(i + 1) % n} "
                   f'`json:"next,omitempty"`\n}}\n\n' for i in range(n))  # fmt: skip
    return text + "\n" + ring, f"a ring of {n} pointer types"


MUTATIONS = [_marker_value, _marker_insert, _struct_tag, _field_type, _bytes, _python_names, _grammar_package, _long_cycle]


class Link(str):
    """A source entry that is a symbolic link (to the path it holds), not a file."""


def _file_system(rng: random.Random, sources: dict[str, str]) -> tuple[dict[str, str], str]:
    """Odd things in the input directory: a dangling link, hooks that are not UTF-8 or do
    not parse, an empty Go file, a package directory named like a keyword, a renamed
    group (the same output directory is reused: its old files must go)."""
    mutated = dict(sources)
    package = rng.choice(sorted({p.rsplit("/", 1)[0] for p in mutated}))
    choice = rng.randrange(6)
    if choice == 0:
        mutated[f"{package}/dangling.go"] = Link("nowhere.go")
        return mutated, f"{package}/dangling.go: a link to nothing"
    if choice == 1:
        mutated[f"{package}/defaults.py"] = "def set_defaults_Widget(obj):\n    pass  # caf\udce9\n"
        return mutated, f"{package}/defaults.py: not UTF-8"
    if choice == 2:
        mutated[f"{package}/validation.py"] = rng.choice(["def validate_Widget(:\n", "x = (\n", "\x00"])
        return mutated, f"{package}/validation.py: does not parse"
    if choice == 3:
        mutated[f"{package}/empty.go"] = rng.choice(["", "package", "// +groupName=x\n"])
        return mutated, f"{package}/empty.go: empty or a clause only"
    if choice == 4:
        word = rng.choice(["in", "class", "import", "1x", "a-b"])
        renamed = {(word + p[p.index("/"):] if p.split("/")[0] == package.split("/")[0] else p): t for p, t in mutated.items()}
        return renamed, f"group directory {package.split('/')[0]!r} renamed {word!r}"
    renamed = {p: re.sub(r"\+groupName=[\w.-]+", f"+groupName=g{rng.randrange(5)}.example.com", t) for p, t in mutated.items()}
    return renamed, "group renamed"


def mutate(rng: random.Random, sources: dict[str, str]) -> tuple[dict[str, str], str]:
    """One to three mutations of one or two files of the seed, or an oddity of the file system."""
    if rng.random() < 0.08:
        return _file_system(rng, sources)
    mutated = dict(sources)
    done = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        path = rng.choice(sorted(mutated))
        if path.endswith("doc.go") and rng.random() < 0.5:
            path = rng.choice(sorted(p for p in mutated if p.endswith("types.go")))
        while True:
            try:
                text, what = rng.choice(MUTATIONS)(rng, mutated[path])
                break
            except _NotApplicable:
                continue
        mutated[path] = text
        done.append(f"{path}: {what}")
    return mutated, "; ".join(done)


# -- running -------------------------------------------------------------------------------


def _snapshot(root: Path) -> dict[str, bytes]:
    found = {}
    if not root.is_dir():
        return found
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if d != "__pycache__"]
        for name in files:
            path = Path(directory) / name
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def _write_sources(root: Path, sources: dict[str, str]) -> None:
    if root.exists():
        shutil.rmtree(root)
    for relative, text in sources.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, Link):
            target.symlink_to(str(text))
        else:
            target.write_bytes(text.encode("utf-8", "surrogateescape"))


def _kgen(args: list[str], cwd: Path):
    from kgen.cli import main

    previous = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, catch_exceptions=True)
    finally:
        os.chdir(previous)


def _import_all(root: Path, package: str) -> list[str]:
    """Import every generated module under `root` (a package named `package`); the failures."""
    failures = []
    sys.path.insert(0, str(root.parent))
    try:
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root.parent).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            try:
                importlib.import_module(name)
            except Exception as err:  # noqa: BLE001 - any failure is a finding
                failures.append(f"{name}: {type(err).__name__}: {err}")
    finally:
        sys.path.remove(str(root.parent))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]
    return failures


class Fuzzer:
    """Runs mutants of the seed in a scratch directory, one output tree reused throughout
    (so every run also checks what it does to an earlier run's output)."""

    def __init__(self, work: Path):
        self.work = work
        self.count = 0
        self.runs = 0
        self.seed = seed_sources()
        self.input = work / "apis"
        self.output = work / "out"
        _write_sources(self.input, self.seed)
        first = _kgen(self._args(), work)
        if first.exit_code != 0:
            raise RuntimeError(f"the fuzz seed does not generate: {first.output}")

    def _args(self, *extra: str) -> list[str]:
        # A module path of its own per run: protobuf's descriptor pool is per process, and
        # each run's .proto files are imported beside the earlier runs' ones.
        return ["generate", "--input", "apis", "--output", self.output.name, "--module",
                f"example.com/fuzz{self.runs}", "--config", os.devnull, *extra]  # fmt: skip

    def run(self, rng: random.Random, check_imports: bool = True) -> Outcome:
        sources, mutation = mutate(rng, self.seed)
        self.runs += 1
        _write_sources(self.input, sources)
        before = _snapshot(self.output)
        started = time.perf_counter()
        result = _kgen(self._args(), self.work)
        outcome = Outcome(mutation, result.exit_code, seconds=time.perf_counter() - started)
        text = result.output
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            trace = "".join(traceback.format_exception(result.exception))
            outcome.problems.append(f"raised {type(result.exception).__name__}: {trace[-600:]}")
        if result.exit_code not in (0, 2):
            outcome.problems.append(f"exit {result.exit_code}: {text.strip()[-600:]}")
        after = _snapshot(self.output)
        if result.exit_code == 2:
            unlocated = [
                line for line in text.splitlines()
                if (": error: " in line or line.startswith("kgen: error:")) and not LOCATED.match(line)
            ]  # fmt: skip
            if unlocated:
                outcome.problems.append("errors without a location: " + " | ".join(unlocated[:3]))
            if after != before:
                outcome.problems.append("exit 2, but the output directory changed")
        elif result.exit_code == 0:
            verify = _kgen(self._args("--verify-only"), self.work)
            if verify.exit_code != 0:
                outcome.problems.append(f"generated output is incomplete or unstable: verify exit {verify.exit_code}: "
                                        f"{verify.output.strip()[-400:]}")  # fmt: skip
            if check_imports:
                self.count += 1
                copy = self.work / f"imp{self.count}"
                shutil.copytree(self.output, copy)
                failures = _import_all(copy, copy.name)
                shutil.rmtree(copy)
                if failures:
                    outcome.problems.append("does not import: " + " | ".join(failures[:3]))
        return outcome


def fuzz(runs: int, seed: int, check_imports: bool = True, report=None) -> list[Outcome]:
    """Run `runs` mutants from random seed `seed`; every outcome, in order."""
    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="kgen-fuzz-"))
    try:
        fuzzer = Fuzzer(work)
        outcomes = []
        for index in range(runs):
            outcome = fuzzer.run(rng, check_imports)
            outcomes.append(outcome)
            if report is not None:
                report(index, outcome)
        return outcomes
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.sourcefuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2000, help="mutants to run (default 2000)")
    parser.add_argument("--seed", type=int, default=int(time.time()), help="random seed (default: the time)")
    parser.add_argument("--no-imports", action="store_true", help="skip importing the outputs")
    parser.add_argument("--replay", type=int, metavar="N", help="write mutant N of the seed's run to --into, and stop")
    parser.add_argument("--into", type=Path, default=Path("fuzz-replay"), help="where --replay writes (default fuzz-replay)")
    args = parser.parse_args(argv)
    if args.replay is not None:
        rng = random.Random(args.seed)
        for _ in range(args.replay + 1):
            sources, mutation = mutate(rng, seed_sources())
        _write_sources(args.into / "apis", sources)
        print(f"mutant {args.replay} of seed {args.seed} ({mutation}) written to {args.into / 'apis'}")
        return 0
    started = time.perf_counter()

    def report(index: int, outcome: Outcome) -> None:
        if outcome.problems:
            print(f"[{index}] {outcome.mutation}\n    " + "\n    ".join(outcome.problems), flush=True)
        elif (index + 1) % 100 == 0:
            print(f"... {index + 1} runs, {time.perf_counter() - started:.0f} s", flush=True)

    outcomes = fuzz(args.runs, args.seed, not args.no_imports, report)
    codes = collections.Counter(o.exit_code for o in outcomes)
    broken = [o for o in outcomes if o.problems]
    print(f"seed {args.seed}: {len(outcomes)} mutants in {time.perf_counter() - started:.0f} s; "
          f"exit codes {dict(sorted(codes.items()))}; {len(broken)} broke a promise")  # fmt: skip
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
