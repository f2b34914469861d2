"""ConfigMaps, Secrets and ServiceAccounts (core v1), with kube-apiserver's semantics.

- ConfigMap (pkg/registry/core/configmap/strategy.go, ValidateConfigMap[Update]): keys
  are config keys, data and binaryData may not share a key, both hold at most 1 MiB
  together (reported at the whole object, `[]`), and `immutable: true` freezes them.
- Secret (pkg/registry/core/secret/strategy.go, ValidateSecret[Update]): `type` defaults
  to Opaque (core/v1 SetDefaults_Secret) and never changes; `stringData` is written into
  `data` on the way in and never stored or returned (core/v1 Convert_v1_Secret_To_core_Secret);
  the keys each type needs; `data` values are base64 (Go's decoder refuses others: 400).
- ServiceAccount (pkg/registry/core/serviceaccount/strategy.go): references to secrets
  keep only their names (cleanSecretReferences), and a delete answers the deleted account.

None of them keeps a metadata.generation; all take updates without a resourceVersion;
none is created by a PUT.
"""

from __future__ import annotations

import json
from typing import Any

from kgen.runtime import gotypes
from kgen.runtime.validation.content import is_config_map_key
from kgen.runtime.validation.field import FieldError, Path, forbidden, invalid, required, too_long
from kgen.serve.builtins import tables, types
from kgen.serve.builtins.flow import BuiltinKind
from kgen.serve.builtins.validation import MAX_SECRET_SIZE, data_size, immutable, object_meta, object_meta_update

IMMUTABLE_WHEN_SET = "field is immutable when `immutable` is set"

# -- ConfigMap -----------------------------------------------------------------------------------


def validate_config_map(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateConfigMap."""
    errors = object_meta(obj)
    data: dict[str, str] = obj.get("data") or {}
    binary: dict[str, str | None] = obj.get("binaryData") or {}
    total = 0
    for key, value in data.items():
        path = Path.root("data").key(key)
        errors += [invalid(path, key, message) for message in is_config_map_key(key)]
        if key in binary:
            errors.append(invalid(path, key, "duplicate of key present in binaryData"))
        total += len(value.encode())
    for key, encoded in binary.items():
        errors += [invalid(Path.root("binaryData").key(key), key, message) for message in is_config_map_key(key)]
        total += data_size(encoded)
    if total > MAX_SECRET_SIZE:
        # The whole object: field.NewPath(""), which prints as "[]".
        errors.append(too_long(Path(None, "", ""), "", MAX_SECRET_SIZE))
    return errors


def validate_config_map_change(obj: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    """ValidateConfigMap on create, ValidateConfigMapUpdate on update."""
    if old is None:
        return validate_config_map(obj)
    errors = object_meta_update(obj, old)
    if old.get("immutable") is True:
        if obj.get("immutable") is not True:
            errors.append(forbidden(Path.root("immutable"), IMMUTABLE_WHEN_SET))
        for name in ("data", "binaryData"):
            if (obj.get(name) or {}) != (old.get(name) or {}):
                errors.append(forbidden(Path.root(name), IMMUTABLE_WHEN_SET))
    return errors + validate_config_map(obj)


def _data_count(obj: dict[str, Any], now: Any) -> int:
    return len(obj.get("data") or {}) + len(obj.get("binaryData") or {})


CONFIG_MAPS = BuiltinKind(
    group="", version="v1", kind="ConfigMap", plural="configmaps", singular="configmap",
    type=types.CONFIG_MAP, list_type=types.list_of(types.CONFIG_MAP, "v1.ConfigMapList",
                                                   "io.k8s.api.core.v1.ConfigMapList", "A list of ConfigMaps."),
    validate=validate_config_map_change, short_names=("cm",),
    columns=(tables.NAME, tables.column("Data", _data_count, "How many keys the ConfigMap has."), tables.AGE),
)  # fmt: skip

# -- Secret --------------------------------------------------------------------------------------

SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token"
SERVICE_ACCOUNT_NAME_KEY = "kubernetes.io/service-account.name"
_REDACTED = "<secret contents redacted>"


def secret_internal(obj: dict[str, Any]) -> dict[str, Any]:
    """SetDefaults_Secret (no type is Opaque), then Convert_v1_Secret_To_core_Secret: the
    values of stringData replace data's, and stringData, which the internal Secret does not
    have, is gone."""
    if not obj.get("type"):
        obj["type"] = "Opaque"
    text = obj.pop("stringData", None) or {}
    if text:
        data = obj.get("data") or {}
        data.update({key: gotypes.encode_base64(value.encode()) for key, value in text.items()})
        obj["data"] = {key: data[key] for key in sorted(data)}
    return gotypes.normalize(types.SECRET, obj)


def _go_json_object_error(content: bytes) -> str | None:
    """What json.Unmarshal into map[string]interface{} reports for `content`, or None."""
    from kgen.runtime import goscan

    problem = goscan.syntax_error(content)
    if problem is not None:
        return problem
    value = json.loads(content.decode("utf-8", "replace"))
    if value is None or isinstance(value, dict):
        return None
    return f"json: cannot unmarshal {gotypes.describe(value)} into Go value of type map[string]interface {{}}"


def validate_secret(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateSecret: keys, the total size, and the keys the secret's type needs."""
    errors = object_meta(obj)
    data: dict[str, str | None] = obj.get("data") or {}
    data_path = Path.root("data")
    total = 0
    for key, value in data.items():
        errors += [invalid(data_path.key(key), key, message) for message in is_config_map_key(key)]
        total += data_size(value)
    if total > MAX_SECRET_SIZE:
        errors.append(too_long(data_path, "", MAX_SECRET_SIZE))
    kind = obj.get("type", "")
    if kind == SERVICE_ACCOUNT_TOKEN:
        annotations = (obj.get("metadata") or {}).get("annotations") or {}
        if not annotations.get(SERVICE_ACCOUNT_NAME_KEY):
            errors.append(required(Path.root("metadata", "annotations").key(SERVICE_ACCOUNT_NAME_KEY), ""))
    elif kind in ("kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson"):
        key = ".dockercfg" if kind == "kubernetes.io/dockercfg" else ".dockerconfigjson"
        if key not in data:
            errors.append(required(data_path.key(key), ""))
        else:
            problem = _go_json_object_error(gotypes.decode_base64(data[key] or ""))
            if problem is not None:
                errors.append(invalid(data_path.key(key), _REDACTED, problem))
    elif kind == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:  # either may be empty, one must be there
            errors += [required(data_path.key("username"), ""), required(data_path.key("password"), "")]
    elif kind == "kubernetes.io/ssh-auth":
        if not data_size(data.get("ssh-privatekey")):
            errors.append(required(data_path.key("ssh-privatekey"), ""))
    elif kind == "kubernetes.io/tls":
        errors += [required(data_path.key(key), "") for key in ("tls.crt", "tls.key") if key not in data]
    return errors


def validate_secret_change(obj: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    """ValidateSecret on create; ValidateSecretUpdate (type never changes; immutable) on update."""
    if old is None:
        return validate_secret(obj)
    errors = object_meta_update(obj, old)
    errors += immutable(Path.root("type"), obj.get("type", ""), old.get("type", ""))
    if old.get("immutable") is True:
        if obj.get("immutable") is not True:
            errors.append(forbidden(Path.root("immutable"), IMMUTABLE_WHEN_SET))
        if (obj.get("data") or {}) != (old.get("data") or {}):
            errors.append(forbidden(Path.root("data"), IMMUTABLE_WHEN_SET))
    return errors + validate_secret(obj)


SECRETS = BuiltinKind(
    group="", version="v1", kind="Secret", plural="secrets", singular="secret",
    type=types.SECRET, list_type=types.list_of(types.SECRET, "v1.SecretList", "io.k8s.api.core.v1.SecretList",
                                               "A list of Secrets."),
    validate=validate_secret_change, internal=secret_internal,
    field_labels={"type": lambda obj: str(obj.get("type", ""))}, labels_converted=True,
    columns=(
        tables.NAME,
        tables.column("Type", lambda obj, now: str(obj.get("type", "")), "What the secret holds."),
        tables.column("Data", lambda obj, now: len(obj.get("data") or {}), "How many keys the secret has."),
        tables.AGE,
    ),
)  # fmt: skip

# -- ServiceAccount --------------------------------------------------------------------------------


def clean_secret_references(obj: dict[str, Any], old: dict[str, Any] | None, gates: Any) -> None:
    """cleanSecretReferences: a reference to a secret keeps its name alone."""
    secrets = obj.get("secrets")
    if secrets:
        obj["secrets"] = [{"name": ref["name"]} if ref.get("name") else {} for ref in secrets]


def validate_service_account(obj: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    """ValidateServiceAccount (its metadata) and ValidateServiceAccountUpdate."""
    return (object_meta_update(obj, old) if old is not None else []) + object_meta(obj)


SERVICE_ACCOUNTS = BuiltinKind(
    group="", version="v1", kind="ServiceAccount", plural="serviceaccounts", singular="serviceaccount",
    type=types.SERVICE_ACCOUNT, list_type=types.list_of(types.SERVICE_ACCOUNT, "v1.ServiceAccountList",
                                                        "io.k8s.api.core.v1.ServiceAccountList", "A list of ServiceAccounts."),
    validate=validate_service_account, prepare=clean_secret_references, short_names=("sa",),
    delete_returns_object=True,
    columns=(
        tables.NAME,
        tables.column("Secrets", lambda obj, now: len(obj.get("secrets") or []), "How many secrets the account lists."),
        tables.AGE,
    ),
)  # fmt: skip
