"""The example API's webhooks on one machine, as on a cluster: `kgen webhook` serving the
generated webhook app over TLS, `kgen serve` calling it for the Frobber CRD's conversions
and for the generated webhook configurations, and kubectl in front.

What a cluster does, checked end to end: a CRD whose conversion webhook's certificate is not
trusted fails conversions (the CA is injected as cert-manager would, then they work); an
object created through v1beta1 is stored in v1 and read back through both versions; the
mutating webhook's defaults appear; an update the hand-written validation refuses is refused
with its message, a warning reaches kubectl; and a webhook that is down fails requests under
failurePolicy Fail and is skipped under Ignore.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from tests.serve_fixtures import REPO, ServeProcess, requires_kubectl

pytestmark = [pytest.mark.slow, requires_kubectl]

SERVICE = "example-webhook-service.example-system.svc"


class WebhookProcess:
    """`kgen webhook` for the example API, on a free loopback port, with a certificate for its Service."""

    def __init__(self) -> None:
        from kgen.serve.security import self_signed_certificate

        self.directory = Path(tempfile.mkdtemp(prefix="kgen-webhook-test-"))
        certificate = self_signed_certificate(SERVICE)
        (self.directory / "tls.crt").write_bytes(certificate.cert_pem)
        (self.directory / "tls.key").write_bytes(certificate.key_pem)
        self.ca = base64.b64encode(certificate.cert_pem).decode()
        self.log = self.directory / "webhook.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "kgen.webhook", "--module", "generated.webhook", "--app-dir", str(REPO),
                 "--address", "127.0.0.1", "--port", "0", "--cert-dir", str(self.directory), "-v"],
                cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = re.search(r"serving on https://127\.0\.0\.1:(\d+)", self.log.read_text())
            if found:
                self.port = int(found.group(1))
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"kgen webhook did not start:\n{self.log.read_text()}")

    def calls(self) -> list[str]:
        """The paths the webhook was called at, in order."""
        return re.findall(r'"POST (/[^ ]*) HTTP', self.log.read_text())

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AssertionError(f"kgen webhook did not stop on SIGTERM:\n{self.log.read_text()}") from None


def _manifests(ca: str) -> str:
    """The generated webhook configurations with the CA injected (cert-manager's job on a cluster)."""
    documents = [d for d in yaml.safe_load_all((REPO / "generated/webhooks/manifests.yaml").read_text()) if d]
    for document in documents:
        for webhook in document["webhooks"]:
            webhook["clientConfig"]["caBundle"] = ca
    return yaml.safe_dump_all(documents)


OLD_CLIENT = """
apiVersion: example.kgen.dev/v1beta1
kind: Frobber
metadata:
  name: old-client
spec:
  param: "--fast"
"""

NEW_CLIENT = """
apiVersion: example.kgen.dev/v1
kind: Frobber
metadata:
  name: new-client
spec:
  params: ["--slow"]
"""


def test_the_example_api_served_through_its_webhooks():
    webhook = WebhookProcess()
    try:
        with ServeProcess("--webhook", f"example-system/example-webhook-service=127.0.0.1:{webhook.port}") as server:
            # The CRD names its conversion webhook, whose certificate nothing trusts yet.
            untrusted = server.kubectl("create", "-f", "-", input=OLD_CLIENT, check=False)
            assert untrusted.returncode != 0
            assert "conversion webhook for example.kgen.dev/v1beta1, Kind=Frobber failed" in untrusted.stderr
            assert "x509: certificate signed by unknown authority" in untrusted.stderr
            patch = [{"op": "add", "path": "/spec/conversion/webhook/clientConfig/caBundle", "value": webhook.ca}]
            server.kubectl("patch", "crd", "frobbers.example.kgen.dev", "--type=json", "-p", json.dumps(patch))
            server.kubectl("apply", "-f", "-", input=_manifests(webhook.ca))

            # Through v1beta1, stored in v1 (conversion webhook), defaulted (mutating webhook).
            server.kubectl("create", "-f", "-", input=OLD_CLIENT)
            v1 = json.loads(server.kubectl("get", "frobbers.v1.example.kgen.dev", "old-client", "-o", "json").stdout)
            assert v1["apiVersion"] == "example.kgen.dev/v1"
            assert v1["spec"]["params"] == ["--fast"] and (v1["spec"]["replicas"], v1["spec"]["mode"]) == (1, "Gentle")
            beta = json.loads(server.kubectl("get", "frobbers.v1beta1.example.kgen.dev", "old-client", "-o", "json").stdout)
            assert beta["apiVersion"] == "example.kgen.dev/v1beta1" and beta["spec"]["param"] == "--fast"
            calls = webhook.calls()
            assert "/convert" in calls and "/mutate-example-kgen-dev-v1-frobber" in calls
            assert "/validate-example-kgen-dev-v1-frobber" in calls

            # The hand-written validation, which no CRD schema says, refuses through the webhook.
            refused = server.kubectl("patch", "frobbers.v1.example.kgen.dev", "old-client", "--type=merge",
                                     "-p", '{"spec":{"mode":"Vigorous","replicas":11}}', check=False)  # fmt: skip
            assert refused.returncode != 0
            assert "must be less than or equal to 10 when `mode` is 'Vigorous'" in refused.stderr
            warned = server.kubectl("patch", "frobbers.v1.example.kgen.dev", "old-client", "--type=merge",
                                    "-p", '{"spec":{"interval":"10s"}}')  # fmt: skip
            assert "Warning: spec.interval: frobbing every 10s wears the widgets out" in warned.stderr

            # The webhook goes down: Fail refuses, Ignore lets the request through without it.
            webhook.stop()
            down = server.kubectl("create", "-f", "-", input=NEW_CLIENT, check=False)
            assert down.returncode != 0
            assert 'failed calling webhook "mfrobber-v1.example.kgen.dev"' in down.stderr
            assert "connect: connection refused" in down.stderr
            ignore = [{"op": "replace", "path": "/webhooks/0/failurePolicy", "value": "Ignore"}]
            for kind in ("mutatingwebhookconfiguration", "validatingwebhookconfiguration"):
                name = f"example-{kind.removesuffix('webhookconfiguration')}-webhook-configuration"
                server.kubectl("patch", kind, name, "--type=json", "-p", json.dumps(ignore))
            server.kubectl("create", "-f", "-", input=NEW_CLIENT)
            # Reading it through v1beta1 needs the conversion webhook, which is still down.
            unconverted = server.kubectl("get", "frobbers.v1beta1.example.kgen.dev", "new-client", check=False)
            assert unconverted.returncode != 0 and "conversion webhook for example.kgen.dev/v1, Kind=Frobber failed" in unconverted.stderr
    finally:
        webhook.stop()


def test_the_generated_manifests_pass_the_servers_checks():
    """`kubectl apply --dry-run=server --validate=strict` of the generated CRDs and webhook
    configurations: kgen serve reads them as the API server's typed decoder does (an unknown
    field is a strict decoding error) and validates them as it does (a webhook with side
    effects is refused)."""
    manifests = [REPO / "generated/webhooks/manifests.yaml", *sorted((REPO / "generated/crds").glob("*.yaml"))]
    with ServeProcess() as server:
        checked = server.kubectl("apply", "--dry-run=server", "--validate=strict", *(f"-f={m}" for m in manifests))
        assert checked.stdout.count("(server dry run)") == 4, checked.stdout
        documents = [d for d in yaml.safe_load_all((REPO / "generated/webhooks/manifests.yaml").read_text()) if d]
        unknown = json.loads(json.dumps(documents[0]))
        unknown["webhooks"][0]["sideEffect"] = "None"
        refused = server.kubectl("apply", "--dry-run=server", "--validate=strict", "-f", "-", input=yaml.safe_dump(unknown), check=False)
        assert refused.returncode != 0 and 'unknown field "webhooks[0].sideEffect"' in refused.stderr
        effects = json.loads(json.dumps(documents[1]))
        effects["webhooks"][0]["sideEffects"] = "Some"
        invalid = server.kubectl("apply", "--dry-run=server", "-f", "-", input=yaml.safe_dump(effects), check=False)
        assert invalid.returncode != 0
        assert 'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"' in invalid.stderr
