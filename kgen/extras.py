"""The optional parts of kgen-k8s (its extras), and the message when one is missing.

The runtime that generated code imports is the package itself; everything else is an extra,
and whatever needs one asks for it here first, so a user who lacks it reads which extra to
install, never a `ModuleNotFoundError` of a module they have not heard of.
"""

from __future__ import annotations

import importlib

DISTRIBUTION = "kgen-k8s"
"""The name kgen is installed by (`kgen` on PyPI is another project's)."""

EXTRAS: dict[str, tuple[str, ...]] = {
    "codegen": ("tree_sitter", "tree_sitter_go", "jinja2", "libcst", "click", "black", "grpc_tools"),
    "serve": ("starlette", "uvicorn", "cryptography"),
    "webhook": ("uvicorn",),
    "msgspec": ("msgspec",),
    "http2": ("h2",),
    "test": ("hypothesis",),
}
"""The modules each extra brings (what `pip install "kgen-k8s[<extra>]"` adds)."""


class MissingExtra(ImportError):
    """Something needs an extra that is not installed; the message says how to install it."""


def install_command(extra: str) -> str:
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def missing(extra: str) -> list[str]:
    """The modules of an extra that cannot be imported."""
    absent = []
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ImportError:
            absent.append(module)
    return absent


def require(extra: str, what: str) -> None:
    """Raise MissingExtra, naming `what` needs it and the install command, unless `extra` is
    installed."""
    absent = missing(extra)
    if absent:
        raise MissingExtra(
            f"{what} needs the {extra} extra ({', '.join(absent)} not installed): {install_command(extra)}",
            name=absent[0],
        )
