"""The built-in kinds an operator touches while it is tested, served with kube-apiserver's semantics.

- core v1 ConfigMaps, Secrets and ServiceAccounts (`core`);
- Events of core v1 and of events.k8s.io/v1, one stored object read and written through
  both groups (`events`): what an operator framework posts, after finding `v1/events`
  in discovery;
- coordination.k8s.io/v1 Leases (`leases`): what leader election holds;
- admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfigurations
  (`webhookconfigs`): which admission webhooks `kgen serve` calls (`kgen.serve.admissionwebhooks`).

Each kind is kgen's own definition of the Go type (`types`): requests are decoded as the
API server's typed decoder decodes them (a field of the wrong type is its 400, unknown
fields a Warning or, with Strict, a 400), validated and prepared by the kind's strategy,
stored as the JSON Go writes, and served as JSON, YAML and protobuf, with the printer
columns of `kubectl get` and OpenAPI schemas. A repository whose API defines one of these
kinds itself keeps its own.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from kgen.runtime.store import ResourceInfo
from kgen.serve.builtins import openapi
from kgen.serve.builtins.core import CONFIG_MAPS, SECRETS, SERVICE_ACCOUNTS
from kgen.serve.builtins.events import CORE_EVENTS, EVENTS
from kgen.serve.builtins.flow import BuiltinFlow, BuiltinKind
from kgen.serve.builtins.leases import LEASES
from kgen.serve.builtins.webhookconfigs import MUTATING, VALIDATING
from kgen.serve.loader import Resource

KINDS: tuple[BuiltinKind, ...] = (
    CONFIG_MAPS, SECRETS, SERVICE_ACCOUNTS, CORE_EVENTS, EVENTS, LEASES, MUTATING, VALIDATING,
)  # fmt: skip


@dataclass(frozen=True)
class Served:
    """One built-in kind as the server serves it: discovery's entry, the store's info, the
    request flow and the OpenAPI document its patches are merged by."""

    resource: Resource
    info: ResourceInfo
    flow: BuiltinFlow
    openapi_v3: Mapping[str, Any]


def served(defined: Collection[tuple[str, str]], feature_gates: Mapping[str, bool] | None = None) -> list[Served]:
    """The built-in kinds to serve besides the API's own: every kind whose (group, plural)
    `defined` does not hold. events.k8s.io events are core events, so they are served only
    with kgen's core events."""
    kinds = [kind for kind in KINDS if (kind.group, kind.plural) not in defined]
    if ("", "events") in defined:
        kinds = [kind for kind in kinds if kind.stored_as != ("", "events")]
    out = []
    for kind in kinds:
        same_version = [k for k in KINDS if (k.group, k.version) == (kind.group, kind.version)]
        out.append(
            Served(kind.resource(), kind.info(), BuiltinFlow(kind, feature_gates), openapi.document(same_version))
        )
    return out


def openapi_schemas(endpoints: Collection[Any]) -> dict[str, dict[str, Any]]:
    """The OpenAPI v3 definitions of the built-in kinds among `endpoints`."""
    return openapi.schemas(e.flow.builtin for e in endpoints if isinstance(e.flow, BuiltinFlow))
