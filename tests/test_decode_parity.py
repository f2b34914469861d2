"""`from_dict` (data from YAML or any parsed JSON) decodes exactly as `from_json` does: the
API server's strict rules, the same error type and the same field paths."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from generated.example.v1 import models, strategies


def _outcome(decode, data):
    try:
        return "ok", decode(data).to_json()
    except ValidationError as err:
        return "error", sorted(tuple(e["loc"]) for e in err.errors(include_url=False))


def _mutations():
    """Values of the wrong JSON type where Go's decoder refuses them."""
    return st.sampled_from(["8443", 8443.5, True, None, [], {}, "true", "1e3", 1e3, -1, "x"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frobber=strategies.frobber_strategy(), path_choice=st.integers(min_value=0), replacement=_mutations())
def test_from_dict_and_from_json_agree(frobber, path_choice, replacement):
    document = json.loads(frobber.to_json())
    # replace one scalar somewhere in the document
    spots = []

    def walk(value, parent, key):
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, value, k)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, value, i)
        elif parent is not None:
            spots.append((parent, key))

    walk(document, None, None)
    if spots:
        parent, key = spots[path_choice % len(spots)]
        parent[key] = replacement
    by_dict = _outcome(models.Frobber.from_dict, document)
    by_json = _outcome(models.Frobber.from_json, json.dumps(document))
    assert by_dict == by_json


@pytest.mark.parametrize(
    ("document", "loc"),
    [
        ({"spec": {"ports": [{"name": "https", "port": "8443"}]}}, ("spec", "ports", 0, "port")),
        ({"metadata": {"generation": "5"}}, ("metadata", "generation")),
        ({"spec": {"turbo": "true"}}, ("spec", "turbo")),
        ({"spec": {"priority": 1.5}}, ("spec", "priority")),
    ],
)
def test_a_string_for_a_number_is_refused_as_the_api_server_refuses_it(document, loc):
    for decode, data in ((models.Frobber.from_dict, document), (models.Frobber.from_json, json.dumps(document))):
        with pytest.raises(ValidationError) as caught:
            decode(data)
        assert [tuple(e["loc"]) for e in caught.value.errors()] == [loc]
