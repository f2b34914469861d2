"""The webhook manifests beside the CRDs: the Mutating- and ValidatingWebhookConfiguration
(from `+kubebuilder:webhook` markers, as controller-gen writes them, or from
`[tool.kgen.webhook]`), the CRDs' conversion stanza, and their certificate handling.

Upstream facts followed:
- controller-tools pkg/webhook/parser.go: the marker's arguments and defaults (service
  `webhook-service` in `system`, core written `""`), its checks (`url` or `path`,
  sideEffects None or NoneOnDryRun, timeoutSeconds 1 to 30, admissionReviewVersions
  required, webhookVersions v1), `patch=` merged into the webhook, webhooks sorted by name,
  configurations named `mutating-webhook-configuration` and `validating-webhook-configuration`
  unless `+kubebuilder:webhookconfiguration` names them.
- kubernetes pkg/apis/admissionregistration/validation/validation.go: what the API server
  accepts of a webhook (a fully qualified name, supported failurePolicy, matchPolicy,
  sideEffects, reinvocationPolicy, timeoutSeconds 1 to 30, a URL or a Service, recognised
  admissionReviewVersions, unique names).
- apiserver pkg/util/webhook/validation.go: webhook URLs are https, without user, query or
  fragment; a Service path starts with '/'.
- The published OpenAPI of admissionregistration.k8s.io/v1 and apiextensions.k8s.io/v1,
  read at run time from a swagger document (`KGEN_K8S_SWAGGER`, for example
  kubernetes-client/python's kubernetes/swagger.json.unprocessed) by tests/kube_schema.py,
  which also lets kubectl validate the manifests offline.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, build, messages, write_tree
from kgen.generators import crd, webhook
from kgen.generators.options import GeneratorOptions
from kgen.options import OptionsError, resolve_options
from kube_schema import DiscoveryServer, definitions_by_kind, schema_errors, swagger_path

MANIFESTS = REPO / "generated" / "webhooks" / "manifests.yaml"
CRDS = sorted((REPO / "generated" / "crds").glob("*.yaml"))


def _documents(*paths: Path) -> list[dict]:
    return [d for p in paths for d in yaml.safe_load_all(p.read_text()) if d]


TYPES = """
    package {version}

    import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

    // +kubebuilder:object:root=true
    {storage}
    // CronJob runs jobs.
    type CronJob struct {{
        metav1.TypeMeta   `json:",inline"`
        metav1.ObjectMeta `json:"metadata,omitempty"`
        Spec CronJobSpec `json:"spec,omitempty"`
    }}

    // CronJobSpec says when.
    type CronJobSpec struct {{
        // +optional
        // +default="* * * * *"
        Schedule string `json:"schedule,omitempty"`
    }}

    // +kubebuilder:object:root=true

    // CronJobList is a list.
    type CronJobList struct {{
        metav1.TypeMeta `json:",inline"`
        metav1.ListMeta `json:"metadata,omitempty"`
        Items []CronJob `json:"items"`
    }}
"""

VALID = (
    "+kubebuilder:webhook:webhookVersions=v1,verbs=create;update,path=/validate-batch-tutorial-kubebuilder-io-v1-cronjob,"
    "mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,"
    "versions=v1,name=vcronjob.kb.io,sideEffects=None,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1"
)
MUTATING = (
    "+kubebuilder:webhook:path=/mutate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,"
    "sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,"
    "name=mcronjob.kb.io,admissionReviewVersions=v1,reinvocationPolicy=IfNeeded"
)


def _api(root: Path, *markers: str, versions=("v1",), extra: dict[str, str] | None = None) -> Path:
    files = {}
    for version in versions:
        storage = "// +kubebuilder:storageversion" if version == versions[0] else ""
        files[f"batch/{version}/doc.go"] = f"// +groupName=batch.tutorial.kubebuilder.io\npackage {version}\n"
        files[f"batch/{version}/types.go"] = TYPES.format(version=version, storage=storage)
    if markers:
        # where kubebuilder puts them: floating comments of a webhook file, beside its Go code
        body = "\n\n".join(f"//{m}" for m in markers)
        files[f"batch/{versions[0]}/cronjob_webhook.go"] = (
            f"package {versions[0]}\n\n// log is for logging.\nvar cronjoblog = 1\n\n{body}\n\nvar _ = cronjoblog\n"
        )
    return write_tree(root, {**files, **(extra or {})})


def _generated(root: Path, settings: dict | None = None, conversion: dict | None = None):
    """(the webhook generator's files by path, the CRD generator's, the diagnostics)."""
    universe, diagnostics = build(root, module="tutorial.kubebuilder.io/project/api")
    webhook.check(universe, diagnostics)
    if diagnostics.errors:
        return None, None, messages(diagnostics)
    options = GeneratorOptions(generators=("webhook", "crd"), webhook=settings or {}, crd_conversion=conversion or {})
    files = {f.path: f.content for f in webhook.generate(universe, options)}
    crds = {f.path: f.content for f in crd.generate(universe, options)}
    return files, crds, messages(diagnostics)


def _manifest(files) -> dict[str, dict]:
    return {d["kind"]: d for d in yaml.safe_load_all(files[webhook.MANIFESTS]) if d}


# -- the example API's manifests ------------------------------------------------------------------------


def test_the_example_manifests_are_one_webhook_of_each_kind_per_custom_resource():
    docs = {d["kind"]: d for d in _documents(MANIFESTS)}
    assert sorted(docs) == ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]
    mutating = docs["MutatingWebhookConfiguration"]
    assert mutating["metadata"] == {
        "name": "example-mutating-webhook-configuration",
        "annotations": {"cert-manager.io/inject-ca-from": "example-system/example-serving-cert"},
    }
    frobbers = mutating["webhooks"][0]
    assert frobbers == {
        "name": "mfrobber-v1.example.kgen.dev",
        "admissionReviewVersions": ["v1"],
        "clientConfig": {"service": {"name": "example-webhook-service", "namespace": "example-system",
                                     "path": "/mutate-example-kgen-dev-v1-frobber"}},
        "failurePolicy": "Fail",
        "matchPolicy": "Equivalent",
        "reinvocationPolicy": "IfNeeded",
        "rules": [{"apiGroups": ["example.kgen.dev"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
                   "resources": ["frobbers"]}],
        "sideEffects": "None",
        "timeoutSeconds": 10,
    }  # fmt: skip
    paths = [w["clientConfig"]["service"]["path"] for d in docs.values() for w in d["webhooks"]]
    sys.path.insert(0, str(REPO))
    import generated.webhook as generated_webhook

    assert set(paths) <= set(generated_webhook.webhooks().paths), "every manifest path is served"
    crd_doc = _documents(REPO / "generated/crds/example.kgen.dev_frobbers.yaml")[0]
    assert crd_doc["metadata"]["annotations"] == {
        "cert-manager.io/inject-ca-from": "example-system/example-serving-cert"
    }
    assert (
        crd_doc["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["path"] == generated_webhook.CONVERSION_PATH
    )


ADMISSION_FACTS = {
    "failurePolicy": {"Fail", "Ignore"},
    "matchPolicy": {"Exact", "Equivalent"},
    "sideEffects": {"None", "NoneOnDryRun"},  # what v1 accepts (noSideEffectClasses)
    "reinvocationPolicy": {"Never", "IfNeeded"},
}


def admission_problems(document: dict) -> list[str]:
    """What the API server's validation of a webhook configuration would refuse (in kgen's words)."""
    problems, names = [], set()
    for index, hook in enumerate(document["webhooks"]):
        where = f"webhooks[{index}]"
        name = hook.get("name", "")
        if len(name.split(".")) < 3:
            problems.append(f"{where}.name: should be a domain with at least three segments separated by dots")
        if name in names:
            problems.append(f"{where}.name: Duplicate value")
        names.add(name)
        for key, allowed in ADMISSION_FACTS.items():
            if key in hook and hook[key] not in allowed:
                problems.append(f"{where}.{key}: Unsupported value: {hook[key]!r}")
        if "sideEffects" not in hook:
            problems.append(f"{where}.sideEffects: Required value")
        if document["kind"] == "ValidatingWebhookConfiguration" and "reinvocationPolicy" in hook:
            problems.append(f"{where}.reinvocationPolicy: a validating webhook has none")
        if not 1 <= hook.get("timeoutSeconds", 10) <= 30:
            problems.append(f"{where}.timeoutSeconds: the timeout value must be between 1 and 30 seconds")
        versions = hook.get("admissionReviewVersions") or []
        if not set(versions) & {"v1", "v1beta1"} or len(set(versions)) != len(versions):
            problems.append(f"{where}.admissionReviewVersions: must include at least one of v1, v1beta1, once")
        client = hook.get("clientConfig", {})
        if ("url" in client) == ("service" in client):
            problems.append(f"{where}.clientConfig: exactly one of url or service is required")
        if "url" in client and not client["url"].startswith("https://"):
            problems.append(f"{where}.clientConfig.url: 'https' is the only allowed URL scheme")
        service = client.get("service", {})
        if service and (not service.get("name") or not service.get("namespace")):
            problems.append(f"{where}.clientConfig.service: name and namespace are required")
        if service.get("path", "/")[:1] != "/":
            problems.append(f"{where}.clientConfig.service.path: must start with a '/'")
        if "caBundle" in client:
            base64.b64decode(client["caBundle"], validate=True)
        for rule_index, rule in enumerate(hook.get("rules", [])):
            for key in ("apiGroups", "apiVersions", "resources", "operations"):
                if not rule.get(key):
                    problems.append(f"{where}.rules[{rule_index}].{key}: Required value")
            for operation in rule.get("operations", []):
                if operation not in ("CREATE", "UPDATE", "DELETE", "CONNECT", "*"):
                    problems.append(f"{where}.rules[{rule_index}].operations: Unsupported value: {operation!r}")
    return problems


def test_the_example_manifests_keep_the_rules_of_admissionregistration():
    for document in _documents(MANIFESTS):
        assert admission_problems(document) == [], document["kind"]


@pytest.fixture(scope="module")
def swagger():
    path = swagger_path()
    if path is None:
        pytest.skip("set KGEN_K8S_SWAGGER to a Kubernetes swagger document (kubernetes-client/python's "
                    "kubernetes/swagger.json.unprocessed) to check manifests against the published schemas")  # fmt: skip
    return json.loads(path.read_text())


def test_the_manifests_fit_the_published_schemas(swagger):
    kinds = definitions_by_kind(swagger)
    definitions = swagger["definitions"]
    documents = _documents(MANIFESTS, *CRDS)
    assert {d["kind"] for d in documents} == {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
                                              "CustomResourceDefinition"}  # fmt: skip
    for document in documents:
        group, _, version = document["apiVersion"].rpartition("/")
        schema = definitions[kinds[(group, version, document["kind"])]]
        assert schema_errors(document, schema, definitions) == [], document["kind"]
    # the check sees what the API server's strict decoding would refuse
    broken = json.loads(json.dumps(documents[0]))
    broken["webhooks"][0]["clientConfig"]["service"]["port"] = "443"
    broken["webhooks"][0]["selector"] = {}
    group, _, version = broken["apiVersion"].rpartition("/")
    assert schema_errors(broken, definitions[kinds[(group, version, broken["kind"])]], definitions) == [
        "webhooks[0].clientConfig.service.port: must be of type integer, not str",
        'webhooks[0]: unknown field "selector"',
    ]


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_the_manifests_load_in_kubectl_apply_client_dry_run(swagger, tmp_path):
    """`kubectl apply --dry-run=client --validate=strict` with no cluster: discovery and the
    OpenAPI v2 document come from tests/kube_schema.py, so kubectl maps the kinds and checks
    every field against the published schemas on the client."""
    groups = {"admissionregistration.k8s.io", "apiextensions.k8s.io"}
    with DiscoveryServer(swagger, groups) as server:

        def apply(*paths: Path) -> subprocess.CompletedProcess[str]:
            args = ["kubectl", "--server", server.url, "--cache-dir", str(tmp_path / "cache"), "apply",
                    "--dry-run=client", "--validate=strict"] + [a for p in paths for a in ("-f", str(p))]  # fmt: skip
            return subprocess.run(args, capture_output=True, text=True, timeout=120)

        done = apply(MANIFESTS, *CRDS)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [
            "mutatingwebhookconfiguration.admissionregistration.k8s.io/example-mutating-webhook-configuration created (dry run)",
            "validatingwebhookconfiguration.admissionregistration.k8s.io/example-validating-webhook-configuration created (dry run)",
            "customresourcedefinition.apiextensions.k8s.io/frobberclasses.example.kgen.dev created (dry run)",
            "customresourcedefinition.apiextensions.k8s.io/frobbers.example.kgen.dev created (dry run)",
        ]
        broken = tmp_path / "broken.yaml"
        document = _documents(MANIFESTS)[0]
        document["webhooks"][0]["sideEffect"] = "None"
        broken.write_text(yaml.safe_dump(document))
        refused = apply(broken)
        assert refused.returncode == 1
        assert 'unknown field "sideEffect" in io.k8s.api.admissionregistration.v1.MutatingWebhook' in refused.stderr


# -- +kubebuilder:webhook markers ----------------------------------------------------------------------


def test_markers_make_the_manifests_controller_gen_writes(tmp_path):
    files, _, said = _generated(_api(tmp_path, VALID, MUTATING))
    assert said == []
    docs = _manifest(files)
    assert docs["ValidatingWebhookConfiguration"] == {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "validating-webhook-configuration"},
        "webhooks": [{
            "admissionReviewVersions": ["v1", "v1beta1"],
            "clientConfig": {"service": {"name": "webhook-service", "namespace": "system",
                                         "path": "/validate-batch-tutorial-kubebuilder-io-v1-cronjob"}},
            "failurePolicy": "Fail",
            "matchPolicy": "Equivalent",
            "name": "vcronjob.kb.io",
            "rules": [{"apiGroups": ["batch.tutorial.kubebuilder.io"], "apiVersions": ["v1"],
                       "operations": ["CREATE", "UPDATE"], "resources": ["cronjobs"]}],
            "sideEffects": "None",
            "timeoutSeconds": 10,
        }],
    }  # fmt: skip
    mutating = docs["MutatingWebhookConfiguration"]["webhooks"][0]
    assert mutating["reinvocationPolicy"] == "IfNeeded" and "timeoutSeconds" not in mutating
    assert "matchPolicy" not in mutating  # the API server defaults it (Equivalent)
    module = files[webhook.MODULE]
    assert '"/mutate-batch-tutorial-kubebuilder-io-v1-cronjob",\n        True,' in module or (
        '_Route("/mutate-batch-tutorial-kubebuilder-io-v1-cronjob", True' in module
    )


def test_marker_patches_urls_services_and_configuration_names(tmp_path):
    selector = '`{"namespaceSelector":{"matchLabels":{"webhook-enabled":"true"}},"objectSelector":{"matchExpressions":[{"key":"tier","operator":"In","values":["frontend"]}]}}`'
    markers = (
        VALID.replace("path=/validate-batch-tutorial-kubebuilder-io-v1-cronjob",
                      'url="https://somewebhook:9443/validate-cronjob"') + ",patch=" + selector,
        MUTATING + ",serviceName=DEAD,serviceNamespace=BEEF,servicePort=1234",
        "+kubebuilder:webhookconfiguration:mutating=true,name=foo",
        "+kubebuilder:webhookconfiguration:mutating=false,name=bar",
    )  # fmt: skip
    files, _, said = _generated(_api(tmp_path, *markers), settings={"ca-bundle": "Q0E="})
    assert said == []
    docs = _manifest(files)
    validating = docs["ValidatingWebhookConfiguration"]
    assert validating["metadata"]["name"] == "bar"
    hook = validating["webhooks"][0]
    assert hook["clientConfig"] == {"url": "https://somewebhook:9443/validate-cronjob", "caBundle": "Q0E="}
    assert hook["namespaceSelector"] == {"matchLabels": {"webhook-enabled": "true"}}
    assert hook["objectSelector"]["matchExpressions"][0]["key"] == "tier"
    mutating = docs["MutatingWebhookConfiguration"]
    assert mutating["metadata"]["name"] == "foo"
    assert mutating["webhooks"][0]["clientConfig"] == {
        "service": {"name": "DEAD", "namespace": "BEEF", "path": "/mutate-batch-tutorial-kubebuilder-io-v1-cronjob",
                    "port": 1234},
        "caBundle": "Q0E=",
    }  # fmt: skip
    assert "/validate-cronjob" in files[webhook.MODULE]  # the URL's path is served


def test_core_group_markers_name_no_kind_of_the_api(tmp_path):
    pods = MUTATING.replace("groups=batch.tutorial.kubebuilder.io,resources=cronjobs", 'groups="",resources=pods')
    _, _, said = _generated(_api(tmp_path, pods))
    assert len(said) == 1 and 'no custom resource of this API is among resources pods of groups ""' in said[0]
    assert said[0].startswith(str(tmp_path / "batch/v1/cronjob_webhook.go"))


@pytest.mark.parametrize(
    "change, problem",
    [
        (("sideEffects=None", "sideEffects=Some"), "sideEffects must be None or NoneOnDryRun"),
        ((",sideEffects=None", ""), "sideEffects must be None or NoneOnDryRun"),
        (("timeoutSeconds=10", "timeoutSeconds=31"), "timeoutSeconds must be between 1 and 30 seconds"),
        (
            ("path=/validate", 'url="https://x/y",path=/validate'),
            "`url` or `path` markers are required and mutually exclusive",
        ),
        (("matchPolicy=Equivalent", "matchPolicy=Sometimes"), "unknown value 'Sometimes' for matchPolicy"),
        (("webhookVersions=v1", "webhookVersions=v1beta1"), "webhookVersions may only be v1"),
        ((",admissionReviewVersions=v1;v1beta1", ""), "+kubebuilder:webhook needs admissionReviewVersions"),
    ],
)
def test_a_webhook_marker_controller_gen_refuses_is_an_error_at_the_marker(tmp_path, change, problem):
    _, _, said = _generated(_api(tmp_path, VALID.replace(*change)))
    assert len(said) == 1 and problem in said[0], said
    assert ": error: " in said[0] and "cronjob_webhook.go:" in said[0]


def test_a_second_configuration_of_one_kind_is_an_error(tmp_path):
    markers = (VALID, "+kubebuilder:webhookconfiguration:mutating=false,name=a",
               "+kubebuilder:webhookconfiguration:mutating=false,name=b")  # fmt: skip
    _, _, said = _generated(_api(tmp_path, *markers))
    assert any("a second validating +kubebuilder:webhookconfiguration" in line for line in said), said


def test_webhook_markers_above_a_type_are_package_markers_without_a_warning(tmp_path):
    root = _api(tmp_path)
    types = root / "batch/v1/types.go"
    types.write_text(
        types.read_text().replace(
            "// +kubebuilder:object:root=true\n", f"//{VALID}\n\n// +kubebuilder:object:root=true\n", 1
        )
    )
    files, _, said = _generated(root)
    assert said == [] and "ValidatingWebhookConfiguration" in _manifest(files)


# -- [tool.kgen.webhook] and [tool.kgen.crd.conversion] -------------------------------------------------


def test_settings_make_a_webhook_of_each_kind_per_resource(tmp_path):
    root = _api(tmp_path, versions=("v1", "v1beta1"))
    settings = {"base-url": "https://webhooks.example.com:8443/", "failure-policy": "Ignore", "timeout-seconds": 5,
                "admission-review-versions": ["v1", "v1beta1"], "reinvocation-policy": "Never",
                "namespace-selector": {"matchLabels": {"team": "batch"}}, "ca-bundle": "Q0E=", "validating": False}  # fmt: skip
    files, _, said = _generated(root, settings)
    assert said == []
    docs = _manifest(files)
    assert list(docs) == ["MutatingWebhookConfiguration"]
    assert docs["MutatingWebhookConfiguration"]["webhooks"] == [{
        "name": "mcronjob-v1.batch.tutorial.kubebuilder.io",
        "admissionReviewVersions": ["v1", "v1beta1"],
        "clientConfig": {"url": "https://webhooks.example.com:8443/mutate-batch-tutorial-kubebuilder-io-v1-cronjob",
                         "caBundle": "Q0E="},
        "failurePolicy": "Ignore",
        "matchPolicy": "Equivalent",
        "namespaceSelector": {"matchLabels": {"team": "batch"}},
        "reinvocationPolicy": "Never",
        "rules": [{"apiGroups": ["batch.tutorial.kubebuilder.io"], "apiVersions": ["v1"],
                   "operations": ["CREATE", "UPDATE"], "resources": ["cronjobs"]}],
        "sideEffects": "None",
        "timeoutSeconds": 5,
    }]  # fmt: skip
    assert admission_problems(docs["MutatingWebhookConfiguration"]) == []


def test_a_delete_hook_adds_delete_to_the_validating_rules_and_is_served(tmp_path):
    hooks = {"batch/v1/validation.py": "def validate_CronJob_delete(obj):\n    return []\n\n\n"
                                       "def warnings_CronJob(obj):\n    return []\n"}  # fmt: skip
    root = _api(tmp_path, extra=hooks)
    files, _, said = _generated(root, {"service-name": "s", "service-namespace": "n"})
    assert said == []
    validating = _manifest(files)["ValidatingWebhookConfiguration"]["webhooks"][0]
    assert validating["rules"][0]["operations"] == ["CREATE", "UPDATE", "DELETE"]
    module = files[webhook.MODULE]
    hooks = f"_hooks_{root.name}_batch_v1"  # the hook modules are imported under the input directory's name
    assert f"from {root.name}.batch.v1 import validation as {hooks}" in module
    assert f"delete_validators={{_batch_v1.CronJob: {hooks}.validate_CronJob_delete}}" in module
    assert f"create_warnings={{_batch_v1.CronJob: {hooks}.warnings_CronJob}}" in module


def test_an_admission_hook_with_the_wrong_parameters_is_an_error(tmp_path):
    root = _api(tmp_path, extra={"batch/v1/validation.py": "def warnings_CronJob_update(new):\n    return []\n"})
    _, _, said = _generated(root)
    assert said == [
        f"{tmp_path / 'batch/v1/validation.py'}:1:1: error: warnings_CronJob_update takes 1 required parameter; "
        "kgen calls it as `warnings_CronJob_update(new, old)`, so write `def warnings_CronJob_update(new, old):`"
    ]


def test_the_conversion_webhook_by_url_with_a_ca_bundle_or_cert_manager(tmp_path):
    root = _api(tmp_path, versions=("v1", "v1beta1"))
    _, crds, _ = _generated(root, conversion={"url": "https://convert.example.com/convert", "ca-bundle": "Q0E=",
                                              "review-versions": ["v1", "v1beta1"]})  # fmt: skip
    document = yaml.safe_load(crds["crds/batch.tutorial.kubebuilder.io_cronjobs.yaml"])
    assert document["spec"]["conversion"] == {
        "strategy": "Webhook",
        "webhook": {"clientConfig": {"url": "https://convert.example.com/convert", "caBundle": "Q0E="},
                    "conversionReviewVersions": ["v1", "v1beta1"]},
    }  # fmt: skip
    assert "annotations" not in document["metadata"]
    _, crds, _ = _generated(
        root, conversion={"service-name": "w", "service-namespace": "n", "cert-manager": "n/serving"}
    )
    document = yaml.safe_load(crds["crds/batch.tutorial.kubebuilder.io_cronjobs.yaml"])
    assert document["metadata"]["annotations"] == {"cert-manager.io/inject-ca-from": "n/serving"}
    files, _, _ = _generated(root, conversion={"url": "https://convert.example.com/crds/convert"})
    assert 'CONVERSION_PATH = "/crds/convert"' in files[webhook.MODULE]


def _settings_project(root: Path, table: str) -> Path:
    config = (
        f'[tool.kgen]\ninput = "batch"\noutput = "generated"\nmodule = "tutorial.kubebuilder.io/project/batch"\n{table}'
    )
    return write_tree(root, {"pyproject.toml": config, "batch/v1/doc.go": "package v1\n"})


CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


def test_a_ca_bundle_file_is_read_into_the_settings(tmp_path):
    root = _settings_project(tmp_path, '[tool.kgen.webhook]\nservice-name = "s"\nservice-namespace = "n"\n'
                                       'ca-bundle-file = "certs/ca.crt"\n')  # fmt: skip
    write_tree(root, {"certs/ca.crt": CA})
    options = resolve_options(config_path=root / "pyproject.toml", registered=("webhook",))
    assert options.webhook == {
        "service-name": "s",
        "service-namespace": "n",
        "ca-bundle": base64.b64encode(CA.encode()).decode(),
    }


@pytest.mark.parametrize(
    "table, problem",
    [
        ('[tool.kgen.webhook]\nservice-name = "s"\n', "[tool.kgen.webhook] needs service-name and service-namespace (or base-url)"),
        ('[tool.kgen.webhook]\nbase-url = "http://x"\n', "'https' is the only allowed URL scheme"),
        ('[tool.kgen.webhook]\nbase-url = "https://x?a=b"\n', "may have no user, query or fragment"),
        ('[tool.kgen.webhook]\nbase-url = "https://x"\nservice-name = "s"\n', "not both"),
        ('[tool.kgen.webhook]\nbase-url = "https://x"\ntimeout-seconds = 0\n', "timeout-seconds must be a whole number of seconds from 1 to 30"),
        ('[tool.kgen.webhook]\nbase-url = "https://x"\nfailure-policy = "fail"\n', "failure-policy must be one of Fail, Ignore"),
        ('[tool.kgen.webhook]\nbase-url = "https://x"\ncert-manager = "serving"\n', 'names the Certificate as "<namespace>/<name>"'),
        ('[tool.kgen.webhook]\nbase-url = "https://x"\ncert-manager = "a/b"\nca-bundle-file = "ca.crt"\n', "not both"),
        ('[tool.kgen.webhook]\nbase-url = "https://x"\nca-bundle-file = "missing.crt"\n', "cannot read"),
        ('[tool.kgen.webhook]\nbase-url = "https://x"\nadmission-review-versions = ["v2"]\n', "admission-review-versions must list"),
        ('[tool.kgen.webhook]\nbase-url = "https://x"\nservice = "s"\n', "unknown settings service"),
        ('[tool.kgen.crd.conversion]\nurl = "https://x/convert"\npath = "/convert"\n', "a url already has its path"),
        ('[tool.kgen.crd.conversion]\nservice-name = "w"\nservice-namespace = "n"\npath = "convert"\n', "path must start with '/'"),
    ],
)  # fmt: skip
def test_webhook_settings_that_cannot_work_are_refused(tmp_path, table, problem):
    root = _settings_project(tmp_path, table)
    with pytest.raises(OptionsError) as raised:
        resolve_options(config_path=root / "pyproject.toml", registered=("webhook",))
    assert problem in str(raised.value) and str(root / "pyproject.toml") in str(raised.value)


def test_an_api_without_custom_resources_gets_no_webhook(tmp_path):
    root = write_tree(tmp_path, {"core/v1/doc.go": "// +groupName=\npackage v1\n",
                                 "core/v1/types.go": "package v1\n\n// Thing is a thing.\ntype Thing struct {\n\tName string `json:\"name\"`\n}\n"})  # fmt: skip
    universe, diagnostics = build(root)
    assert webhook.generate(universe, GeneratorOptions(generators=("webhook",))) == []


def test_the_generated_module_is_what_the_run_writes():
    """generated/webhook.py and generated/webhooks/ are kgen's (the drift test keeps them current)."""
    text = (REPO / "generated" / "webhook.py").read_text()
    assert text.startswith("# Code generated by kgen-webhook. DO NOT EDIT.\n")
    assert MANIFESTS.read_text().startswith("# Code generated by kgen-webhook. DO NOT EDIT.\n")


def test_the_manifests_go_where_the_project_keeps_them(cli, tmp_path):
    """kubebuilder's config/webhook, as controller-gen's output:webhook:artifacts:config."""
    root = _api(tmp_path)
    config = (
        '[tool.kgen]\ninput = "batch"\noutput = "generated"\nmodule = "tutorial.kubebuilder.io/project/batch"\n'
        '[tool.kgen.webhook]\nservice-name = "s"\nservice-namespace = "n"\noutput = "config/webhook"\n'
    )
    (root / "pyproject.toml").write_text(config)
    result = cli(["generate"], root)
    assert result.exit_code == 0, result.output
    assert (root / "config/webhook/manifests.yaml").is_file() and (root / "generated/webhook.py").is_file()
    assert not (root / "generated/webhooks").exists()
    assert cli(["generate", "--check"], root).exit_code == 0
