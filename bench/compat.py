"""`kgen compat` on all of k8s.io/api, side by side with a cold `kgen generate` of it.

    python -m bench compat --k8s-api-old DIR --k8s-api DIR

Both are checkouts of k8s.io/api (kubernetes/api at two release tags). Each run is a fresh
`kgen` process with an empty cache, as a CI job or a new machine runs it: `kgen generate`
of the newer release with every generator, and `kgen compat` of the newer release against
the older one (two builds of the IR, every resource's schema in both, the comparison and
the example search), with and without examples. The goal is compat under the time of the
cold generate; the report gives the ratio.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KGEN = [sys.executable, "-m", "kgen.cli"]
REPO = Path(__file__).resolve().parent.parent


def _time(args: list[str], cwd: Path, env: dict[str, str], expect: tuple[int, ...] = (0,)) -> float:
    start = time.perf_counter()
    result = subprocess.run(KGEN + args, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode not in expect:
        raise SystemExit(f"kgen {' '.join(args)} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return elapsed


def run(old: Path, new: Path) -> list[str]:
    """Time the runs; return report lines."""
    work = Path(tempfile.mkdtemp(prefix="kgen-bench-compat-"))
    try:
        env = dict(os.environ, KGEN_CACHE_DIR=str(work / "cache"), NO_COLOR="1")
        # the kgen of this checkout, though the processes start elsewhere
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(REPO), env.get("PYTHONPATH"))))
        flags = ["--input", str(new.resolve()), "--module", "k8s.io/api", "--config", os.devnull]
        generate = _time(["generate", *flags, "--output", str(work / "generated")], work, env)
        shutil.rmtree(work / "cache", ignore_errors=True)
        compat = _time(["compat", *flags, "--against", str(old.resolve())], work, env, expect=(0, 1))
        bare = _time(["compat", *flags, "--against", str(old.resolve()), "--no-examples"], work, env, expect=(0, 1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [
        f"kgen compat on all of k8s.io/api ({old.name} -> {new.name}), fresh processes, empty cache",
        f"  kgen generate of {new.name}, every generator, cold            {generate:6.2f} s",
        f"  kgen compat --against {old.name}                                  {compat:6.2f} s   "
        f"({compat / generate:.2f} x the cold generate; goal < 1)",
        f"  kgen compat --against {old.name} --no-examples                    {bare:6.2f} s   "
        f"({bare / generate:.2f} x)",
    ]
