"""The API server's patch semantics on JSON objects, for `kgen serve` and the fake client.

- `apply_json_patch` (RFC 6902), `apply_merge_patch` (RFC 7386) and
  `apply_strategic_merge_patch` turn a patch request into the new object;
- `FieldManager` does server-side apply and keeps `metadata.managedFields` for every
  create, update and patch;
- `Schema` / `TypeRef` read list types, map types, merge keys and patch strategies from
  the OpenAPI v3 documents and CRDs kgen generates.

Failures are `kgen.runtime.scheme.APIError`s (`PatchError`) carrying the API server's Status.
"""

from kgen.runtime.patch.apply import FieldManager, manager_or_user_agent
from kgen.runtime.patch.errors import CUSTOM_RESOURCE_PATCH_TYPES, PATCH_TYPES, PatchError, unsupported_media_type
from kgen.runtime.patch.fieldpath import FieldSet
from kgen.runtime.patch.jsonpatch import apply_json_patch, apply_merge_patch
from kgen.runtime.patch.schema import Schema, SchemaError, TypeRef
from kgen.runtime.patch.strategic import apply_strategic_merge_patch

__all__ = [
    "CUSTOM_RESOURCE_PATCH_TYPES",
    "FieldManager",
    "FieldSet",
    "PATCH_TYPES",
    "PatchError",
    "Schema",
    "SchemaError",
    "TypeRef",
    "apply_json_patch",
    "apply_merge_patch",
    "apply_strategic_merge_patch",
    "manager_or_user_agent",
    "unsupported_media_type",
]
