"""The `kgen` command's entry point: the code generator when `kgen[codegen]` is installed,
else a message saying how to install it (`pip install kgen` alone is the runtime)."""

from __future__ import annotations

import sys

CODEGEN_MODULES = frozenset({"tree_sitter", "tree_sitter_go", "jinja2", "libcst", "click", "black", "grpc_tools"})
"""What the code generator needs beyond the runtime (the `codegen` extra)."""


def main() -> None:
    """Run the command line, or explain what is missing."""
    try:
        from kgen.cli import main as cli
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] not in CODEGEN_MODULES:
            raise
        print(
            f"kgen: the code generator needs the codegen extra ({err.name} is not installed); "
            "install it with: pip install 'kgen[codegen]'",
            file=sys.stderr,
        )
        sys.exit(2)
    cli()
