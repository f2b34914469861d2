"""Options every generator receives: what the user configured, and the generators of the run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GeneratorOptions:
    generators: tuple[str, ...]
    """The generators of this run (the configured ones, or those `--only` selects)."""
    wiring: tuple[str, ...] = ()
    """The configured generators (the run's own when empty): the files that wire modules
    together (a package's `__init__`, `register.py`) import their modules, so a run of a few
    of them (`--only`) leaves a tree wired exactly as a full run leaves it."""

    @property
    def wired(self) -> tuple[str, ...]:
        return self.wiring or self.generators

    crd_max_description_length: int | None = None
    """Cut CRD descriptions longer than this at a sentence or word (0 drops them), as
    controller-gen's crd:maxDescLen: keeps large CRDs under the annotation size limit of
    client-side `kubectl apply`."""
    crd_embedded_object_meta: bool = False
    """controller-gen's crd:generateEmbeddedObjectMeta (see SchemaBuilder)."""
    crd_conversion: dict[str, Any] = field(default_factory=dict)
    """The conversion webhook of multi-version CRDs (`kgen.webhook_settings.conversion_settings`);
    empty: the admission webhooks' endpoint when `webhook` names one, else strategy None."""
    webhook: dict[str, Any] = field(default_factory=dict)
    """The admission webhooks of the custom resources (`kgen.webhook_settings.webhook_settings`);
    empty: only `+kubebuilder:webhook` markers make any."""
    models: str = "pydantic"
    """The model backend: "pydantic" or "msgspec" (`kgen.runtime.structs`)."""
