"""kgen's modules import each other without circles: not at import time, and not through
imports inside functions either (those only hide a circle). A circle may only pass through
`if TYPE_CHECKING:` imports. The runtime never imports the code generator."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in (ROOT / "kgen").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()

    def owner(name: str) -> str:
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        return name

    edges: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        type_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(tree):
            if id(node) in type_only:
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
            else:
                continue
            edges[module].update(owner(t) for t in targets if t.startswith("kgen"))
        edges[module].discard(module)
    return edges


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_of_kgen_imports_itself_back_even_lazily():
    assert _circles(_graph()) == []


def test_the_runtime_never_imports_the_code_generator():
    generator_side = ("kgen.generators", "kgen.ir", "kgen.markers", "kgen.source", "kgen.render", "kgen.pipeline")
    offending = sorted(
        (module, target)
        for module, targets in _graph().items()
        if module.startswith("kgen.runtime")
        for target in targets
        if target.startswith(generator_side)
    )
    assert offending == []


def test_the_webhook_app_needs_only_the_runtime():
    """An operator's image runs `kgen webhook` with the runtime and uvicorn: kgen.webhook
    imports neither the code generator nor the API server (nor their extras); what it shares
    with the API server needs nothing but the standard library (kgen.addresses)."""
    allowed = ("kgen.runtime", "kgen.webhook", "kgen.extras", "kgen.addresses")
    offending = sorted(
        (module, target)
        for module, targets in _graph().items()
        if module.startswith("kgen.webhook") and module != "kgen.webhook_settings"
        for target in targets
        if not target.startswith(allowed)
    )
    assert offending == []


def test_the_checker_finds_a_circle_hidden_in_a_function():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_only_a_backend_knows_its_backend():
    """Code generators ask the module context and the runtime asks `backend_of`; only each
    backend's own modules (and the table of backends) name msgspec or its struct attributes."""
    owners = {
        "kgen/generators/backends.py", "kgen/generators/models_msgspec.py", "kgen/generators/deepcopy_msgspec.py",
        "kgen/runtime/structs.py", "kgen/runtime/backend.py",
    }  # fmt: skip
    found = []
    for folder in ("kgen/generators", "kgen/runtime"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative in owners or "/apimachinery" in relative:
                continue
            code = "\n".join(line.split("#", 1)[0] for line in path.read_text(encoding="utf-8").splitlines())
            for needle in ('== "msgspec"', '!= "msgspec"', "__struct_fields__", "MODELS =="):
                if needle in code:
                    found.append((relative, needle))
    assert found == []


def test_kgens_own_code_is_formatted_as_its_settings_say():
    """pyproject's [tool.black] describes kgen's code (generated code has its own settings)."""
    import subprocess
    import sys

    checked = subprocess.run(
        [sys.executable, "-m", "black", "--check", "--quiet", "kgen"], cwd=ROOT, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
