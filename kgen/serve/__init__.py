"""`kgen serve`: the API server for an API repository, built on the runtime kgen generates.

    loader      the pipeline run whose generated package the server imports (pydantic
                models or msgspec structs, as `models` says), a Scheme of its kinds,
                defaults, conversions and validation, and resource metadata
    api         the endpoints: each resource in each served version, plus `namespaces`
                and the built-in kinds
    builtins    ConfigMaps, Secrets, ServiceAccounts, Events (core v1 and events.k8s.io),
                Leases: kgen's Go-type definitions and each kind's strategy
    flow        decode -> default -> internal -> validate -> storage version, and back
    handlers    get, list, create, update, delete, deletecollection
    patching    JSON, merge and strategic merge patch, server-side apply
    watching    watch streams (JSON lines, protobuf frames, Table rows)
    discovery   /api, /apis, /apis/<g>/<v>, aggregated discovery
    openapi     /openapi/v2, /openapi/v3
    table       the Table and PartialObjectMetadata forms (printer columns)
    negotiation, respond, params, jsonpath, limits, security, kubeconfig, namespaces
    app         the Starlette application; main: uvicorn, storage, TLS, shutdown

`kgen serve` (kgen.cli) calls `main.serve`; tests start it with `tests/serve_fixtures.py`.
"""

from kgen.extras import require

require("serve", "kgen serve")

from kgen.serve.main import PreparedServer, ServeError, ServeOptions, prepare, serve  # noqa: E402

__all__ = ["PreparedServer", "ServeError", "ServeOptions", "prepare", "serve"]
