"""The synchronous clients are the asynchronous ones without `async`: each `AsyncX` class of
the client runtime, with `async`/`await` taken out and `Async` names made plain, is its `X`
class statement for statement (docstrings aside), so a fix cannot land in one and not the
other. The few methods that must differ (sleeping, running blocking credential providers
in a thread) are named here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parent.parent / "kgen" / "runtime" / "client"

_RULES = (
    (r"\basync def\b", "def"), (r"\bawait ", ""), (r"\basync for\b", "for"), (r"\basync with\b", "with"),
    (r"\bAsync([A-Z]\w*)", r"\1"), (r"\b_Async([A-Z]\w*)", r"_\1"), (r"\baclose\b", "close"),
    (r"__aenter__", "__enter__"), (r"__aexit__", "__exit__"), (r"__aiter__", "__iter__"),
    (r"\baiter_bytes\b", "iter_bytes"), (r"\baread\b", "read"),
)  # fmt: skip

ALLOWED = {
    ("transport.py", "AsyncTransport", "__init__"): "sleeps with anyio unless given a coroutine function",
    ("transport.py", "AsyncTransport", "_call_provider"): "runs a blocking credential provider in a thread",
    ("transport.py", "AsyncTransport", "_perform"): "asks the credential provider through _call_provider",
}


def unasync(text: str) -> str:
    for pattern, replacement in _RULES:
        text = re.sub(pattern, replacement, text)
    return text


def _methods(source: str) -> dict[str, str]:
    """The class's methods, unparsed without docstrings."""
    tree = ast.parse(source)
    out = {}
    for node in tree.body[0].body:  # type: ignore[attr-defined]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
            out[node.name] = ast.unparse(node)
    return out


def _pairs(module: str) -> list[tuple[str, str, str, str]]:
    source = (CLIENT / module).read_text(encoding="utf-8")
    classes = {n.name: ast.get_source_segment(source, n) or "" for n in ast.parse(source).body if isinstance(n, ast.ClassDef)}
    return [
        (module, name, classes[name.replace("Async", "", 1)], text)
        for name, text in classes.items()
        if name.startswith(("Async", "_Async"))
    ]


@pytest.mark.parametrize("module", ["resource.py", "transport.py"])
def test_each_async_class_has_its_sync_twin(module):
    source = (CLIENT / module).read_text(encoding="utf-8")
    names = {n.name for n in ast.parse(source).body if isinstance(n, ast.ClassDef)}
    assert [n for n in names if n.startswith(("Async", "_Async")) and n.replace("Async", "", 1) not in names] == []
    assert _pairs(module)


@pytest.mark.parametrize("module", ["resource.py", "transport.py"])
def test_the_sync_clients_are_the_async_ones_without_async(module):
    differing = []
    for _, name, sync_text, async_text in _pairs(module):
        sync_methods, async_methods = _methods(sync_text), _methods(unasync(async_text))
        for method in sorted(set(sync_methods) | set(async_methods)):
            if sync_methods.get(method) != async_methods.get(method) and (module, name, method) not in ALLOWED:
                differing.append(f"{name}.{method}")
    assert differing == []


def test_the_comparison_sees_a_fix_made_on_one_side_only():
    sync = "class Get:\n    def get(self, name):\n        return self.transport.request('GET', name)\n"
    fixed = "class AsyncGet:\n    async def get(self, name):\n        return await self.transport.request('GET', name, retry=True)\n"
    assert _methods(sync)["get"] != _methods(unasync(fixed))["get"]
    same = "class AsyncGet:\n    async def get(self, name):\n        '''As Get.get.'''\n        return await self.transport.request('GET', name)\n"
    assert _methods(sync)["get"] == _methods(unasync(same))["get"]
