"""The generators' names and the facts about them that need no generator loaded.

`kgen serve` with a warm cache, `kgen init` and option parsing read only these; importing
`kgen.generators` (every generator, its templates and libraries) is left to a run that
generates. The module is not in that package (importing one of its modules would run its
`__init__`, which loads every generator); `kgen.generators` checks that the two agree.
"""

from __future__ import annotations

NAMES = (
    "models", "deepcopy", "defaulters", "conversion", "scheme", "strategies", "validation", "openapi", "crd",
    "protobuf", "client", "webhook",
)  # fmt: skip
"""Every generator, in the order a run calls them."""

OPT_IN = ("strategies",)
"""Generators that run only when asked for (`generators` in [tool.kgen], or --only): the
hypothesis strategies import hypothesis, a test dependency (the `test` extra)."""

DEFAULTS = tuple(name for name in NAMES if name not in OPT_IN)
"""What runs when the settings name no generators."""

HOMES = {"openapi": "openapi/", "crd": "crds/", "webhook": "webhooks/"}
"""The directories of the output root that hold one generator's files and nothing else: a
file of that generator there that a run does not produce is an orphan, wherever it is (a
renamed group's OpenAPI document, the CRD of a removed kind)."""

SCHEMA_GENERATORS = ("openapi", "crd", "protobuf")
"""Generators of schemas and IDL (not Python modules)."""

PYTHON_GENERATORS = tuple(name for name in NAMES if name not in SCHEMA_GENERATORS)
"""The generators of Python modules."""

RUNTIME_GENERATORS = (*PYTHON_GENERATORS, "protobuf")
"""What kgen's own runtime is generated with: the Python modules, and the well-known types'
`.proto` files kgen ships (with their compiled modules and converters)."""
