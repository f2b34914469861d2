"""`kgen generate` and `kgen generate --verify-only` on a synthetic API of ~2,000 types.

Each run is a fresh `kgen` process, as a user or a pre-commit hook runs it. "cold" has an
empty cache (a new machine); "black cache" has formatted output cached but must parse
and build again (an edit elsewhere in the tree); "unchanged tree" is the pre-commit case.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.synthetic import write_synthetic_api

KGEN = [sys.executable, "-m", "kgen.cli"]


def _time(args: list[str], cwd: Path, env: dict[str, str], expect: int = 0) -> float:
    start = time.perf_counter()
    result = subprocess.run(KGEN + args, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != expect:
        raise SystemExit(f"kgen {' '.join(args)} exited {result.returncode}:\n{result.stderr}")
    return elapsed


def run(work: Path) -> list[str]:
    """Run the generation benchmarks in `work`; return report lines."""
    if work.exists():
        shutil.rmtree(work)
    types = write_synthetic_api(work / "apis")
    cache = Path(tempfile.mkdtemp(prefix="kgen-bench-cache-"))
    env = dict(os.environ, KGEN_CACHE_DIR=str(cache))
    flags = ["--input", "apis", "--output", "generated", "--config", os.devnull]
    try:
        cold = _time(["generate", *flags], work, env)
        lines_of_output = sum(p.read_text().count("\n") for p in (work / "generated").rglob("*.py"))
        unchanged = min(_time(["generate", "--verify-only", *flags], work, env) for _ in range(3))
        shutil.rmtree(cache / "runs")
        rebuilt = _time(["generate", "--verify-only", *flags], work, env)
        shutil.rmtree(work / "generated")
        shutil.rmtree(cache / "runs")
        warm = _time(["generate", *flags], work, env)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return [
        f"Generation: {types:,} types in 50 group/versions -> {lines_of_output:,} lines of Python",
        f"  kgen generate, cold cache (new machine)          {cold:6.2f} s   (target < 10 s)",
        f"  kgen generate, black cache warm, output deleted  {warm:6.2f} s   (target < 10 s)",
        f"  kgen generate --verify-only, unchanged tree      {unchanged:6.2f} s   (target < 2 s)",
        f"  kgen generate --verify-only, tree parsed again   {rebuilt:6.2f} s",
    ]
