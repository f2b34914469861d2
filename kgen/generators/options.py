"""Options every generator receives (what the user configured, not what --only selects)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GeneratorOptions:
    generators: tuple[str, ...]
    """The configured generators; files that wire modules together depend on this set."""
