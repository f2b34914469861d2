"""`python -m bench [runtime|conversion|validation|webhook|generation]`, `python -m bench realworld
--k8s-api DIR`, `python -m bench models --k8s-api DIR` and `python -m bench compat
--k8s-api-old DIR --k8s-api DIR`: print benchmark reports (ratios against alternatives, and
times against the targets)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> None:
    sys.path.insert(0, str(REPO))
    if argv and argv[0] == "realworld":
        import argparse

        from bench import realworld

        parser = argparse.ArgumentParser(prog="python -m bench realworld")
        parser.add_argument("--k8s-api", type=Path, required=True, help="a checkout of k8s.io/api (kubernetes/api)")
        parser.add_argument("--k8s-version", default="v0.36.3", help="its release tag (what go.mod requires)")
        args = parser.parse_args(argv[1:])
        print("\n".join(realworld.run(args.k8s_api, args.k8s_version)), flush=True)
        return
    if argv and argv[0] == "compat":
        import argparse

        from bench import compat

        parser = argparse.ArgumentParser(prog="python -m bench compat")
        parser.add_argument("--k8s-api-old", type=Path, required=True, help="k8s.io/api at the older release")
        parser.add_argument("--k8s-api", type=Path, required=True, help="k8s.io/api at the newer release")
        args = parser.parse_args(argv[1:])
        print("\n".join(compat.run(args.k8s_api_old, args.k8s_api)), flush=True)
        return
    if argv and argv[0] == "models":
        from bench import models

        models.main(argv[1:])
        return
    which = argv or ["runtime", "conversion", "validation", "webhook", "generation"]
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
    if "webhook" in which:
        from bench import webhook
        from kgen import pipeline
        from kgen.generators import GENERATORS
        from kgen.options import resolve_options

        options = resolve_options(config_path=REPO / "pyproject.toml", registered=tuple(GENERATORS))
        universe, _ = pipeline.build(options)
        print("\n".join(webhook.run(universe)), flush=True)
    if "generation" in which:
        from bench import generation

        print("\n".join(generation.run(REPO / "bench" / ".work" / "synthetic")), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
