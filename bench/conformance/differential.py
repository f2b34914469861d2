"""Differential testing of custom resources: the same random requests to a real API server
and to kgen's, and every answer compared.

    python -m bench.conformance.differential --reference KUBECONFIG [--candidate KUBECONFIG]
        [--crd FILE ...] [--cases N] [--seed N] [--json FILE] [--examples N]

The reference is a real API server (a kube-apiserver, or a standalone apiextensions-apiserver
on etcd); the candidate is a `kgen serve` (started here, on the repository's own API, when no
kubeconfig is given). Both get the same CustomResourceDefinitions (by default the custom
resource suite's Widgets, as kgen generates their CRD from Go types, and a third party's
Certificate CRD), then the same cases: a create of a random object, then random reads,
updates (with and without a resourceVersion), merge and JSON patches, status writes and a
delete. Objects are drawn from each version's schema and then spoiled at random (a value of
the wrong type, a null, out of its bounds, an unknown field, a duplicate list key), so that
most requests exercise pruning, defaulting and validation on both servers.

Two answers agree when they have the same status code, the same Warning headers and the same
body once what differs by nature is put aside: uids, resourceVersions, timestamps and
managedFields. It prints how many requests agreed and, for each way of disagreeing (by verb,
status codes and the first differing field), how often and the first examples.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import re
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests")]  # the suites' fixtures and their conftest

from tests.serve_fixtures import ServeProcess, delete_crd, external_cluster, install_crd  # noqa: E402

STRINGS = ("", "a", "red", "Red!", "blue", "x" * 6, "x" * 11, "x" * 25, "http", "8080", "standard", "s", "l", "ü",
           "a.b", "-a", "1h", "2160h", "web-tls", "shop.example.com/v1")  # fmt: skip
INTEGERS = (0, 1, -1, 3, 7, 8080, 65536, 2**31, -(2**31) - 1, 2**53 + 1)
WRONG = (None, "three", 1, 1.5, True, [], {}, [1], {"a": 1})

CERTIFICATE_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: certificates.certs.example.io
spec:
  group: certs.example.io
  scope: Namespaced
  names: {plural: certificates, singular: certificate, kind: Certificate, listKind: CertificateList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [secretName]
            properties:
              secretName: {type: string, maxLength: 20, pattern: '^[a-z0-9-]+$'}
              duration: {type: string, default: 2160h}
              renewals: {type: integer, minimum: 0, maximum: 10, format: int32}
              usages:
                type: array
                maxItems: 3
                items: {type: string, enum: [server auth, client auth, signing]}
                x-kubernetes-list-type: set
              issuerRef:
                type: object
                required: [name]
                properties:
                  name: {type: string, minLength: 1}
                  kind: {type: string, default: Issuer}
                x-kubernetes-map-type: atomic
              keys:
                type: array
                items:
                  type: object
                  required: [id]
                  properties:
                    id: {type: string}
                    size: {type: integer, default: 2048}
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [id]
              labels:
                type: object
                additionalProperties: {type: string, maxLength: 8}
                maxProperties: 2
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
              ratio: {type: number, minimum: 0.5, exclusiveMinimum: true}
              choice:
                x-kubernetes-int-or-string: true
                anyOf: [{type: integer}, {type: string}]
            x-kubernetes-validations:
            - rule: "!has(self.usages) || size(self.usages) > 0"
              message: usages may not be empty
            - rule: "self.secretName != 'forbidden'"
              messageExpression: "'secret ' + self.secretName + ' is forbidden'"
          status:
            type: object
            properties:
              ready: {type: boolean}
              notAfter: {type: string, format: date-time}
"""


# -- random objects from a structural schema ----------------------------------------------------


class Draw:
    """Random values of a schema, mostly valid, now and then spoiled."""

    def __init__(self, rng: random.Random, spoil: float = 0.07):
        self.rng, self.spoil = rng, spoil

    def value(self, schema: dict[str, Any], depth: int = 0) -> Any:
        rng = self.rng
        if rng.random() < self.spoil:
            return rng.choice(WRONG)
        if "default" in schema and rng.random() < 0.2:
            return copy.deepcopy(schema["default"])
        if schema.get("enum") and rng.random() < 0.8:
            return rng.choice(schema["enum"])
        if schema.get("x-kubernetes-embedded-resource") and rng.random() > self.spoil * 2:
            name = rng.choice(("cm", "Bad_Name", ""))
            return {"apiVersion": "v1", "kind": rng.choice(("ConfigMap", "config-map")), "metadata": {"name": name},
                    "data": {"k": "v"}}  # fmt: skip
        if schema.get("x-kubernetes-int-or-string"):
            return rng.choice((rng.choice(INTEGERS), rng.choice(STRINGS)))
        kind = schema.get("type")
        if kind == "object" or "properties" in schema or "additionalProperties" in schema:
            return self.object(schema, depth)
        if kind == "array":
            items = schema.get("items", {})
            count = rng.choice((0, 1, 1, 2, 3, 4))
            values = [self.value(items, depth + 1) for _ in range(count)]
            if values and rng.random() < self.spoil * 2:
                values.append(copy.deepcopy(values[0]))  # a duplicate for sets and maps
            return values
        if kind == "integer":
            return rng.choice(self._fitting(INTEGERS, schema) or INTEGERS)
        if kind == "number":
            return rng.choice(self._fitting((0, 0.5, 0.75, 1, 2.5, -1), schema) or (0.5, 1))
        if kind == "boolean":
            return rng.choice((True, False))
        if kind == "string":
            if schema.get("format") == "date-time":
                return rng.choice(("2026-01-02T03:04:05Z", "yesterday", "2026-01-02"))
            return rng.choice(self._fitting(STRINGS, schema) or STRINGS)
        return rng.choice(("free", 1, {"k": "v"}, [True]))

    def _fitting(self, values: tuple[Any, ...], schema: dict[str, Any]) -> tuple[Any, ...]:
        """Mostly the values the schema's bounds, lengths and pattern allow (so that objects
        get stored and later requests have something to work on), now and then any."""
        if self.rng.random() < self.spoil * 2:
            return values

        def fits(value: Any) -> bool:
            if isinstance(value, str):
                pattern = schema.get("pattern")
                return (len(value.encode()) <= schema.get("maxLength", 1 << 30) and len(value) >= schema.get("minLength", 0)
                        and (pattern is None or re.search(pattern, value) is not None))  # fmt: skip
            low, high = schema.get("minimum"), schema.get("maximum")
            if low is not None and (value < low or (schema.get("exclusiveMinimum") and value == low)):
                return False
            if high is not None and (value > high or (schema.get("exclusiveMaximum") and value == high)):
                return False
            return schema.get("format") != "int32" or -(2**31) <= value < 2**31

        return tuple(value for value in values if fits(value))

    def object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        rng, result = self.rng, {}
        required = set(schema.get("required", ()))
        for name, child in (schema.get("properties") or {}).items():
            if name in ("apiVersion", "kind", "metadata") and depth == 0:
                continue
            wanted = name in required or (name == "spec" and depth == 0)  # an object's spec is always given
            if (wanted and rng.random() > self.spoil) or rng.random() < 0.55:
                result[name] = self.value(child, depth + 1)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for _ in range(rng.choice((0, 1, 2, 3))):
                result[rng.choice(("a", "b", "c", "long-key"))] = self.value(extra, depth + 1)
        if rng.random() < self.spoil or schema.get("x-kubernetes-preserve-unknown-fields") and rng.random() < 0.5:
            result[rng.choice(("bogus", "extraField", "Color"))] = rng.choice(("x", 1, {"y": [1]}))
        return result


def versions(crd: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(v["name"], v["schema"]["openAPIV3Schema"]) for v in crd["spec"]["versions"] if v.get("served")]


# -- the cases -----------------------------------------------------------------------------------


class Case:
    """One object's life, as requests; each request is run on both servers in turn."""

    def __init__(self, crd: dict[str, Any], name: str, rng: random.Random):
        self.crd, self.name, self.rng = crd, name, rng
        self.draw = Draw(rng, spoil=rng.choice((0.0, 0.02, 0.07, 0.12)))  # from clean objects to spoiled ones
        self.group = crd["spec"]["group"]
        self.plural = crd["spec"]["names"]["plural"]
        self.kind = crd["spec"]["names"]["kind"]
        self.status = any("status" in (v.get("subresources") or {}) for v in crd["spec"]["versions"])

    def path(self, version: str, name: str | None = None) -> str:
        base = f"/apis/{self.group}/{version}/namespaces/default/{self.plural}"
        return f"{base}/{name}" if name else base

    def body(self, version: str, schema: dict[str, Any]) -> dict[str, Any]:
        body = {
            "apiVersion": f"{self.group}/{version}",
            "kind": self.kind,
            "metadata": {"name": self.name},
            **{k: v for k, v in self.draw.object(schema, 0).items() if k in ("spec", "status", "bogus")},
        }
        if self.rng.random() < 0.2:
            body["metadata"]["labels"] = {"app": self.rng.choice(("web", "-bad-", "x" * 64))}
        return body

    def steps(self) -> Iterator[tuple[str, Callable[[httpx.Client, dict[str, Any] | None], httpx.Response]]]:
        """(description, request) pairs; a request gets the client and the object the last
        successful write on that server returned."""
        rng, served = self.rng, versions(self.crd)
        version, schema = rng.choice(served)
        created = self.body(version, schema)
        validation = rng.choice((None, None, "Strict", "Warn", "Ignore"))
        params = {"fieldValidation": validation} if validation else {}
        yield f"create {version} {json.dumps(created)} {params}", lambda c, _: c.post(
            self.path(version), json=created, params=params
        )
        for _ in range(rng.choice((1, 2, 3, 4))):
            version, schema = rng.choice(served)
            op = rng.choice(("get", "put", "put-no-rv", "merge", "json", "status", "list", "apply", "dry-run",
                             "scale", "stale", "selector", "strategic", "status-merge"))  # fmt: skip
            extra = self._more(op, version, schema)
            if extra is not None:
                yield extra
            elif op == "get":
                yield f"get {version}", lambda c, _, v=version: c.get(self.path(v, self.name))
            elif op == "list":
                yield f"list {version}", lambda c, _, v=version: c.get(self.path(v))
            elif op in ("put", "put-no-rv", "status"):
                if op == "status" and not self.status:
                    continue
                spec = self.draw.object(schema, 0)
                field = "status" if op == "status" else "spec"

                def put(c, current, v=version, spec=spec, op=op, field=field):
                    body = copy.deepcopy(current) if current else {"metadata": {"name": self.name}}
                    body["apiVersion"], body["kind"] = f"{self.group}/{v}", self.kind
                    if field in spec:
                        body[field] = spec[field]
                    if op == "put-no-rv":
                        body["metadata"].pop("resourceVersion", None)
                    suffix = "/status" if op == "status" else ""
                    return c.put(self.path(v, self.name) + suffix, json=body)

                yield f"{op} {version} {json.dumps(spec.get(field))}", put
            elif op == "merge":
                patch = {k: v for k, v in self.draw.object(schema, 0).items() if k == "spec"}
                if rng.random() < 0.3 and isinstance(patch.get("spec"), dict) and patch["spec"]:
                    patch["spec"][rng.choice(list(patch["spec"]))] = None  # a null removes the field
                yield (f"merge {version} {json.dumps(patch)}",
                       lambda c, _, v=version, p=patch: c.patch(self.path(v, self.name), content=json.dumps(p),
                                                               headers={"Content-Type": "application/merge-patch+json"}))  # fmt: skip
            else:
                properties = (schema.get("properties", {}).get("spec") or {}).get("properties") or {}
                if not properties:
                    continue
                name = rng.choice(sorted(properties))
                value = self.draw.value(properties[name])
                operation = rng.choice(("add", "replace", "remove", "test"))
                patch = [
                    {"op": operation, "path": f"/spec/{name}", **({} if operation == "remove" else {"value": value})}
                ]
                yield (f"json {version} {json.dumps(patch)}",
                       lambda c, _, v=version, p=patch: c.patch(self.path(v, self.name), content=json.dumps(p),
                                                               headers={"Content-Type": "application/json-patch+json"}))  # fmt: skip
        version, _ = rng.choice(served)
        if rng.random() < 0.2:
            precondition = rng.choice(("uid", "resourceVersion"))
            body = {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {precondition: "1"}}
            yield (f"delete {version} {json.dumps(body)}",
                   lambda c, _, v=version, b=body: c.request("DELETE", self.path(v, self.name), json=b))  # fmt: skip
        yield f"delete {version}", lambda c, _, v=version: c.delete(self.path(v, self.name))

    def _more(self, op: str, version: str, schema: dict[str, Any]) -> tuple[str, Callable[..., httpx.Response]] | None:
        """The rarer requests: server-side apply, dry run, /scale, a stale resourceVersion,
        label selectors, strategic merge patch, a merge patch of /status."""
        rng = self.rng
        if op == "apply":
            body = self.body(version, schema)
            force = rng.choice((None, "true"))
            params = {"fieldManager": rng.choice(("differential", "other")), **({"force": force} if force else {})}
            return (f"apply {version} {json.dumps(body)} {params}",
                    lambda c, _: c.patch(self.path(version, self.name), content=json.dumps(body), params=params,
                                         headers={"Content-Type": "application/apply-patch+yaml"}))  # fmt: skip
        if op == "dry-run":
            body = {**self.body(version, schema), "metadata": {"name": self.name + "-dry"}}
            return (f"dry-run {version} {json.dumps(body)}",
                    lambda c, _: c.post(self.path(version), json=body, params={"dryRun": "All"}))  # fmt: skip
        if op == "scale":
            if not any("scale" in (v.get("subresources") or {}) for v in self.crd["spec"]["versions"]):
                return None
            replicas = rng.choice((0, 2, -1, 2**31, "x"))

            def scale(c: httpx.Client, _: Any) -> httpx.Response:
                current = c.get(self.path(version, self.name) + "/scale")
                if current.status_code != 200:
                    return current
                body = current.json()
                body["spec"]["replicas"] = replicas
                return c.put(self.path(version, self.name) + "/scale", json=body)

            return f"scale {version} {replicas}", scale
        if op == "stale":

            def stale(c: httpx.Client, current: dict[str, Any] | None) -> httpx.Response:
                body = copy.deepcopy(current) if current else {"metadata": {"name": self.name}}
                body["apiVersion"], body["kind"] = f"{self.group}/{version}", self.kind
                body["metadata"]["resourceVersion"] = "1"
                return c.put(self.path(version, self.name), json=body)

            return f"stale {version}", stale
        if op == "selector":
            selector = rng.choice(("app=web", "app!=web", "app in (web,api)", "a=b=c", "!app", "app=" + "x" * 64))
            return (f"selector {version} {selector}",
                    lambda c, _: c.get(self.path(version), params={"labelSelector": selector}))  # fmt: skip
        if op == "strategic":
            return (f"strategic {version}",
                    lambda c, _: c.patch(self.path(version, self.name), content='{"spec":{}}',
                                         headers={"Content-Type": "application/strategic-merge-patch+json"}))  # fmt: skip
        if op == "status-merge":
            if not self.status:
                return None
            patch = {k: v for k, v in self.draw.object(schema, 0).items() if k == "status"} or {"status": {}}
            return (f"status-merge {version} {json.dumps(patch)}",
                    lambda c, _: c.patch(self.path(version, self.name) + "/status", content=json.dumps(patch),
                                         headers={"Content-Type": "application/merge-patch+json"}))  # fmt: skip
        return None


# -- comparing answers ---------------------------------------------------------------------------

_VOLATILE_METADATA = ("uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "managedFields", "selfLink")
_UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_RV = re.compile(r'((?:resourceVersion[": =]+|ResourceVersion in record \())"?\d+"?')


def normal(response: httpx.Response) -> dict[str, Any]:
    """What of an answer is compared. The causes of a 422 are compared in any order: the API
    server reports an object's properties in Go's map order, which changes from request to
    request."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    body = _scrub(body)
    if isinstance(body, dict) and body.get("kind") == "Status":
        _sort_causes(body)
        message = body.get("message")
        if isinstance(message, str) and "errors:\n" in message:  # structured-merge-diff's, in map order too
            head, _, tail = message.partition("errors:\n")
            body["message"] = head + "errors:\n" + "\n".join(sorted(tail.split("\n")))
    warnings = sorted(response.headers.get_list("warning"))
    return {"code": response.status_code, "warnings": warnings, "body": body}


def _sort_causes(status: dict[str, Any]) -> None:
    causes = (status.get("details") or {}).get("causes")
    if not causes:
        return
    message = status.get("message") or ""
    listed = [f"{c.get('field')}: {c.get('message')}" for c in causes]
    given = ", ".join(listed)
    ordered = sorted(causes, key=lambda c: (str(c.get("field")), str(c.get("reason")), str(c.get("message"))))
    status["details"]["causes"] = ordered
    if len(causes) > 1 and message.endswith(f"[{given}]"):
        status["message"] = message[: -len(given) - 2] + "[" + ", ".join(sorted(listed)) + "]"


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "metadata" and isinstance(item, dict):
                item = {k: v for k, v in item.items() if k not in _VOLATILE_METADATA}
            if key == "uid" and isinstance(item, str):
                item = "<uid>"
            out[key] = _scrub(item)
        return out
    if isinstance(value, list):
        return [_scrub(item) for item in value]
    if isinstance(value, str):
        return _RV.sub(r"\1<rv>", _UID.sub("<uid>", value))
    return value


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where two normal answers first differ (a dotted path), or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}[len]"
        for index, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if a == b else path or "."


@contextmanager
def candidate_server(kubeconfig: Path | None) -> Iterator[Callable[..., httpx.Client]]:
    if kubeconfig is not None:
        with external_cluster(str(kubeconfig), None) as connect:
            yield connect
        return
    with ServeProcess("--no-auth", storage="sqlite::memory:", config=REPO / "pyproject.toml") as server:
        yield lambda **kwargs: httpx.Client(base_url=server.url, verify=server.verify(), timeout=30.0, **kwargs)


def widget_crd() -> dict[str, Any]:
    """The custom resource suite's Widget CRD, as kgen generates it from the suite's Go types."""
    from conftest import write_tree
    from tests.serve_fixtures import generated_crds
    from tests.test_custom_resources import _files

    root = write_tree(Path(tempfile.mkdtemp(prefix="kgen-differential-")), _files())
    return generated_crds(root / "pyproject.toml")[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.conformance.differential", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--reference", type=Path, required=True, help="the real API server's kubeconfig")
    parser.add_argument("--candidate", type=Path, help="kgen's server's kubeconfig (default: start kgen serve)")
    parser.add_argument(
        "--crd", type=Path, action="append", help="a CRD file (default: the Widget and Certificate CRDs)"
    )
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--examples", type=int, default=2, help="examples printed per way of disagreeing")
    parser.add_argument("--json", type=Path, help="write every disagreement here")
    args = parser.parse_args(argv)
    for option, given in (("--reference", args.reference), ("--candidate", args.candidate)):
        if given is not None and not given.is_file():
            parser.error(f"{option} {given}: no such file (give a kubeconfig of the server)")
    if args.crd:
        crds = [
            d
            for f in args.crd
            for d in yaml.safe_load_all(f.read_text())
            if d and d.get("kind") == "CustomResourceDefinition"
        ]
    else:
        crds = [widget_crd(), yaml.safe_load(CERTIFICATE_CRD)]
    rng = random.Random(args.seed)
    requests = agreed = 0
    codes: dict[str, Counter[int]] = defaultdict(Counter)
    disagreements: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with (
        external_cluster(str(args.reference), None) as reference,
        candidate_server(args.candidate) as candidate,
        reference() as ref_http,
        candidate() as cand_http,
    ):
        for crd in crds:
            install_crd(ref_http, crd)
            install_crd(cand_http, crd)
        for number in range(args.cases):
            crd = crds[number % len(crds)]
            case = Case(crd, f"case-{args.seed}-{number}", rng)
            current: dict[str, dict[str, Any] | None] = {"reference": None, "candidate": None}
            for description, send in case.steps():
                answers = {}
                for side, http in (("reference", ref_http), ("candidate", cand_http)):
                    response = send(http, current[side])
                    if response.status_code in (200, 201) and response.headers.get("content-type", "").startswith(
                        "application/json"
                    ):
                        body = response.json()
                        if body.get("kind") == case.kind:
                            current[side] = body
                    answers[side] = normal(response)
                requests += 1
                verb = description.split(" ", 1)[0]
                codes[verb][answers["reference"]["code"]] += 1
                where = first_difference(answers["reference"], answers["candidate"])
                if where is None:
                    agreed += 1
                    continue
                key = f"{crd['spec']['names']['kind']} {verb} {answers['reference']['code']}/{answers['candidate']['code']} at {where}"
                disagreements[key].append({"case": case.name, "request": description, **answers})
        for crd in crds:
            delete_crd(ref_http, crd["metadata"]["name"])
            delete_crd(cand_http, crd["metadata"]["name"])
    print(
        f"{agreed} of {requests} requests answered alike ({requests - agreed} differ), {args.cases} cases, seed {args.seed}"
    )
    print("the reference's answers: " + "; ".join(
        f"{verb} " + " ".join(f"{code}x{n}" for code, n in sorted(counts.items())) for verb, counts in sorted(codes.items())))  # fmt: skip
    for key, found in sorted(disagreements.items(), key=lambda item: -len(item[1])):
        print(f"\n{len(found):5}  {key}")
        for example in found[: args.examples]:
            print(f"       {example['case']}: {example['request'][:400]}")
            for side in ("reference", "candidate"):
                print(f"         {side}: {json.dumps(example[side])[:600]}")
    if args.json:
        args.json.write_text(json.dumps(disagreements, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
