"""The behavioural suites of `kgen serve` and `FakeCluster`, run against a real API server.

    python -m bench.conformance.cluster --kubeconfig KUBECONFIG [--suite tests/test_custom_resources.py ...]
        [--json FILE]

The suites imitate a cluster: each check names the upstream behaviour it reproduces and
asserts what kgen's servers answer. Here the same checks run against the server the
kubeconfig names (a kube-apiserver, or a standalone apiextensions-apiserver on etcd), with
the CRDs kgen generates for each suite's API installed on it first, as `kubectl apply -f
generated/crds/` would. A check that passes on kgen's servers and fails here is a place
where kgen is not yet the stand-in it means to be (or where the check asserts more than the
upstream code says); a check skipped here needs what the server lacks (namespaces and the
controllers of a full cluster). It prints each check's outcome, the first line of each
failure, and the totals.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUITES = ("tests/test_custom_resources.py",)
"""The suites whose API is all custom resources (a standalone apiextensions-apiserver serves
them); with a full cluster, add tests/test_builtin_kinds.py and tests/test_admission_policies.py."""


def run(kubeconfig: Path, suites: list[str]) -> list[dict[str, str]]:
    """Each check of `suites` on the server of `kubeconfig`: name, outcome, first line of why."""
    with tempfile.TemporaryDirectory(prefix="kgen-conformance-cluster-") as scratch:
        report = Path(scratch) / "junit.xml"
        env = {**os.environ, "KGEN_TEST_CLUSTER": str(kubeconfig.resolve())}
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "0",
             "-k=cluster] or cluster-", f"--junitxml={report}", *suites],
            cwd=REPO, env=env, check=False,
        )  # fmt: skip
        root = ElementTree.parse(report).getroot()
    checks = []
    for case in root.iter("testcase"):
        outcome, why = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
                why = (
                    (child.get("message") or child.text or "").strip().splitlines()[0][:300]
                    if (child.get("message") or child.text)
                    else ""
                )
        checks.append(
            {
                "check": f"{case.get('classname', '').rsplit('.', 1)[-1]}::{case.get('name')}",
                "outcome": outcome,
                "why": why,
            }
        )
    return checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.conformance.cluster", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kubeconfig", type=Path, required=True, help="the real API server's kubeconfig")
    parser.add_argument("--suite", action="append", help="a behavioural suite (default: %s)" % ", ".join(SUITES))
    parser.add_argument("--json", type=Path, help="write every check's outcome here")
    args = parser.parse_args(argv)
    if not args.kubeconfig.is_file():
        parser.error(f"--kubeconfig {args.kubeconfig}: no such file (give the real API server's kubeconfig)")
    checks = run(args.kubeconfig, args.suite or list(SUITES))
    width = max((len(c["check"]) for c in checks), default=0)
    for check in checks:
        print(f"{check['outcome']:8} {check['check']:{width}}  {check['why']}".rstrip())
    totals = Counter(c["outcome"] for c in checks)
    ran = totals["passed"] + totals["failed"] + totals["error"]
    print(
        f"\n{totals['passed']} of {ran} checks pass on the real server"
        f" ({totals['failed'] + totals['error']} fail, {totals['skipped']} skipped: the server lacks what they need)"
    )
    if args.json:
        args.json.write_text(json.dumps(checks, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
