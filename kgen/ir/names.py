"""Name systems: how Go and JSON names become Python names.

Computed once while the IR is built, so every generator sees the same names.
"""

from __future__ import annotations

import keyword
import re

from pydantic import BaseModel

# Attribute names a generated model may not use: pydantic's own API, kgen's methods, and
# the builtins its annotations name (a class attribute `bool` would shadow the `bool` of
# the fields after it: resource.k8s.io's DeviceAttribute has a field `bool`).
_RESERVED_ATTRIBUTES = frozenset(
    {name for name in dir(BaseModel) if not name.startswith("__")}
    | {"deep_copy", "to_dict", "to_json", "from_dict", "from_json", "model_fields", "self", "cls"}
    | {"str", "bool", "float", "list", "dict"}
)

# A word: an acronym with a plural s (IPs, CIDRs), an acronym, a capitalized word, digits.
_WORD = re.compile(r"[A-Z]+[0-9]+(?=[A-Z_]|$)|[A-Z]{2,}s(?=[A-Z0-9_]|$)|[A-Z]+(?=[A-Z][a-z]|[0-9_]|$)|[A-Z]?[a-z]+[0-9]*|[A-Z]+|[0-9]+")


def snake_case(name: str) -> str:
    """`apiVersion` -> `api_version`, `podIPs` -> `pod_ips`, `targetCPUUtilization` -> `target_cpu_utilization`."""
    words: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", name):
        words.extend(w.lower() for w in _WORD.findall(chunk))
    return "_".join(words)


def python_attribute(json_name: str, taken: set[str]) -> str:
    """A valid, unreserved, unique Python attribute name for a JSON field name."""
    name = snake_case(json_name) or "field"
    if name[0].isdigit():
        name = "_" + name
    if keyword.iskeyword(name) or keyword.issoftkeyword(name) or name in _RESERVED_ATTRIBUTES:
        name += "_"
    while name in taken:
        name += "_"
    taken.add(name)
    return name


# The modules of a generated package: a class of the same name, imported into the
# package's `__init__`, would hide the module from `from . import models`.
_MODULE_NAMES = frozenset({
    "models", "deepcopy", "defaulters", "conversion", "register", "validation", "strategies", "protobuf",
    "generated_pb2",
})  # fmt: skip


def python_class(go_name: str) -> str:
    """Generated classes keep their Go names, which are valid Python identifiers, but for
    keywords and the names of the package's own modules (an unexported Go type `models`)."""
    return go_name + "_" if keyword.iskeyword(go_name) or go_name in _MODULE_NAMES else go_name


def enum_constants(go_names: list[str], type_name: str) -> list[str]:
    """Python constant names for a type's constants, without the prefix they share.

    `FrobberPhaseRunning` of `FrobberPhase` -> `RUNNING`; `ConditionTrue`, `ConditionFalse`
    -> `TRUE`, `FALSE`; a lone constant without the type prefix keeps all its words.
    """
    words = [_words(n) for n in go_names]
    type_words = _words(type_name)
    if all(w[: len(type_words)] == type_words and len(w) > len(type_words) for w in words):
        cut = len(type_words)
    elif len(words) > 1:
        cut = 0
        while all(len(w) > cut + 1 and w[cut] == words[0][cut] for w in words):
            cut += 1
    else:
        cut = 0
    names: list[str] = []
    for w in words:
        name = "_".join(w[cut:]).upper() or "_".join(w).upper() or "VALUE"
        if name[0].isdigit():
            name = "_" + name
        while name in names:
            name += "_"
        names.append(name)
    return names


def _words(name: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(name)]


def python_identifier(segment: str) -> str:
    """A directory or import-path segment as a Python package name."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", segment)
    if not name or name[0].isdigit() or keyword.iskeyword(name):
        name = "_" + name
    return name
