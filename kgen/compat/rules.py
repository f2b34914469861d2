"""The catalogue of compatibility rules `kgen compat` checks, one record per rule.

Each rule says what it finds, how severe a finding is on a beta or stable version, and the
passage of the API change guide (kubernetes/community,
contributors/devel/sig-architecture/api_changes.md) or the API server behaviour it rests
on. Findings, help (`kgen compat --rules`) and the allow list are all keyed by `Rule.id`.

Severities: `error` breaks existing clients or stored objects; `warning` may break some
(or could not be shown to); `info` is worth knowing (relaxed validation, changes to what
the server itself writes). Alpha versions and feature-gated fields lower a finding one
level, as the guide allows ("compatibility for experimental or alpha APIs is not strictly
required").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITIES = (ERROR, WARNING, INFO)
"""From the most severe down."""


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    """On a beta or stable version (before alpha and status relaxations)."""
    summary: str
    """What the rule finds, in one line."""
    why: str
    """Why it breaks something, and where that is written down."""
    go_only: bool = False
    """Needs the Go types on both sides (JSON names, protobuf numbers, Go types)."""
    validation: bool = False
    """A change to what validation accepts: relaxed to `info` under `status`, which the
    server's own controllers write."""


_GUIDE = "the API change guide"

RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        # -- resources and versions --------------------------------------------------------
        Rule("kind-removed", ERROR, "a kind is no longer served in any version",
             f"clients of the kind get 404 and its stored objects can no longer be read ({_GUIDE}: an API call "
             "that succeeded before the change must succeed after it)"),
        Rule("version-removed", ERROR, "a version of a kind is removed or no longer served",
             "clients of that version get 404; stable versions are never removed, beta versions only after they "
             f"were deprecated ({_GUIDE}, 'Alpha, Beta, and Stable Versions', and the deprecation policy)"),
        Rule("stored-version-removed", ERROR, "the version objects were stored in is removed",
             "objects stored in it can no longer be decoded; for a CRD the API server refuses the change "
             "(status.storedVersions must stay in spec.versions until a storage migration: apiextensions-apiserver "
             "ValidateCustomResourceDefinitionStoredVersions)"),
        Rule("scope-changed", ERROR, "a kind changes between namespaced and cluster-scoped",
             "its objects' keys and URLs change; the API server refuses the change of an established CRD "
             "(apiextensions-apiserver validateCustomResourceDefinitionSpecUpdate: spec.scope is immutable)"),
        Rule("plural-changed", ERROR, "the resource name (plural) of a kind changes",
             "every URL of the kind changes; a CRD's names.plural is immutable (apiextensions-apiserver "
             "validateCustomResourceDefinitionSpecUpdate)"),
        Rule("storage-version-new", ERROR, "a version is made the storage version in the change that adds it",
             f"a rollback to the previous release could not decode what the new one stored ({_GUIDE}: do not add a "
             "new API version of an existing resource and make it the storage version in the same release)"),
        # -- fields --------------------------------------------------------------------------
        Rule("field-removed", ERROR, "a field is removed",
             "clients that send it lose it silently (the API server prunes unknown fields) and readers no longer "
             f"find it; stored values are dropped on the next write ({_GUIDE}, rules 1, 2 and 4)"),
        Rule("type-changed", ERROR, "a field's JSON type changes",
             "every value clients send and stored objects hold becomes invalid (the schema refuses the old type)"),
        Rule("json-name-changed", ERROR, "a Go field's JSON name changes", f"old clients send and read the old name "
             f"({_GUIDE}: a rename needs a new field and both kept in sync)", go_only=True),
        Rule("go-type-changed", WARNING, "a Go field's type changes while its JSON stays the same",
             "Go clients of the types no longer compile; a pointer made a value (or the reverse) changes whether "
             f"unset and zero can be told apart ({_GUIDE}, 'Edit defaults.go')", go_only=True),
        Rule("protobuf-number-changed", ERROR, "a field's protobuf number changes",
             "protobuf clients and objects stored as protobuf read the number with its old meaning "
             "(field numbers are forever: go-to-protobuf)", go_only=True),
        Rule("protobuf-wire-type-changed", ERROR, "a field's protobuf wire type or label changes",
             "a protobuf reader of the old type cannot decode the field", go_only=True),
        Rule("protobuf-name-changed", WARNING, "a field's protobuf name changes",
             "the wire is unchanged, but code generated from generated.proto for other languages changes",
             go_only=True),
        Rule("protobuf-number-reused", ERROR, "a protobuf number of a removed or tombstoned field is used again",
             f"old clients send that number with its old meaning ({_GUIDE}: a tombstone ensures the field name and "
             "protobuf tag are not reused)", go_only=True),
        Rule("protobuf-name-reused", ERROR, "the JSON name of a tombstoned field is used again",
             f"old clients send the name with its old meaning ({_GUIDE}: tombstone comments)", go_only=True),
        Rule("protobuf-tombstone-missing", WARNING, "a field of a protobuf message is removed without a tombstone",
             f"nothing stops a later change from reusing its number or name ({_GUIDE}: remove the field with a "
             "`+k8s:deprecated=<json name>,protobuf=<number>` tombstone)", go_only=True),
        # -- required fields and defaults ----------------------------------------------------
        Rule("field-made-required", ERROR, "an optional field is made required",
             f"requests that leave it out are refused ({_GUIDE}: which fields are required must not change)",
             validation=True),
        Rule("required-field-added", ERROR, "a new field is required (and has no default)",
             f"every request of an existing client is refused ({_GUIDE}: a compatible change does not add a new "
             "required field)", validation=True),
        Rule("default-added", ERROR, "an existing field gets a default",
             "objects stored without the field read back with the default (the API server defaults what it reads): "
             f"the meaning of unset changes ({_GUIDE}: the semantic meaning of default values must not change)",
             validation=True),
        Rule("default-changed", ERROR, "a field's default changes",
             f"stored objects without the field change meaning when read ({_GUIDE}: the semantic meaning of default "
             "values must not change)", validation=True),
        Rule("default-removed", ERROR, "a field's default is removed",
             f"objects that relied on it read back without a value ({_GUIDE}: the semantic meaning of default values "
             "must not change)", validation=True),
        Rule("default-differs-between-versions", ERROR,
             "a field's default is changed in one version but not in the others",
             f"an object reads differently in each version ({_GUIDE}: any field with a default in one API version "
             "must have a semantically equivalent default in all of them)", validation=True),
        # -- validation ----------------------------------------------------------------------
        Rule("immutable-added", ERROR, "a mutable field is made immutable",
             f"updates that change it are refused ({_GUIDE}: mutable fields do not become immutable)",
             validation=True),
        Rule("bounds-tightened", ERROR, "a minimum is raised, a maximum lowered, or multipleOf added",
             f"values accepted before are refused ({_GUIDE}: valid values do not become invalid); a warning when no "
             "such value was found", validation=True),
        Rule("length-tightened", ERROR, "a string's minLength is raised or maxLength lowered",
             f"values accepted before are refused ({_GUIDE}: valid values do not become invalid); a warning when no "
             "such value was found", validation=True),
        Rule("items-tightened", ERROR, "a list's minItems is raised or maxItems lowered",
             f"lists accepted before are refused ({_GUIDE}: valid values do not become invalid); a warning when no "
             "such list was found", validation=True),
        Rule("properties-tightened", ERROR, "an object's minProperties is raised or maxProperties lowered",
             f"objects accepted before are refused ({_GUIDE}: valid values do not become invalid); a warning when no "
             "such object was found", validation=True),
        Rule("pattern-changed", ERROR, "a string gets a pattern, or its pattern changes",
             f"values the old pattern accepts may be refused ({_GUIDE}: valid values do not become invalid); a "
             "warning when no such value was found", validation=True),
        Rule("format-changed", ERROR, "a string gets a format the API server checks, or another one",
             f"values accepted before are refused ({_GUIDE}: valid values do not become invalid); a warning when no "
             "such value was found", validation=True),
        Rule("enum-narrowed", ERROR, "a field gets an enum, or values are removed from it",
             f"requests with the other values are refused ({_GUIDE}: valid values do not become invalid); a warning "
             "when no such value was found", validation=True),
        Rule("enum-value-added", WARNING, "a value is added to an enum",
             f"clients that handle every known value meet one they do not know ({_GUIDE}: adding a value to an "
             "enumerated set is not a compatible change unless the field says clients must expect new values)"),
        Rule("cel-rule-added", ERROR, "an existing field gets a new CEL rule (x-kubernetes-validations)",
             f"values accepted before may be refused ({_GUIDE}: valid values do not become invalid); a warning when "
             "no such value was found; a new message for the same rule is not a change", validation=True),
        Rule("cel-rule-changed", ERROR, "a CEL rule is replaced by one that refuses values the old one accepted",
             "values accepted before are refused; a warning when no such value was found", validation=True),
        Rule("validation-changed", ERROR, "allOf, anyOf, oneOf or not of a field changes",
             "values accepted before may be refused; a warning when no such value was found", validation=True),
        Rule("list-type-changed", ERROR, "a list's x-kubernetes-list-type changes",
             "server-side apply merges the list differently (field ownership of existing objects changes), and a "
             "set or map refuses duplicates an atomic list kept", validation=True),
        Rule("list-map-keys-changed", ERROR, "a map list's x-kubernetes-list-map-keys change",
             "server-side apply and strategic merge patch match items by other keys; items unique before may "
             "collide", validation=True),
        Rule("map-type-changed", ERROR, "an object's x-kubernetes-map-type changes",
             "server-side apply merges the object differently (field ownership of existing objects changes)"),
        Rule("nullable-changed", ERROR, "a field's nullable changes",
             "made not nullable: the nulls clients send are dropped instead of kept; made nullable: readers meet "
             "nulls they never saw (a warning)"),
        Rule("pruning-enabled", ERROR, "x-kubernetes-preserve-unknown-fields is removed from an object",
             "fields kept before are dropped by the API server on the next write: stored data is lost"),
        Rule("description-changed", INFO, "an existing field's description changes",
             f"what a field means may not change in a stable version ({_GUIDE}: changing the meaning of a field "
             "breaks the clients that relied on it); the description is where a change of meaning shows: check that "
             "the field still means what it meant (a warning on stable versions)"),
        Rule("validation-relaxed", INFO, "validation accepts values it refused before",
             f"a compatible change for the API server, but consumers that relied on the old rules may see values "
             f"they never saw ({_GUIDE}: weakening validation has the potential to break other consumers); a "
             "warning on stable versions"),
    )
}  # fmt: skip


def describe(rule_id: str) -> Rule:
    """The rule of a finding."""
    return RULES[rule_id]


def lowered(severity: str) -> str:
    """One level down: error -> warning -> info."""
    index = SEVERITIES.index(severity)
    return SEVERITIES[min(index + 1, len(SEVERITIES) - 1)]


def stability(version: str) -> str:
    """`alpha`, `beta` or `stable` of a Kubernetes version name (`v2alpha1`, `v1beta3`, `v1`);
    a name that is none of these is taken as stable (the strictest)."""
    match = re.fullmatch(r"v\d+(alpha|beta)\d*", version)
    if match:
        return match.group(1)
    return "stable"
