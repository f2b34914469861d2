"""The table of lint rules: id, explanation, default severity, the profiles that turn it on,
its settings (kube-api-linter's names and defaults), and whether it fixes what it finds.

kube-api-linter's 31 linters keep their names, settings and defaults (21 on by default);
openapi-gen's API rules keep theirs; kgen adds what the API conventions ask that neither
checks. The `builtin` profile is kube-api-linter's defaults (they fit Kubernetes' own
groups) with openapi-gen's rules; the `crd` profile is what a CRD project would otherwise
configure: no nonpointerstructs (for types validated in Go), no protobuf or strategic
merge patch tags on conditions, and maxlength, statussubresource and statusoptional on.
"""

from __future__ import annotations

from kgen.findings import Severity
from kgen.lint.engine import BUILTIN, CRD, Option, Rule
from kgen.lint.rules import (
    celcost,
    conditions,
    enums,
    kinds,
    lengths,
    lists,
    markersets,
    naming,
    openapi,
    requiredness,
    status,
    tags,
    types,
    versions,
)

BOTH = frozenset({CRD, BUILTIN})
ONLY_CRD = frozenset({CRD})
ONLY_BUILTIN = frozenset({BUILTIN})
NONE: frozenset[str] = frozenset()

_FIX_POLICIES = ("SuggestFix", "Warn")
_OMITEMPTY = ("SuggestFix", "Warn", "Ignore")
_OMITZERO = ("SuggestFix", "Warn", "Forbid")
_ERROR, _WARNING, _INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def _list(help: str) -> Option:
    return Option([], help)


_RULES = [
    # -- kube-api-linter ------------------------------------------------------------------
    Rule("arrayofstruct", "items of a list of structs need a required field, or an item could be written as {}",
         requiredness.check_arrayofstruct, profiles=BOTH),
    Rule("commentstart", "a field's doc comment starts with its JSON name, as users see it in YAML and kubectl explain",
         tags.check_commentstart, profiles=BOTH, fixable=True),
    Rule("conditions", "conditions are []metav1.Condition, keyed by type, optional and first in their struct",
         conditions.check_conditions, profiles=BOTH, fixable=True, options={
             "isFirstField": Option("Warn", "Conditions must be the struct's first field", ("Warn", "Ignore")),
             "useProtobuf": Option("SuggestFix", "the protobuf tag of the field", conditions.PROTOBUF),
             "usePatchStrategy": Option("SuggestFix", "the strategic merge patch tags and markers", conditions.PATCH_STRATEGY),
         }, profile_options={CRD: {"useProtobuf": "Ignore", "usePatchStrategy": "Ignore"}}),
    Rule("conflictingmarkers", "a field carries no markers of two sets that exclude each other",
         markersets.check_conflictingmarkers, severity=_ERROR, profiles=NONE,
         options={"conflicts": _list("sets of markers that exclude each other: name, sets, description")},
         markers=markersets.conflict_identifiers, validate=markersets.validate_conflicts),
    Rule("defaultorrequired", "a required field has no default: users always set it, so a default is never used",
         markersets.check_defaultorrequired, severity=_ERROR, profiles=BOTH),
    Rule("defaults", "a field with a default is optional and omitted when empty, so that the default applies",
         requiredness.check_defaults, profiles=BOTH, fixable=True, options={
             "preferredDefaultMarker": Option("default", "the default marker fixes write", ("default", "kubebuilder:default")),
             "omitempty.policy": Option("SuggestFix", "omitempty on fields with a default", _OMITEMPTY),
             "omitzero.policy": Option("SuggestFix", "omitzero on struct fields with a default", _OMITZERO),
         }),
    Rule("dependenttags", "a field with a marker also has the markers it depends on", markersets.check_dependenttags,
         profiles=NONE, options={"rules": _list("identifier, type (All or Any) and dependsOn markers")},
         markers=markersets.dependent_identifiers, validate=markersets.validate_dependencies),
    Rule("duplicatemarkers", "a marker is written once on a type or field", markersets.check_duplicatemarkers,
         profiles=BOTH, fixable=True),
    Rule("forbiddenmarkers", "types and fields carry no marker the project forbids", markersets.check_forbiddenmarkers,
         profiles=NONE, fixable=True,
         options={"markers": _list("forbidden markers: identifier, and ruleSets of attributes (name, values)")},
         markers=markersets.forbidden_identifiers),
    Rule("integers", "integers are int32 or int64: other sizes and unsigned integers do not round-trip through JSON clients",
         types.check_integers, profiles=BOTH),
    Rule("jsontags", "every field has a camelCase json tag, the name users write", tags.check_jsontags,
         severity=_ERROR, profiles=BOTH, fixable=True, options={
             "jsonTagRegex": Option("", "the pattern json names match (default: camelCase)"),
             "fieldNameMatch": Option("Ignore", "json names must be the camelCase Go name", tags.FIELD_NAME_MATCH),
         }, validate=tags.validate_jsontags),
    Rule("maxlength", "strings have a maxLength and lists a maxItems: unbounded values make CEL costs unestimable and objects large",
         lengths.check_maxlength, profiles=ONLY_CRD),
    Rule("minlength", "strings, lists, maps and structs say whether empty is a valid value", lengths.check_minlength,
         profiles=NONE),
    Rule("namingconventions", "field names follow the project's naming conventions", naming.check_namingconventions,
         profiles=NONE, fixable=True,
         options={"conventions": _list("name, violationMatcher, operation (Inform, Drop, DropField, Replacement), replacement, message")},
         validate=naming.validate_conventions),
    Rule("nobools", "no bool fields: a string enum with meaningful values can grow a third state", types.check_nobools,
         profiles=NONE),
    Rule("nodurations", "no Duration types: an integer with its unit in the name needs no Go duration parsing",
         types.check_nodurations, profiles=BOTH),
    Rule("nofloats", "no floats: they do not round-trip reliably across languages", types.check_nofloats, profiles=BOTH),
    Rule("nomaps", "no maps but string to string: lists of named objects merge and evolve", types.check_nomaps,
         profiles=BOTH, options={"policy": Option("AllowStringToStringMaps", "which maps are allowed", types.NOMAPS_POLICIES)}),
    Rule("nonpointerstructs", "a struct field that is not a pointer is required exactly when its struct has required fields",
         requiredness.check_nonpointerstructs, profiles=ONLY_BUILTIN, fixable=True, options={
             "preferredRequiredMarker": Option("required", "the required marker fixes write",
                                               ("required", "kubebuilder:validation:Required", "k8s:required")),
             "preferredOptionalMarker": Option("optional", "the optional marker fixes write",
                                               ("optional", "kubebuilder:validation:Optional", "k8s:optional")),
         }),
    Rule("nonullable", "no +nullable: an API tells unset from empty by leaving the field out", markersets.check_nonullable,
         profiles=BOTH, fixable=True),
    Rule("nophase", "no phase fields: conditions say more and can grow", naming.check_nophase, profiles=BOTH),
    Rule("noreferences", "field names say Ref and Refs, not Reference and References", naming.check_noreferences,
         profiles=BOTH, fixable=True,
         options={"policy": Option("PreferAbbreviatedReference", "Ref over Reference, or no such words", naming.NOREFERENCES_POLICIES)}),
    Rule("notimestamp", "a time is somethingTime, not somethingTimestamp", naming.check_notimestamp, profiles=BOTH,
         fixable=True),
    Rule("optionalfields", "an optional field can be told unset from its zero value: a pointer with omitempty",
         requiredness.check_optionalfields, profiles=BOTH, fixable=True, options={
             "pointers.preference": Option("Always", "always pointers, or only when the zero value is valid",
                                           ("Always", "WhenRequired")),
             "pointers.policy": Option("SuggestFix", "fix pointers, or only report", _FIX_POLICIES),
             "omitempty.policy": Option("SuggestFix", "omitempty on optional fields", _OMITEMPTY),
             "omitzero.policy": Option("SuggestFix", "omitzero on optional struct fields", _OMITZERO),
         }),
    Rule("optionalorrequired", "every field says whether it is optional or required", requiredness.check_optionalorrequired,
         profiles=BOTH, fixable=True, options={
             "preferredOptionalMarker": Option("optional", "the optional marker", ("optional", "kubebuilder:validation:Optional")),
             "preferredRequiredMarker": Option("required", "the required marker", ("required", "kubebuilder:validation:Required")),
         }),
    Rule("preferredmarkers", "equivalent markers are written the one way the project prefers",
         markersets.check_preferredmarkers, profiles=NONE, fixable=True,
         options={"markers": _list("preferredIdentifier, equivalentIdentifiers (identifier) and message")},
         markers=markersets.preferred_identifiers),
    Rule("requiredfields", "a required field is a pointer only when its zero value is valid, and is omitted when empty",
         requiredness.check_requiredfields, profiles=BOTH, fixable=True, options={
             "pointers.policy": Option("SuggestFix", "fix pointers, or only report", _FIX_POLICIES),
             "omitempty.policy": Option("SuggestFix", "omitempty on required fields", _OMITEMPTY),
             "omitzero.policy": Option("SuggestFix", "omitzero on required struct fields", _OMITZERO),
         }),
    Rule("ssatags", "every list says how server-side apply merges it (+listType)", lists.check_ssatags, profiles=BOTH,
         fixable=True, options={"listTypeSetUsage": Option("Warn", "listType=set on lists of objects", lists.SET_USAGE)}),
    Rule("statusoptional", "every field of a status is optional: controllers write status piece by piece",
         requiredness.check_statusoptional, profiles=ONLY_CRD, fixable=True, options={
             "preferredOptionalMarker": Option("optional", "the optional marker fixes write",
                                               ("optional", "kubebuilder:validation:Optional", "k8s:optional")),
         }),
    Rule("statussubresource", "a custom resource with a status enables the /status subresource, and the other way round",
         status.check_statussubresource, profiles=ONLY_CRD, fixable=True),
    Rule("uniquemarkers", "markers that hold one value are written once", markersets.check_uniquemarkers,
         severity=_ERROR, profiles=BOTH,
         options={"customMarkers": _list("more markers that must be unique: identifier and attributes")},
         markers=markersets.unique_identifiers),
    # -- openapi-gen's API rules ------------------------------------------------------------
    Rule("names_match", "openapi-gen: the JSON name is the Go name with its first letter (or acronym) lower-cased",
         openapi.check_names_match, profiles=ONLY_BUILTIN, origin="openapi-gen", needs_universe=True),
    Rule("omitempty_match_case", "openapi-gen: omitempty is written in lower case; encoding/json ignores other spellings",
         openapi.check_omitempty_match_case, severity=_ERROR, profiles=ONLY_BUILTIN, fixable=True, origin="openapi-gen",
         needs_universe=True),
    Rule("list_type_missing", "openapi-gen: every list says how it merges (+listType); ssatags checks the same for all inputs",
         openapi.check_list_type_missing, profiles=NONE, origin="openapi-gen", needs_universe=True),
    # -- kgen: the API conventions ----------------------------------------------------------
    Rule("kindmetadata", "a kind has TypeMeta inline and metadata (ObjectMeta; ListMeta for a list)",
         kinds.check_kindmetadata, severity=_ERROR, profiles=BOTH, fixable=True, origin="kgen", needs_universe=True),
    Rule("listkinds", "every kind has a <Kind>List with metadata and items, which list and watch answer with",
         kinds.check_listkinds, profiles=BOTH, origin="kgen", needs_universe=True),
    Rule("specstatus", "spec and status are <Kind>Spec and <Kind>Status structs; status is optional",
         kinds.check_specstatus, profiles=BOTH, fixable=True, origin="kgen", needs_universe=True),
    Rule("enums", "enum values are UpperCamelCase and listed where the API is published",
         enums.check_enums, profiles=BOTH, origin="kgen", needs_universe=True),
    Rule("conditiontypes", "a condition type of its own has type, status and lastTransitionTime",
         conditions.check_conditiontypes, profiles=BOTH, origin="kgen"),
    Rule("celcost", "CEL rules stay within the API server's cost budget, or it refuses the CRD",
         celcost.check_celcost, severity=_ERROR, profiles=BOTH, origin="kgen", needs_universe=True),
    Rule("versionmarkers", "every version of a kind merges and changes a field the same way",
         versions.check_versionmarkers, severity=_ERROR, profiles=BOTH, origin="kgen", needs_universe=True),
]  # fmt: skip

RULES: dict[str, Rule] = {rule.id: rule for rule in _RULES}
"""Every rule, by id, in the order `kgen lint --list-rules` shows them."""

KUBE_API_LINTER = tuple(r.id for r in _RULES if r.origin == "kube-api-linter")
