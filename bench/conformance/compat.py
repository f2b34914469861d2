"""`kgen compat` between two releases of real repositories, run as a user runs it.

    python -m bench.conformance.compat \\
        --go NAME:OLD:NEW[:SUBDIR] ...            Go types (SUBDIR: where they are in each checkout)
        --crds NAME:OLD:NEW:DIR[,DIR...] ...      committed CRD manifests (each DIR that exists)
        [--module NAME=PATH ...] [--gomodcache DIR] [--json FILE] [--details]

For example, k8s.io/api v0.35 -> v0.36 (`--go k8s.io/api:API035:API036 --module k8s.io/api=k8s.io/api`),
gateway-api's last two releases from Go types and from their CRDs (`--go gateway-api:GW15:GW16`,
`--crds gateway-api:GW15:GW16:config/crd/experimental`), cluster-api's (`--go
cluster-api:CAPI113:CAPI114:api --crds cluster-api:CAPI113:CAPI114:config/crd/bases,...`).

Each comparison is one `kgen compat --format json` process with an empty cache. It prints
the exit code, the time, the findings by severity and rule, and every finding; when a
repository is compared both from its Go types and from its CRDs, the findings only one side
has (by rule and schema path), which is where the two inputs disagree. Nothing from the
checkouts is kept.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def _kgen(kgen: list[str], args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, float, dict[str, Any], str]:
    start = time.perf_counter()
    done = subprocess.run([*kgen, "compat", "--format", "json", "--config", os.devnull, *args], capture_output=True,
                          text=True, env=env, cwd=cwd)  # fmt: skip
    seconds = time.perf_counter() - start
    try:
        document = json.loads(done.stdout)
    except json.JSONDecodeError:
        document = {"findings": [], "summary": {}}
    return done.returncode, seconds, document, done.stderr.strip()


def _split(spec: str, least: int) -> list[str]:
    parts = spec.split(":")
    if len(parts) < least:
        raise SystemExit(f"{spec!r}: expected NAME:OLD:NEW[:...]")
    return parts


def compare_go(kgen: list[str], spec: str, module: str | None, env: dict[str, str], work: Path) -> dict[str, Any]:
    name, old, new, *rest = _split(spec, 3)
    sub = rest[0] if rest else ""
    before, after = Path(old).resolve() / sub, Path(new).resolve() / sub
    args = ["--input", str(after), "--against", str(before), *(["--module", module] if module else [])]
    code, seconds, document, stderr = _kgen(kgen, args, env, work)
    return {"name": name, "input": "Go types", "old": str(before), "new": str(after), "exit": code,
            "seconds": round(seconds, 2), "document": document, "stderr": stderr[-2000:]}  # fmt: skip


def compare_crds(kgen: list[str], spec: str, env: dict[str, str], work: Path) -> dict[str, Any]:
    name, old, new, dirs = _split(spec, 4)[:4]
    wanted = [d for d in dirs.split(",") if d]
    before = [str(Path(old).resolve() / d) for d in wanted if (Path(old) / d).is_dir()]
    after = [str(Path(new).resolve() / d) for d in wanted if (Path(new) / d).is_dir()]
    args = [arg for directory in before for arg in ("--against", directory)] + after
    code, seconds, document, stderr = _kgen(kgen, args, env, work)
    return {"name": name, "input": "CRDs", "old": before, "new": after, "exit": code, "seconds": round(seconds, 2),
            "document": document, "stderr": stderr[-2000:]}  # fmt: skip


_PLACE = re.compile(r"^(?P<kind>\S+) (?P<gv>\S+)(?: (?P<path>[^:;(]+))?:")


def _keys(finding: dict[str, Any]) -> set[tuple[str, str, str]]:
    """(rule, kind, path) of a finding and of the places it names (`also ...`)."""
    message = finding["message"]
    head = _PLACE.match(message)
    keys = set()
    if head is not None:
        keys.add((finding["rule"], head["kind"], (head["path"] or "").strip()))
    also = re.search(r"\(also (.*?)\)", message)
    if also:
        for place in also.group(1).replace(" and ", ", ").split(", "):
            parts = place.split(" ")
            if len(parts) >= 3:
                keys.add((finding["rule"], parts[0], parts[2]))
    return keys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.conformance.compat", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--go", action="append", default=[], metavar="NAME:OLD:NEW[:SUBDIR]")
    parser.add_argument("--crds", action="append", default=[], metavar="NAME:OLD:NEW:DIR[,DIR...]")
    parser.add_argument("--module", action="append", default=[], metavar="NAME=PATH",
                        help="the Go import path of the --go input NAME, when its go.mod does not say it")  # fmt: skip
    parser.add_argument("--gomodcache", type=Path, help="the Go module cache their imports are in (else GOMODCACHE)")
    parser.add_argument("--kgen", default=f"{sys.executable} -m kgen.cli", help="how to run kgen")
    parser.add_argument("--json", type=Path, help="also write every figure and finding to this file")
    parser.add_argument("--details", action="store_true", help="print every finding's whole message")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kgen-conformance-compat-"))
    env = dict(os.environ, KGEN_NO_CACHE="1", KGEN_CACHE_DIR=str(work / "cache"), NO_COLOR="1")
    # `python -m kgen.cli` runs the kgen of this checkout, wherever the process starts
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(REPO), env.get("PYTHONPATH"))))
    if args.gomodcache:
        env["GOMODCACHE"] = str(args.gomodcache.resolve())
    kgen = args.kgen.split()
    modules = dict(entry.split("=", 1) for entry in args.module)
    runs = [compare_go(kgen, spec, modules.get(spec.split(":", 1)[0]), env, work) for spec in args.go]
    runs += [compare_crds(kgen, spec, env, work) for spec in args.crds]
    lines: list[str] = []
    for run in runs:
        document = run["document"]
        summary = document.get("summary", {})
        lines.append(f"{run['name']} ({run['input']}): kgen compat exit {run['exit']} in {run['seconds']:.1f} s; "
                     f"{summary.get('error', 0)} errors, {summary.get('warning', 0)} warnings, "
                     f"{summary.get('info', 0)} infos")  # fmt: skip
        if run["exit"] not in (0, 1):
            lines.append(f"    {run['stderr']}")
        rules = Counter((f["severity"], f["rule"]) for f in document.get("findings", []))
        for (severity, rule), count in sorted(rules.items(), key=lambda item: (-item[1], item[0])):
            lines.append(f"    {count:4} {severity:<8} {rule}")
        for finding in document.get("findings", []):
            message = finding["message"] if args.details else finding["message"][:220]
            lines.append(f"  {finding['path']}:{finding['line']}: {finding['severity']}: {message} [{finding['rule']}]")
        for note in document.get("notes", []):
            lines.append(f"  note: {note}")
    by_name: dict[str, dict[str, dict[str, Any]]] = {}
    for run in runs:
        by_name.setdefault(run["name"], {})[run["input"]] = run
    for name, inputs in by_name.items():
        if len(inputs) < 2:
            continue
        go = set().union(*(_keys(f) for f in inputs["Go types"]["document"].get("findings", [])))
        crds = set().union(*(_keys(f) for f in inputs["CRDs"]["document"].get("findings", [])))
        lines.append(f"{name}: Go types and CRDs agree on {len(go & crds)} (rule, kind, path); "
                     f"only from Go types {len(go - crds)}, only from CRDs {len(crds - go)}")  # fmt: skip
        lines += [f"    only from Go types: {rule} {kind} {path}" for rule, kind, path in sorted(go - crds)]
        lines += [f"    only from CRDs:     {rule} {kind} {path}" for rule, kind, path in sorted(crds - go)]
    print("\n".join(lines), flush=True)
    if args.json:
        args.json.write_text(json.dumps(runs, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
