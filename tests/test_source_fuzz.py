"""A bounded run of the source fuzzer (tests/sourcefuzz.py): a few hundred mutants of a
small API; `make fuzz` runs thousands. Each mutant must end in exit 0 or 2, with located
errors, an output directory unchanged or complete, and importable output."""

from __future__ import annotations

import collections

import pytest

from tests.sourcefuzz import fuzz

# 250 mutated API sources through kgen generate, each output imported.
pytestmark = pytest.mark.slow

RUNS = 250


def test_mutated_sources_keep_every_promise():
    outcomes = fuzz(RUNS, seed=20261125)
    broken = [f"{o.mutation}\n    " + "\n    ".join(o.problems) for o in outcomes if o.problems]
    assert not broken, f"{len(broken)} of {RUNS} mutants broke a promise:\n" + "\n".join(broken[:5])
    codes = collections.Counter(o.exit_code for o in outcomes)
    # The mutants exercise both paths: inputs kgen refuses and inputs it generates from.
    assert codes[0] >= RUNS // 10 and codes[2] >= RUNS // 10, codes
