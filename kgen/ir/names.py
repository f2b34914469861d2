"""Name systems: how Go and JSON names become Python names.

Computed once while the IR is built, so every generator sees the same names.
"""

from __future__ import annotations

import re

# Python's reserved words in every version kgen supports (3.11 and later), written out
# rather than read from the running interpreter: generated names must not depend on which
# Python runs kgen. Soft keywords (`match`, `case`, `type`, `_`) are valid names in every
# place kgen writes a name, so they stay as they are everywhere.
PYTHON_KEYWORDS = frozenset({
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
    "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
})  # fmt: skip

# Python's builtins in every version kgen supports: a generated module-level name (a class)
# never shadows one, since generated code calls them and names them in annotations
# (`list[Widget]` below a class `list` fails to import).
PYTHON_BUILTINS = frozenset({
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
    "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
    "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
    "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception",
    "ExceptionGroup", "FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning",
    "GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError", "IndexError",
    "InterruptedError", "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError",
    "MemoryError", "ModuleNotFoundError", "NameError", "NotADirectoryError", "NotImplemented",
    "NotImplementedError", "OSError", "OverflowError", "PendingDeprecationWarning", "PermissionError",
    "ProcessLookupError", "PythonFinalizationError", "RecursionError", "ReferenceError",
    "ResourceWarning", "RuntimeError", "RuntimeWarning", "StopAsyncIteration", "StopIteration",
    "SyntaxError", "SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError",
    "TypeError", "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError",
    "UnicodeTranslateError", "UnicodeWarning", "UserWarning", "ValueError", "Warning",
    "ZeroDivisionError", "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint",
    "bytearray", "bytes", "callable", "chr", "classmethod", "compile", "complex", "copyright",
    "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "exit", "filter",
    "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id",
    "input", "int", "isinstance", "issubclass", "iter", "len", "license", "list", "locals", "map",
    "max", "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property",
    "quit", "range", "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod",
    "str", "sum", "super", "tuple", "type", "vars", "zip",
})  # fmt: skip

# The public API of pydantic's BaseModel, which a generated model's fields may not shadow;
# fixed here so that a pydantic release cannot rename generated attributes
# (tests/test_names.py fails when pydantic adds a name this list lacks).
PYDANTIC_MODEL_API = frozenset({
    "construct", "copy", "dict", "from_orm", "json", "model_computed_fields", "model_config",
    "model_construct", "model_copy", "model_dump", "model_dump_json", "model_extra", "model_fields",
    "model_fields_set", "model_json_schema", "model_parametrized_name", "model_post_init",
    "model_rebuild", "model_validate", "model_validate_json", "model_validate_strings", "parse_file",
    "parse_obj", "parse_raw", "schema", "schema_json", "update_forward_refs", "validate",
})  # fmt: skip

# Attribute names a generated model may not use: pydantic's own API, kgen's methods, and
# the builtins its annotations name (a class attribute `bool` would shadow the `bool` of
# the fields after it: resource.k8s.io's DeviceAttribute has a field `bool`).
_RESERVED_ATTRIBUTES = (
    PYDANTIC_MODEL_API
    | {"deep_copy", "to_dict", "to_json", "from_dict", "from_json", "self", "cls"}
    | {"str", "bool", "float", "list", "dict"}
)

# A word: an acronym with a plural s (IPs, CIDRs), an acronym, a capitalized word, digits.
_WORD = re.compile(
    r"[A-Z]+[0-9]+(?=[A-Z_]|$)|[A-Z]{2,}s(?=[A-Z0-9_]|$)|[A-Z]+(?=[A-Z][a-z]|[0-9_]|$)|[A-Z]?[a-z]+[0-9]*|[A-Z]+|[0-9]+"
)


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
        # not `_123`: pydantic refuses fields with a leading underscore
        name = "field_" + name
    if name in PYTHON_KEYWORDS or name in _RESERVED_ATTRIBUTES:
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
    keywords, builtins and the names of the package's own modules (an unexported Go type
    `models` or `list`)."""
    escaped = go_name in PYTHON_KEYWORDS or go_name in PYTHON_BUILTINS or go_name in _MODULE_NAMES
    return go_name + "_" if escaped else go_name


def python_method(name: str, taken: frozenset[str] = frozenset()) -> str:
    """A method or accessor name (a client's `frobbers()`, a `+genclient:method`): a valid
    identifier that is no keyword and none of the names its class already has (`taken`)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", name) or "method"
    if name[0].isdigit():
        name = "m_" + name
    while name in PYTHON_KEYWORDS or name in taken:
        name += "_"
    return name


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
    if not name or name[0].isdigit() or name in PYTHON_KEYWORDS:
        name = "_" + name
    return name
