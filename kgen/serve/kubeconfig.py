"""The kubeconfig `kgen serve` writes for itself, so `KUBECONFIG=FILE kubectl get ...` works.

One cluster, user and context named `kgen`, the context's namespace `default`; over TLS
the cluster's certificate authority is the server's self-signed certificate and the user
has the bearer token. The file is written with mode 0600 (it may hold the token), by
rename, so a client never reads half of it.
"""

from __future__ import annotations

import base64
import os
import tempfile
from pathlib import Path
from typing import Any

from kgen.runtime import yamlio

NAME = "kgen"


def document(
    server: str, *, certificate_authority: bytes | None = None, token: str | None = None, namespace: str = "default"
) -> dict[str, Any]:
    """The kubeconfig as data."""
    cluster: dict[str, Any] = {"server": server}
    if certificate_authority is not None:
        cluster["certificate-authority-data"] = base64.b64encode(certificate_authority).decode()
    elif server.startswith("http://"):
        # @kubernetes/client-node refuses plain HTTP unless TLS verification is off; there is
        # no TLS to verify, and kubectl and the Python clients ignore the setting for http
        cluster["insecure-skip-tls-verify"] = True
    user: dict[str, Any] = {"token": token} if token else {}
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": NAME, "cluster": cluster}],
        "users": [{"name": NAME, "user": user}],
        "contexts": [{"name": NAME, "context": {"cluster": NAME, "user": NAME, "namespace": namespace}}],
        "current-context": NAME,
        "preferences": {},
    }


def write(path: Path, config: dict[str, Any]) -> None:
    """Write a kubeconfig atomically, readable by its owner only."""
    path = path.expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(yamlio.dump(config))
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
