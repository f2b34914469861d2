"""The compat conformance command (`python -m bench.conformance.compat`): two releases of a
repository compared from their Go types and from their CRDs, and where the two disagree."""

from __future__ import annotations

import json
import sys

import pytest

from bench.conformance import compat as command
from conftest import write_tree
from test_compat import SIZE, api, crd_files


def test_places_of_a_finding_are_read_from_its_message():
    finding = {
        "rule": "field-removed",
        "message": "Pod v1 spec.a: removed (also PodTemplate v1 template.spec.a and Job batch/v1 spec.template.spec.a); "
        "for example ...",
    }
    assert command._keys(finding) == {
        ("field-removed", "Pod", "spec.a"), ("field-removed", "PodTemplate", "template.spec.a"),
        ("field-removed", "Job", "spec.template.spec.a"),
    }  # fmt: skip
    assert command._keys({"rule": "kind-removed", "message": "Gadget (shop.example.com): no longer served"}) == {
        ("kind-removed", "Gadget", "")
    }


@pytest.mark.slow
def test_two_releases_from_go_types_and_from_crds(tmp_path, capsys):
    """kgen compat runs as a user runs it (a process per comparison); both inputs agree."""
    for name, files in (("v1", api(spec=SIZE)), ("v2", api())):
        root = write_tree(tmp_path / name, {f"apis/{k}": v for k, v in files.items()})
        crds = crd_files(tmp_path / f"{name}-crds", files, "r")
        (root / "config").mkdir()
        crds.rename(root / "config" / "crd")
    report = tmp_path / "report.json"
    command.main([
        "--go", f"shop:{tmp_path / 'v1'}:{tmp_path / 'v2'}:apis",
        "--crds", f"shop:{tmp_path / 'v1'}:{tmp_path / 'v2'}:config/crd",
        "--kgen", f"{sys.executable} -m kgen.cli", "--json", str(report),
    ])  # fmt: skip
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("shop (Go types): kgen compat exit 1 in ")
    assert out[0].endswith("; 1 errors, 0 warnings, 0 infos")
    assert out[-1] == "shop: Go types and CRDs agree on 1 (rule, kind, path); only from Go types 0, only from CRDs 0"
    runs = json.loads(report.read_text())
    assert [[f["rule"] for f in r["document"]["findings"]] for r in runs] == [["field-removed"], ["field-removed"]]
