"""`kgen webhook`: serve an API's generated webhook application (`python -m kgen.webhook`).

It needs only the runtime and the `webhook` extra (uvicorn), not the code generator, so an
operator's image runs it as it is: the generated `webhook.py` is imported from the working
directory (`--module`, default `generated.webhook`), and served over TLS on port 9443 with
`tls.crt` and `tls.key` from `--cert-dir` (controller-runtime's defaults, where a
cert-manager Certificate's Secret is mounted).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from kgen.addresses import is_loopback
from kgen.extras import MissingExtra
from kgen.webhook.serving import (
    CERT_NAME,
    DEFAULT_CERT_DIR,
    DEFAULT_PORT,
    KEY_NAME,
    certificate_files,
    readable,
    serve,
)

EXIT_SETTINGS = 2


def parser() -> argparse.ArgumentParser:
    """The command's arguments."""
    parse = argparse.ArgumentParser(
        prog="kgen webhook",
        description="Serve the conversion and admission webhooks of an API's custom resources "
        "(the generated webhook.py) over TLS.",
    )
    parse.add_argument(
        "--module", default="generated.webhook", help="the generated webhook module (default: %(default)s)"
    )
    parse.add_argument(
        "--app-dir", default=".", type=Path, help="the directory the module is imported from (default: the current one)"
    )
    parse.add_argument("--address", default="0.0.0.0", help="the address to listen on (default: %(default)s)")
    parse.add_argument(
        "--port", default=DEFAULT_PORT, type=int, help="the port (default: %(default)s; 0 picks a free one)"
    )
    parse.add_argument(
        "--cert-dir", default=DEFAULT_CERT_DIR, type=Path, help="where tls.crt and tls.key are (default: %(default)s)"
    )
    parse.add_argument("--tls-cert-file", type=Path, help="the certificate file (default: <cert-dir>/tls.crt)")
    parse.add_argument("--tls-private-key-file", type=Path, help="the key file (default: <cert-dir>/tls.key)")
    parse.add_argument(
        "--cert-reload-interval",
        default=10.0,
        type=float,
        help="seconds between looks at the certificate files (0: never)",
    )
    parse.add_argument("--feature-gates", default="", metavar="A=true,B=false", help="the feature gates admission sees")
    parse.add_argument("--no-tls", action="store_true", help="plain HTTP, on a loopback address only (for local tests)")
    parse.add_argument("-v", "--verbose", action="store_true", help="log every request")
    return parse


def feature_gates(text: str) -> dict[str, bool]:
    """`A=true,B=false` as the API server's --feature-gates reads it; ValueError otherwise."""
    gates: dict[str, bool] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        if not sep or value.lower() not in ("true", "false") or not name:
            raise ValueError(f"--feature-gates: {part!r} is not NAME=true or NAME=false")
        gates[name.strip()] = value.lower() == "true"
    return gates


def load_app(module_name: str, app_dir: Path, gates: dict[str, bool]) -> Any:
    """The ASGI application of a generated webhook module."""
    directory = str(app_dir.resolve())
    if directory not in sys.path:
        sys.path.insert(0, directory)
    module = importlib.import_module(module_name)
    build = getattr(module, "webhooks", None)
    if callable(build):
        return build(gates).asgi()
    app = getattr(module, "app", None)
    if app is None:
        raise AttributeError(f"{module_name} has no webhooks() and no app: is it a generated webhook.py?")
    return app


def main(argv: Sequence[str] | None = None) -> None:
    """Run `kgen webhook`; exit 2 with a message for settings that cannot work."""
    args = parser().parse_args(argv)

    def fail(message: str) -> NoReturn:
        print(f"kgen webhook: {message}", file=sys.stderr)
        sys.exit(EXIT_SETTINGS)

    try:
        gates = feature_gates(args.feature_gates)
    except ValueError as error:
        fail(str(error))
    cert_file = key_file = None
    if args.no_tls:
        if not is_loopback(args.address):
            fail(f"--no-tls serves plain HTTP, which only a loopback address may do (not {args.address}); "
                 "the API server calls webhooks over HTTPS")  # fmt: skip
    else:
        default_cert, default_key = certificate_files(args.cert_dir, CERT_NAME, KEY_NAME)
        cert_file, key_file = args.tls_cert_file or default_cert, args.tls_private_key_file or default_key
        for path, flag in ((cert_file, "--tls-cert-file"), (key_file, "--tls-private-key-file")):
            if not readable(path):
                fail(f"cannot read {path} ({flag}, or --cert-dir): mount the serving certificate there, "
                     "or run with --no-tls on a loopback address")  # fmt: skip
    try:
        app = load_app(args.module, args.app_dir, gates)
    except (ImportError, AttributeError) as error:
        if isinstance(error, MissingExtra):
            fail(str(error))
        fail(f"cannot load the webhook application {args.module}: {type(error).__name__}: {error}")
    try:
        serve(
            app,
            host=args.address,
            port=args.port,
            cert_file=cert_file,
            key_file=key_file,
            reload_interval=args.cert_reload_interval,
            access_log=args.verbose,
            say=lambda line: print(line, file=sys.stderr, flush=True),
        )
    except MissingExtra as error:
        fail(str(error))
