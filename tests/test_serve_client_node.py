"""The official JavaScript client (@kubernetes/client-node, from npm) against kgen serve, with
the kubeconfig kgen serve writes: discovery, create, get, list, patch, replace, watch and
delete of a custom resource, and a namespace, as it would against a cluster."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.serve_fixtures import ServeProcess

# npm-installs @kubernetes/client-node, then drives kgen serve (uvicorn) in a subprocess with it.
pytestmark = [pytest.mark.slow, pytest.mark.network]

SCRIPT = r"""
import * as k8s from '@kubernetes/client-node';

const kc = new k8s.KubeConfig();
kc.loadFromFile(process.argv[2]);
const core = kc.makeApiClient(k8s.CoreV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const apis = kc.makeApiClient(k8s.ApisApi);
const where = {group: 'example.kgen.dev', version: 'v1', namespace: 'default', plural: 'frobbers'};
const out = {};

out.groups = (await apis.getAPIVersions()).groups.map(g => g.name);
out.namespace = (await core.createNamespace({body: {metadata: {name: 'from-node'}}})).metadata.name;

const events = [];
const watch = new k8s.Watch(kc);
const request = await watch.watch('/apis/example.kgen.dev/v1/namespaces/default/frobbers',
  {fieldSelector: 'metadata.name=node'}, (type, obj) => events.push([type, obj.spec.replicas ?? null]), () => {});

const body = {apiVersion: 'example.kgen.dev/v1', kind: 'Frobber', metadata: {name: 'node', labels: {from: 'node'}},
              spec: {params: ['a'], replicas: 1}};
const created = await custom.createNamespacedCustomObject({...where, body});
out.created = [created.metadata.name, created.metadata.resourceVersion !== undefined];
const got = await custom.getNamespacedCustomObject({...where, name: 'node'});
out.got = got.spec.params;
const listed = await custom.listNamespacedCustomObject({...where, labelSelector: 'from=node'});
out.listed = listed.items.map(i => i.metadata.name);
const patched = await custom.patchNamespacedCustomObject({...where, name: 'node',
  body: [{op: 'replace', path: '/spec/replicas', value: 2}]});
out.patched = patched.spec.replicas;
patched.spec.replicas = 3;
const replaced = await custom.replaceNamespacedCustomObject({...where, name: 'node', body: patched});
out.replaced = replaced.spec.replicas;
try {
  await custom.replaceNamespacedCustomObject({...where, name: 'node', body: patched});
  out.conflict = 'none';
} catch (err) {
  out.conflict = err.code;
}
await custom.deleteNamespacedCustomObject({...where, name: 'node'});
try {
  await custom.getNamespacedCustomObject({...where, name: 'node'});
} catch (err) {
  out.gone = err.code;
}
for (let i = 0; i < 50 && events.length < 4; i++) await new Promise(r => setTimeout(r, 100));
request.abort();
out.events = events;
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def client_node(tmp_path_factory) -> Path:
    """@kubernetes/client-node installed from npm into a directory of its own."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed")
    root = tmp_path_factory.mktemp("client-node")
    done = subprocess.run(
        ["npm", "install", "--silent", "--no-audit", "--no-fund", "@kubernetes/client-node@1"],  # 2.x needs Node.js 22
        cwd=root, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return root


def test_client_node_speaks_to_kgen_serve_with_its_kubeconfig(client_node):
    (client_node / "round.mjs").write_text(SCRIPT)
    with ServeProcess() as server:
        done = subprocess.run(["node", "round.mjs", str(server.kubeconfig)], cwd=client_node, capture_output=True,
                              text=True, timeout=120, env={**os.environ, "NODE_NO_WARNINGS": "1"})  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert "example.kgen.dev" in out["groups"]
    assert out["namespace"] == "from-node"
    assert out["created"] == ["node", True] and out["got"] == ["a"] and out["listed"] == ["node"]
    assert (out["patched"], out["replaced"], out["conflict"], out["gone"]) == (2, 3, 409, 404)
    assert out["events"] == [["ADDED", 1], ["MODIFIED", 2], ["MODIFIED", 3], ["DELETED", 3]]


CRD_SCRIPT = r"""
import * as k8s from '@kubernetes/client-node';
import {readFileSync} from 'node:fs';

const kc = new k8s.KubeConfig();
kc.loadFromFile(process.argv[2]);
const extensions = kc.makeApiClient(k8s.ApiextensionsV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const where = {group: 'certs.example.io', version: 'v1', namespace: 'default', plural: 'certificates'};
const out = {};

const made = await extensions.createCustomResourceDefinition({body: JSON.parse(readFileSync(process.argv[3], 'utf8'))});
out.createdConditions = made.status.conditions;  // set by the server's controllers after the create
let crd = made;
for (let i = 0; i < 100 && !(crd.status.conditions || []).some(c => c.type === 'Established' && c.status === 'True'); i++) {
  await new Promise(r => setTimeout(r, 100));
  crd = await extensions.readCustomResourceDefinition({name: made.metadata.name});
}
out.conditions = crd.status.conditions.map(c => [c.type, c.status]);
const events = [];
const watch = new k8s.Watch(kc);
const request = await watch.watch('/apis/certs.example.io/v1/namespaces/default/certificates', {},
  (type, obj) => events.push([type, obj.spec.dnsNames ?? null]), () => {});
const body = {apiVersion: 'certs.example.io/v1', kind: 'Certificate', metadata: {name: 'web'}, spec: {secretName: 'web-tls'}};
const created = await custom.createNamespacedCustomObject({...where, body});
out.created = created.metadata.name;
out.listed = (await custom.listNamespacedCustomObject(where)).items.map(i => i.metadata.name);
const patched = await custom.patchNamespacedCustomObject({...where, name: 'web',
  body: [{op: 'add', path: '/spec/dnsNames', value: ['a.example.com']}]});
out.patched = patched.spec.dnsNames;
try {
  await custom.patchNamespacedCustomObject({...where, name: 'web', body: [{op: 'replace', path: '/spec/secretName', value: 'x'.repeat(21)}]});
  out.invalid = 'none';
} catch (err) {
  out.invalid = err.code;
}
await custom.deleteNamespacedCustomObject({...where, name: 'web'});
for (let i = 0; i < 50 && events.length < 3; i++) await new Promise(r => setTimeout(r, 100));
request.abort();
out.events = events;
console.log(JSON.stringify(out));
"""


def test_client_node_installs_a_crd_and_works_its_kind(client_node, tmp_path):
    import yaml

    from tests.test_custom_resources import THIRD_PARTY_CRD

    (client_node / "crd.mjs").write_text(CRD_SCRIPT)
    crd_file = tmp_path / "crd.json"
    crd_file.write_text(json.dumps(yaml.safe_load(THIRD_PARTY_CRD)))
    with ServeProcess() as server:
        done = subprocess.run(["node", "crd.mjs", str(server.kubeconfig), str(crd_file)], cwd=client_node, capture_output=True,
                              text=True, timeout=120, env={**os.environ, "NODE_NO_WARNINGS": "1"})  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["createdConditions"] is None, out
    assert out["conditions"] == [["NamesAccepted", "True"], ["Established", "True"]], out
    # (client-node's typed CRD model sends no `default` of a schema given as plain JSON: its
    # serializer reads the property as `_default`; a cluster then stores none either.)
    assert (out["created"], out["listed"], out["patched"], out["invalid"]) == ("web", ["web"], ["a.example.com"], 422)
    assert out["events"] == [["ADDED", None], ["MODIFIED", ["a.example.com"]], ["DELETED", ["a.example.com"]]]
