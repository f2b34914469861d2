"""Generation on real Kubernetes API sources, given on the command line.

    python -m bench realworld --k8s-api DIR [--k8s-version v0.36.3]

DIR is a checkout of k8s.io/api (kubernetes/api at a release tag). Two inputs are timed,
each `kgen` a fresh process with an empty cache, as a new machine runs it:

- a CRD project of our own making, written as kubebuilder scaffolds one: two kinds whose
  specs embed `corev1.PodTemplateSpec`, a go.mod that requires k8s.io/api, and k8s.io/api
  found in a Go module cache (GOMODCACHE) at that version, as `go mod download` leaves it;
- all of k8s.io/api, with every generator.

Besides the times: a no-op `--verify-only` (the pre-commit hook), and importing the CRD
project's generated package in a new interpreter (what an operator pays at start-up).
Nothing from the checkout is copied into the repository; the CRD project is written here.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

KGEN = [sys.executable, "-m", "kgen.cli"]

_KIND = """\
package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// {kind}Spec is the desired state of a {kind}.
type {kind}Spec struct {{
	// replicas is how many copies to run.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// template is the pod each copy runs.
	Template corev1.PodTemplateSpec `json:"template"`

	// serviceAccountName runs the pods as this account.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
}}

// {kind}Status is the observed state of a {kind}.
type {kind}Status struct {{
	// conditions describe the state of the {kind}.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// readyReplicas counts the copies that are ready.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}}

// {kind} runs a pod template.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type {kind} struct {{
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   {kind}Spec   `json:"spec"`
	Status {kind}Status `json:"status,omitempty"`
}}

// {kind}List is a list of {kind}s.
// +kubebuilder:object:root=true
type {kind}List struct {{
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []{kind} `json:"items"`
}}
"""


def write_crd_project(root: Path, k8s_version: str) -> None:
    """A kubebuilder-style operator API that embeds core/v1 types."""
    (root / "api" / "v1").mkdir(parents=True, exist_ok=True)
    (root / "go.mod").write_text(
        f"module example.com/operator\n\ngo 1.24\n\nrequire (\n\tk8s.io/api {k8s_version}\n"
        f"\tk8s.io/apimachinery {k8s_version}\n)\n"
    )
    (root / "api" / "v1" / "groupversion_info.go").write_text(
        textwrap.dedent(
            """\
            // Package v1 contains the API of the apps.example.com v1 group.
            // +kubebuilder:object:generate=true
            // +groupName=apps.example.com
            package v1
            """
        )
    )
    for kind in ("Worker", "Job"):
        (root / "api" / "v1" / f"{kind.lower()}_types.go").write_text(_KIND.format(kind=kind))


def module_cache(root: Path, k8s_api: Path, k8s_version: str) -> Path:
    """A Go module cache holding the k8s.io/api checkout at `k8s_version` (a link, as big as nothing)."""
    cache = root / "gomodcache"
    (cache / "k8s.io").mkdir(parents=True, exist_ok=True)
    (cache / "k8s.io" / f"api@{k8s_version}").symlink_to(k8s_api.resolve(), target_is_directory=True)
    return cache


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(KGEN + args, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"kgen {' '.join(args)} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return elapsed


def _import_time(output: Path, package: str, runs: int = 5) -> float:
    code = f"import sys, time; sys.path.insert(0, {str(output.parent)!r}); t = time.perf_counter(); import {package}; print(time.perf_counter() - t)"
    times = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        times.append(float(out.stdout))
    return statistics.median(times)


def run(k8s_api: Path, k8s_version: str = "v0.36.3") -> list[str]:
    """Run the benchmarks; return report lines."""
    work = Path(tempfile.mkdtemp(prefix="kgen-bench-real-"))
    try:
        project = work / "operator"
        write_crd_project(project, k8s_version)
        cache = module_cache(work, k8s_api, k8s_version)
        env = dict(os.environ, GOMODCACHE=str(cache), KGEN_CACHE_DIR=str(work / "kgen-cache"))
        flags = ["--input", "api", "--output", "generated", "--config", os.devnull]
        crd_cold = _run(["generate", *flags], project, env)
        files = sum(1 for p in (project / "generated").rglob("*") if p.is_file())
        noop = min(_run(["generate", "--verify-only", *flags], project, env) for _ in range(3))
        shutil.copytree(project / "generated", work / "imports" / "operator_api")
        imported = _import_time(work / "imports" / "operator_api", "operator_api.v1")
        shutil.rmtree(work / "kgen-cache", ignore_errors=True)
        api_flags = ["--input", str(k8s_api), "--module", "k8s.io/api", "--output", str(work / "k8s-api"), "--config", os.devnull]
        api_cold = _run(["generate", *api_flags], work, env)
        api_files = sum(1 for p in (work / "k8s-api").rglob("*") if p.is_file())
        api_noop = min(_run(["generate", "--verify-only", *api_flags], work, env) for _ in range(3))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [
        f"Real inputs: k8s.io/api {k8s_version}",
        f"  CRD project embedding PodTemplateSpec, every generator, cold   {crd_cold:6.2f} s   (target < 10 s; {files} files)",
        f"  CRD project, kgen generate --verify-only, unchanged           {noop:6.2f} s   (target < 1 s)",
        f"  CRD project, import of the generated package                  {imported:6.2f} s   (target < 0.5 s)",
        f"  all of k8s.io/api, every generator, cold                       {api_cold:6.2f} s   (target < 30 s; {api_files} files)",
        f"  all of k8s.io/api, kgen generate --verify-only, unchanged     {api_noop:6.2f} s   (target < 1 s)",
    ]
