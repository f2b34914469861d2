"""Options every generator receives (what the user configured, not what --only selects)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GeneratorOptions:
    generators: tuple[str, ...]
    """The configured generators; files that wire modules together depend on this set."""
    crd_max_description_length: int | None = None
    """Cut CRD descriptions longer than this at a sentence or word (0 drops them), as
    controller-gen's crd:maxDescLen: keeps large CRDs under the annotation size limit of
    client-side `kubectl apply`."""
    crd_embedded_object_meta: bool = False
    """controller-gen's crd:generateEmbeddedObjectMeta (see SchemaBuilder)."""
