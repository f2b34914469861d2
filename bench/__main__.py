"""`python -m bench [runtime|conversion|validation|generation]`: print benchmark reports (ratios against alternatives)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> None:
    sys.path.insert(0, str(REPO))
    which = argv or ["runtime", "conversion", "validation", "generation"]
    if "runtime" in which:
        from bench import runtime

        print("\n".join(runtime.run()), flush=True)
    if "conversion" in which:
        from bench import conversion
        from kgen import pipeline
        from kgen.generators import GENERATORS
        from kgen.options import resolve_options

        options = resolve_options(config_path=REPO / "pyproject.toml", registered=tuple(GENERATORS))
        universe, _ = pipeline.build(options)
        print("\n".join(conversion.run(universe)), flush=True)
    if "validation" in which:
        from bench import validation
        from kgen import pipeline
        from kgen.generators import GENERATORS
        from kgen.options import resolve_options

        options = resolve_options(config_path=REPO / "pyproject.toml", registered=tuple(GENERATORS))
        universe, _ = pipeline.build(options)
        print("\n".join(validation.run(universe)), flush=True)
    if "generation" in which:
        from bench import generation

        print("\n".join(generation.run(REPO / "bench" / ".work" / "synthetic")), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
