"""`python -m bench.conformance`: run kgen on checkouts of real repositories and score its
outputs against the upstream ones found there (see the package docstring)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bench.conformance.compare import (
    Score,
    compare_conversions,
    compare_crds,
    compare_messages,
    compare_swagger,
    crd_index,
    marker_rule_text,
)

_SKIPPED_DIRS = {"vendor", "testdata", ".git", "node_modules"}


class _Loader(yaml.SafeLoader):
    """YAML as the API server reads it: `=` is a string (PyYAML's value tag would refuse it)."""


_Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


@dataclass
class Run:
    """One kgen run: what it wrote, how it ended, what it said."""

    name: str
    output: Path
    returncode: int
    seconds: float
    warnings: int
    errors: int
    first_errors: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"exit": self.returncode, "seconds": round(self.seconds, 2), "warnings": self.warnings,
                "errors": self.errors, "first_errors": self.first_errors}  # fmt: skip


def run_kgen(kgen: list[str], name: str, input_dir: Path, output: Path, env: dict[str, str], *extra: str) -> Run:
    """`kgen generate` as a user runs it; never raises on kgen's failure."""
    args = [*kgen, "generate", "--input", str(input_dir.resolve()), "--output", str(output), "--config", os.devnull, *extra]
    start = time.perf_counter()
    result = subprocess.run(args, capture_output=True, text=True, env=env, cwd=output.parent)
    seconds = time.perf_counter() - start
    lines = result.stderr.splitlines()
    errors = [line for line in lines if ": error: " in line or line.startswith("kgen: internal error")]
    warnings = [line for line in lines if ": warning: " in line]
    return Run(name, output, result.returncode, seconds, len(warnings), len(errors), errors[:3])


# -- protobuf ---------------------------------------------------------------------------------------


def _proto_root(mapping: dict[str, Path]) -> Path:
    """An include root where each import path prefix is a link to its directory."""
    root = Path(tempfile.mkdtemp(prefix="kgen-conformance-proto-"))
    for prefix, directory in sorted(mapping.items()):
        link = root / prefix
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(directory.resolve(), target_is_directory=True)
    return root


def _descriptors(root: Path, files: list[str]) -> dict[str, Any]:
    """Message descriptors by full name, of `files` (import paths) compiled with protoc."""
    import grpc_tools
    from google.protobuf import descriptor_pb2

    out = Path(tempfile.mkdtemp(prefix="kgen-conformance-fds-")) / "set.pb"
    include = str(Path(grpc_tools.__file__).parent / "_proto")
    # A process of its own: protoc writes its warnings (upstream's unused imports) to stderr.
    result = subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{root}", f"-I{include}", f"--descriptor_set_out={out}",
         "--include_imports", *files],
        capture_output=True, text=True,
    )  # fmt: skip
    if result.returncode != 0:
        print(f"protoc failed: {result.stderr.strip()[-500:]}", file=sys.stderr)
        return {}
    files_set = descriptor_pb2.FileDescriptorSet()
    files_set.ParseFromString(out.read_bytes())
    messages: dict[str, Any] = {}

    def walk(prefix: str, message: Any) -> None:
        messages[prefix + message.name] = message
        for nested in message.nested_type:
            walk(prefix + message.name + ".", nested)

    for proto in files_set.file:
        for message in proto.message_type:
            walk(proto.package + ".", message)
    return messages


def protobuf_score(k8s_api: Path, apimachinery: Path, ours: Path) -> Score:
    runtime = Path(__import__("kgen.runtime.apimachinery", fromlist=["x"]).__file__).parent
    files = sorted(str(p.relative_to(k8s_api)) for p in k8s_api.rglob("generated.proto"))
    upstream = _descriptors(_proto_root({"k8s.io/api": k8s_api, "k8s.io/apimachinery": apimachinery}), [f"k8s.io/api/{f}" for f in files])
    mine_root = _proto_root({
        "k8s.io/api": ours,
        **{f"k8s.io/apimachinery/pkg/{p}": runtime / p.replace("apis/", "") for p in ("apis/meta/v1", "runtime", "api/resource", "util/intstr")},
    })  # fmt: skip
    ours_files = [f"k8s.io/api/{f}" for f in files if (ours / f).is_file()]
    mine = _descriptors(mine_root, ours_files) if ours_files else {}
    return compare_messages(upstream, mine, "k8s.io.api.")


# -- CRD repositories -------------------------------------------------------------------------------


def _committed_crds(repository: Path) -> dict[str, dict]:
    found: dict[str, dict] = {}
    for path in sorted(repository.rglob("*.yaml")):
        if not path.is_file() or _SKIPPED_DIRS & set(path.parts) or "kind: CustomResourceDefinition" not in path.read_text(errors="replace"):
            continue
        try:
            documents = list(yaml.load_all(path.read_text(), Loader=_Loader))
        except yaml.YAMLError:
            continue  # a template (Helm) or a kustomize patch, not a manifest
        for name, crd in crd_index(documents).items():
            if "openAPIV3Schema" in str(crd.get("spec", {}).get("versions", [{}])[0].get("schema", {})):
                found.setdefault(name, crd)
    return found


def _our_crds(output: Path) -> dict[str, dict]:
    found: dict[str, dict] = {}
    for path in sorted((output / "crds").glob("*.yaml")):
        found.update(crd_index(list(yaml.load_all(path.read_text(), Loader=_Loader))))
    return found


def _import_share(output: Path, env: dict[str, str]) -> tuple[int, int, list[str]]:
    """How many generated modules import, in a fresh interpreter, and the first failures."""
    code = (
        "import importlib, sys, json, pathlib\n"
        f"root = pathlib.Path({str(output)!r}); sys.path.insert(0, str(root.parent))\n"
        "ok, failures = 0, []\n"
        "mods = sorted(p for p in root.rglob('*.py'))\n"
        "for p in mods:\n"
        "    parts = list(p.relative_to(root.parent).with_suffix('').parts)\n"
        "    if parts[-1] == '__init__': parts = parts[:-1]\n"
        "    try:\n"
        "        importlib.import_module('.'.join(parts)); ok += 1\n"
        "    except Exception as err:\n"
        "        failures.append('.'.join(parts) + ': ' + type(err).__name__ + ': ' + str(err)[:200])\n"
        "print(json.dumps([ok, len(mods), failures[:3]]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        return 0, 0, [result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "import check failed"]
    ok, total, failures = json.loads(result.stdout)
    return ok, total, failures


def _groups(output: Path) -> set[str]:
    return {crd["spec"]["group"] for crd in _our_crds(output).values()}


def score_repository(kgen: list[str], spec: str, work: Path, env: dict[str, str]) -> dict[str, Any]:
    repository, _, api = spec.partition(":")
    repo = Path(repository).resolve()
    api_dir = repo / api if api else repo
    output = work / f"out-{repo.name}"
    run = run_kgen(kgen, repo.name, api_dir, output, env)
    report: dict[str, Any] = {"repository": str(repo), "api": str(api_dir), "run": run.as_json()}
    committed = _committed_crds(repo)
    ours = _our_crds(output) if run.returncode == 0 else {}
    groups = _groups(output) if run.returncode == 0 else set()
    # The committed CRDs of the groups this API defines (a repository also keeps test CRDs).
    upstream = {n: c for n, c in committed.items() if not groups or c.get("spec", {}).get("group") in groups}
    report["crds"] = {"upstream": len(upstream), "kgen": len(ours), "missing": sorted(set(upstream) - set(ours))}
    sources = [p.read_text(errors="replace") for p in api_dir.rglob("*.go") if not _SKIPPED_DIRS & set(p.parts)]
    scores = compare_crds(upstream, ours, marker_rule_text(sources))
    go_texts = [p.read_text() for p in api_dir.rglob("zz_generated.conversion.go") if not _SKIPPED_DIRS & set(p.parts)]
    py_texts = [p.read_text() for p in output.rglob("conversion.py")] if run.returncode == 0 else []
    scores["conversions"] = compare_conversions(go_texts, py_texts)
    ok, total, failures = _import_share(output, env) if run.returncode == 0 else (0, 0, [])
    report["imports"] = {"ok": ok, "total": total, "failures": failures}
    report["scores"] = scores
    return report


# -- the command ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.conformance", description=__doc__)
    parser.add_argument("--k8s-api", type=Path, help="a checkout of k8s.io/api (kubernetes/api at a release)")
    parser.add_argument("--apimachinery", type=Path, help="a checkout of k8s.io/apimachinery at the same release")
    parser.add_argument("--swagger", type=Path, help="the API server's swagger of that release (kubernetes-client/python's swagger.json.unprocessed)")
    parser.add_argument("--crd-repo", action="append", default=[], metavar="DIR[:APIDIR]",
                        help="a repository with committed controller-gen CRDs; APIDIR (relative) holds its API types")  # fmt: skip
    parser.add_argument("--gomodcache", type=Path, help="the Go module cache the repositories' dependencies are in (else GOMODCACHE)")
    parser.add_argument("--kube-api-linter", type=Path, help="a checkout of kubernetes-sigs/kube-api-linter: kgen lint "
                        "against the findings its linters' tests document")  # fmt: skip
    parser.add_argument("--api-rules", type=Path, help="Kubernetes' api/api-rules/violation_exceptions.list (of the "
                        "release --k8s-api is at): kgen lint's builtin profile on k8s.io/api against it")  # fmt: skip
    parser.add_argument("--lint-only", action="store_true", help="only the kgen lint scores (no kgen generate runs)")
    parser.add_argument("--kgen", default=f"{sys.executable} -m kgen.cli", help="how to run kgen (default: this Python's)")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    parser.add_argument("--details", action="store_true", help="list the differences, most frequent first")
    args = parser.parse_args(argv)
    kgen = args.kgen.split()
    env = dict(os.environ, KGEN_NO_CACHE="1")
    if args.gomodcache:
        env["GOMODCACHE"] = str(args.gomodcache.resolve())
    work = Path(tempfile.mkdtemp(prefix="kgen-conformance-"))
    results: dict[str, Any] = {}
    lines: list[str] = []
    started = time.perf_counter()
    if args.kube_api_linter or (args.k8s_api and args.api_rules):
        from bench.conformance import lint as lint_scores

        kal = lint_scores.score_kube_api_linter(args.kube_api_linter) if args.kube_api_linter else None
        k8s = lint_scores.score_k8s_api(args.k8s_api, args.api_rules) if args.k8s_api and args.api_rules else None
        lines.extend(lint_scores.report_lines(kal, k8s))
        if kal is not None:
            results["kube-api-linter"] = {"recall": kal[0], "precision": kal[1], "golden": kal[2]}
        if k8s is not None:
            results["k8s.io/api lint"] = k8s
    if args.lint_only:
        print("\n".join(lines), flush=True)
        if args.json:
            args.json.write_text(json.dumps(results, indent=2, default=lambda o: o.as_json() if isinstance(o, Score) else str(o)) + "\n")
        return 0
    if args.k8s_api:
        output = work / "out-k8s-api"
        run = run_kgen(kgen, "k8s.io/api", args.k8s_api, output, env, "--module", "k8s.io/api")
        entry: dict[str, Any] = {"run": run.as_json()}
        lines.append(f"k8s.io/api ({args.k8s_api}): kgen exit {run.returncode} in {run.seconds:.1f} s, "
                     f"{run.warnings} warnings, {run.errors} errors")  # fmt: skip
        lines += [f"    {e}" for e in run.first_errors]
        if args.apimachinery:
            score = protobuf_score(args.k8s_api, args.apimachinery, output)
            entry["protobuf"] = score
            lines.append(f"  .proto fields equal to generated.proto            {score.line()}   (target 100 %)")
        if args.swagger:
            swagger = json.loads(args.swagger.read_text())
            ours_path = output / "openapi" / "swagger.json"
            ours = json.loads(ours_path.read_text()) if ours_path.is_file() else {}
            score, missing = compare_swagger(swagger, ours, ("io.k8s.api.", "io.k8s.apimachinery."))
            entry["openapi"] = score
            entry["openapi_missing_definitions"] = missing
            lines.append(f"  OpenAPI v2 properties equal to the swagger        {score.line()}   (target >= 99.5 %; "
                         f"{len(missing)} definitions missing)")  # fmt: skip
        ok, total, failures = _import_share(output, env) if run.returncode == 0 else (0, 0, [])
        entry["imports"] = {"ok": ok, "total": total, "failures": failures}
        lines.append(f"  generated modules that import                     {ok}/{total}")
        results["k8s.io/api"] = entry
    if args.apimachinery:
        from bench.conformance.apimachinery import run as run_tables

        areas = run_tables(args.apimachinery)
        passed = sum(a.passed for a in areas.values())
        checked = sum(a.checked for a in areas.values())
        lines.append(f"apimachinery ({args.apimachinery}): its unit tests' tables through kgen's runtime")
        lines.append(f"  cases passed                                      {passed}/{checked} in {len(areas)} areas "
                     f"({sum(a.skipped for a in areas.values())} not read)")  # fmt: skip
        lines += [f"    {name}: {failure}" for name, area in sorted(areas.items()) for failure in area.failed[:3]]
        results["apimachinery"] = {name: {"passed": a.passed, "failed": a.failed, "skipped": a.skipped} for name, a in areas.items()}
    totals = {key: Score(key) for key in ("paths", "rules", "parts", "conversions", "rules outside markers")}
    table: list[tuple[str, int, str, str, str]] = []  # repository, exit, first error, paths, imports
    for spec in args.crd_repo:
        report = score_repository(kgen, spec, work, env)
        run = report["run"]
        lines.append(f"{report['api']}: kgen exit {run['exit']} in {run['seconds']:.1f} s, {run['warnings']} warnings, "
                     f"{run['errors']} errors; CRDs: {report['crds']['kgen']} of kgen, {report['crds']['upstream']} "
                     f"committed{', missing: ' + ', '.join(report['crds']['missing']) if report['crds']['missing'] else ''}")  # fmt: skip
        lines += [f"    {e}" for e in run["first_errors"]]
        scores = report["scores"]
        lines.append(f"  CRD schema paths equal                            {scores['paths'].line()}   (target >= 99 %)")
        lines.append(f"  CEL rules reproduced                              {scores['rules'].line()}   (target 100 %)")
        if "rules outside markers" in scores:
            lines.append(f"  CEL rules no controller-gen marker of the source holds (the repository's own CRD tool wrote "
                         f"them): {scores['rules outside markers'].line()}")  # fmt: skip
        lines.append(f"  CRD names, scope, versions equal                  {scores['parts'].line()}")
        lines.append(f"  upstream Convert_ functions with a kgen equivalent {scores['conversions'].line()}")
        lines.append(f"  generated modules that import                     {report['imports']['ok']}/{report['imports']['total']}")
        for failure in report["imports"]["failures"]:
            lines.append(f"    {failure}")
        for key, total in totals.items():
            total.merge(scores.get(key, Score(key)))
        results[report["api"]] = report
        table.append((report["api"], run["exit"], (run["first_errors"] or [""])[0],
                      scores["paths"].line(), f"{report['imports']['ok']}/{report['imports']['total']}"))  # fmt: skip
    if len(args.crd_repo) > 1:
        lines.append("Per repository: exit code, CRD schema paths equal, modules that import, first error")
        for name, code, error, paths, imports in table:
            lines.append(f"  {name:<60} exit {code}  {paths:<24} {imports:<9} {error[:160]}")
        unmodified = sum(1 for _, code, *_ in table if code == 0)
        lines.append(f"  run unmodified (exit 0)                           {unmodified}/{len(table)} "
                     f"({100 * unmodified / len(table):.1f} %)")  # fmt: skip
        lines.append("All CRD repositories:")
        lines.append(f"  CRD schema paths equal                            {totals['paths'].line()}")
        lines.append(f"  CEL rules reproduced                              {totals['rules'].line()}")
        if totals["rules outside markers"].total:
            lines.append(f"  CEL rules no controller-gen marker holds (repositories' own tools) {totals['rules outside markers'].line()}")
        lines.append(f"  upstream Convert_ functions with a kgen equivalent {totals['conversions'].line()}")
    lines.append(f"({time.perf_counter() - started:.0f} s)")
    print("\n".join(lines), flush=True)
    if args.details:
        for name, entry in results.items():
            scores = entry.get("scores", {}) | {k: v for k, v in entry.items() if isinstance(v, Score)}
            for score in scores.values():
                for kind, count in score.differences.most_common(12):
                    print(f"{name} {score.name}: {count} x {kind}")
                    for example in score.examples.get(kind, []):
                        print(f"    {example[:300]}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=lambda o: o.as_json() if isinstance(o, Score) else str(o)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
