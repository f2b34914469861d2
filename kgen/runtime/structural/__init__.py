"""Custom resources checked against their CRD's structural schema, as the API server does.

A CRD version's `openAPIV3Schema` becomes a `Structural` tree (`Structural.from_openapi`).
The API server applies it to each custom resource in this order, and so should callers:

1. on decoding a request: `prune` (drop unknown fields, report their paths), then
   `prune_nulls` (drop nulls of fields that are neither nullable nor defaulted);
2. `default` (set absent fields, and non-nullable nulls, to their defaults);
3. on create `validate`, on update `validate_update` (which ratchets: parts unchanged from
   the old object keep passing). Both return `FieldError`s with the API server's types,
   paths and messages. Then `embedded_resource_errors` (apiVersion, kind and metadata of
   `x-kubernetes-embedded-resource` objects) and, with `validate_update(lists=False)`,
   `update_list_type_errors`.

`x-kubernetes-validations` (CEL) rules are kept in the tree but evaluated elsewhere.
"""

from kgen.runtime.structural.defaulting import default, needs_defaults, prune_nulls
from kgen.runtime.structural.embedded import embedded_resource_errors
from kgen.runtime.structural.prune import prune
from kgen.runtime.structural.schema import NO_DEFAULT, SUPPORTED_STRING_FORMATS, Structural
from kgen.runtime.structural.validate import (
    FORMAT_CHECKS,
    list_type_errors,
    update_list_type_errors,
    validate,
    validate_update,
)

__all__ = [
    "FORMAT_CHECKS",
    "NO_DEFAULT",
    "SUPPORTED_STRING_FORMATS",
    "Structural",
    "default",
    "embedded_resource_errors",
    "list_type_errors",
    "needs_defaults",
    "prune",
    "prune_nulls",
    "update_list_type_errors",
    "validate",
    "validate_update",
]
