"""`python -m bench.lint --k8s-api DIR [--repeat 3]`: seconds `kgen lint` takes on all of
k8s.io/api (the builtin profile, every rule it runs), side by side with a cold `kgen
generate` of the same checkout (no run cache), each as a user runs it: a fresh process.

The goal is a lint that costs less than generating, so that a pre-commit hook can run both.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _seconds(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - started, result.returncode, result.stdout + result.stderr


def run(k8s_api: Path, repeat: int = 3) -> list[str]:
    work = Path(tempfile.mkdtemp(prefix="kgen-bench-lint-"))
    env = dict(os.environ, PYTHONPATH=str(REPO), KGEN_NO_CACHE="1", KGEN_CACHE_DIR=str(work / "cache"), NO_COLOR="1")
    base = [sys.executable, "-m", "kgen.cli"]
    where = ["--input", str(k8s_api.resolve()), "--module", "k8s.io/api", "--config", os.devnull]
    lint_times, generate_times = [], []
    findings = ""
    try:
        for _ in range(repeat):
            seconds, code, output = _seconds([*base, "lint", *where, "--fail-on", "never", "-q"], work, env)
            if code != 0:
                return [f"kgen lint failed (exit {code}): {output[-500:]}"]
            lint_times.append(seconds)
            findings = output.strip().splitlines()[-1] if output.strip() else ""
            out = work / "generated"
            shutil.rmtree(out, ignore_errors=True)
            seconds, code, output = _seconds([*base, "generate", *where, "--output", str(out), "-q"], work, env)
            if code not in (0, 2):
                return [f"kgen generate failed (exit {code}): {output[-500:]}"]
            generate_times.append(seconds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lint_s, generate_s = statistics.median(lint_times), statistics.median(generate_times)
    return [
        f"k8s.io/api ({k8s_api}), median of {repeat} fresh processes:",
        f"  kgen lint (builtin profile)      {lint_s:6.2f} s   {findings}",
        f"  kgen generate, cold (no cache)   {generate_s:6.2f} s",
        f"  lint / generate                  {lint_s / generate_s:6.2f}   (goal: below 1)",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lint", description=__doc__)
    parser.add_argument(
        "--k8s-api", type=Path, required=True, help="a checkout of k8s.io/api (kubernetes/api at a release)"
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print("\n".join(run(args.k8s_api, args.repeat)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
