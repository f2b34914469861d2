"""The `kgen` command's entry point: the code generator when `kgen-k8s[codegen]` is installed,
else a message saying how to install it (`pip install kgen-k8s` alone is the runtime)."""

from __future__ import annotations

import sys

from kgen.extras import EXTRAS, install_command


def main() -> None:
    """Run the command line, or explain what is missing. `kgen webhook` needs no code
    generator (an operator's image has the runtime and the webhook extra only)."""
    if sys.argv[1:2] == ["webhook"]:
        from kgen.webhook.cli import main as webhook

        webhook(sys.argv[2:])
        return
    try:
        from kgen.cli import main as cli
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] not in EXTRAS["codegen"]:
            raise
        print(
            f"kgen: the code generator needs the codegen extra ({err.name} is not installed); "
            f"install it with: {install_command('codegen')}",
            file=sys.stderr,
        )
        sys.exit(2)
    cli()
