"""Conformance against upstream's generated outputs, on checkouts of real repositories.

    python -m bench.conformance --k8s-api DIR --apimachinery DIR --swagger FILE \\
        --crd-repo DIR[:APIDIR] ... [--gomodcache DIR] [--json FILE] [--details]

kgen runs (as a user runs it, in a fresh process, into a temporary directory) on:
- k8s.io/api: its `.proto` fields are compared with the release's `generated.proto` files
  (compiled by protoc into descriptors, field by field), and its OpenAPI v2 definitions,
  with apimachinery's, with the API server's swagger of the same release (property by
  property: required, type, format, $ref, items, additionalProperties, x-kubernetes-*);
- each CRD repository: its CRDs are compared with the ones committed there (every schema
  path, every keyword but descriptions; names, scope and versions), their CEL rules found
  at the same paths, its `Convert_` functions with kgen's conversions, and every generated
  Python module is imported.

With `--kube-api-linter DIR` (and `--k8s-api DIR --api-rules FILE`), `kgen lint` is scored
too (`bench.conformance.lint`): against the findings kube-api-linter's tests document for
each of its linters, and, on k8s.io/api, against the API rule violations Kubernetes
accepts; `--lint-only` runs just those.

Nothing from the checkouts is copied; the scores are printed (and written as JSON).
"""
