"""Request paths and options, as typed keyword arguments that become query parameters.

Generated clients call these with their own keyword arguments: `list_query(label_selector=
"app=web", limit=500)` is `labelSelector=app%3Dweb&limit=500`. A parameter at its zero value
is left out, as client-go's query parameter codec leaves out `omitempty` fields; `dry_run`
sends `dryRun=All`. `resource_path` builds `/api/v1/namespaces/ns/pods/name/status` and
`/apis/group/version/...`, refusing names that cannot be one path segment.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import quote

__all__ = [
    "Query",
    "JSON",
    "PROTOBUF",
    "JSON_PATCH",
    "MERGE_PATCH",
    "STRATEGIC_MERGE_PATCH",
    "APPLY_PATCH",
    "FieldValidation",
    "PropagationPolicy",
    "ResourceVersionMatch",
    "resource_path",
    "get_query",
    "list_query",
    "watch_query",
    "create_query",
    "update_query",
    "patch_query",
    "apply_query",
    "delete_options",
]

#: Query parameters, in order.
Query = tuple[tuple[str, str], ...]

JSON = "application/json"
PROTOBUF = "application/vnd.kubernetes.protobuf"
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

FieldValidation = Literal["", "Ignore", "Warn", "Strict"]
PropagationPolicy = Literal["Orphan", "Background", "Foreground"]
ResourceVersionMatch = Literal["", "Exact", "NotOlderThan"]

# Go's url.PathEscape keeps these besides letters and digits.
_PATH_SAFE = "-._~!$&'()*+,;=:@"


def _segment(value: str, what: str) -> str:
    """One path segment; ValueError for what client-go's IsValidPathSegmentName refuses."""
    if value in (".", ".."):
        raise ValueError(f"{what} may not be {value!r}")
    bad = [c for c in ("/", "%") if c in value]
    if bad:
        raise ValueError(f"{what} {value!r} may not contain {' or '.join(repr(c) for c in bad)}")
    return quote(value, safe=_PATH_SAFE)


def resource_path(
    group: str, version: str, resource: str, namespace: str = "", name: str = "", subresource: str = ""
) -> str:
    """The path of a resource, a namespace's resources, an object or its subresource:
    `/apis/example.com/v1/namespaces/ns/widgets/w1/status`, `/api/v1/nodes` for the core group.
    An empty name is a collection; a subresource needs a name."""
    parts = ["/api", version] if not group else ["/apis", group, version]
    if namespace:
        parts += ["namespaces", _segment(namespace, "namespace")]
    parts.append(resource)
    if name:
        parts.append(_segment(name, "name"))
    elif subresource:
        raise ValueError(f"the {subresource} subresource of {resource} needs an object name")
    if subresource:
        parts.append(subresource)
    return "/".join(parts)


#: Optional booleans (`*bool` in Go): false is sent, not left out.
_TRISTATE = frozenset({"sendInitialEvents", "force"})


def _query(pairs: list[tuple[str, Any]]) -> Query:
    out: list[tuple[str, str]] = []
    for key, value in pairs:
        if value is None or value == "" or (value is False and key not in _TRISTATE):
            continue
        if isinstance(value, bool):
            out.append((key, "true" if value else "false"))
        else:
            out.append((key, str(value)))
    return tuple(out)


def get_query(*, resource_version: str = "") -> Query:
    """GetOptions: `resourceVersion` ("" reads the latest, "0" any cached version)."""
    return _query([("resourceVersion", resource_version)])


def list_query(
    *,
    label_selector: str = "",
    field_selector: str = "",
    resource_version: str = "",
    resource_version_match: ResourceVersionMatch = "",
    limit: int = 0,
    continue_: str = "",
    timeout_seconds: int | None = None,
    allow_watch_bookmarks: bool = False,
    send_initial_events: bool | None = None,
    watch: bool = False,
) -> Query:
    """ListOptions: selectors, the version to read at, paging (`limit`, `continue`), and
    for a watch its duration (`timeoutSeconds`), bookmarks and initial events."""
    if limit < 0:
        raise ValueError(f"limit must be 0 (no limit) or more, not {limit}")
    return _query(
        [
            ("labelSelector", label_selector),
            ("fieldSelector", field_selector),
            ("watch", watch),
            ("allowWatchBookmarks", allow_watch_bookmarks),
            ("resourceVersion", resource_version),
            ("resourceVersionMatch", resource_version_match),
            ("timeoutSeconds", timeout_seconds),
            ("limit", limit or None),
            ("continue", continue_),
            ("sendInitialEvents", send_initial_events),
        ]
    )


def watch_query(
    *,
    label_selector: str = "",
    field_selector: str = "",
    resource_version: str = "",
    resource_version_match: ResourceVersionMatch = "",
    timeout_seconds: int | None = None,
    allow_watch_bookmarks: bool = False,
    send_initial_events: bool | None = None,
) -> Query:
    """ListOptions of a watch (`watch=true`): from `resource_version` on ("" starts with
    the current objects as ADDED events), for `timeout_seconds` at most."""
    return list_query(
        label_selector=label_selector,
        field_selector=field_selector,
        resource_version=resource_version,
        resource_version_match=resource_version_match,
        timeout_seconds=timeout_seconds,
        allow_watch_bookmarks=allow_watch_bookmarks,
        send_initial_events=send_initial_events,
        watch=True,
    )


def create_query(*, dry_run: bool = False, field_manager: str = "", field_validation: FieldValidation = "") -> Query:
    """CreateOptions: `dryRun=All` (validate and admit, store nothing), the field manager's
    name, and how to treat unknown or duplicate fields (Ignore, Warn, Strict)."""
    return _query(
        [("dryRun", "All" if dry_run else ""), ("fieldManager", field_manager), ("fieldValidation", field_validation)]
    )


def update_query(*, dry_run: bool = False, field_manager: str = "", field_validation: FieldValidation = "") -> Query:
    """UpdateOptions: as CreateOptions."""
    return create_query(dry_run=dry_run, field_manager=field_manager, field_validation=field_validation)


def patch_query(
    *, dry_run: bool = False, field_manager: str = "", field_validation: FieldValidation = "", force: bool | None = None
) -> Query:
    """PatchOptions: as UpdateOptions, and `force` (apply patches only: take over conflicting fields)."""
    return _query(
        [
            ("dryRun", "All" if dry_run else ""),
            ("force", force),
            ("fieldManager", field_manager),
            ("fieldValidation", field_validation),
        ]
    )


def apply_query(
    *, field_manager: str, force: bool = False, dry_run: bool = False, field_validation: FieldValidation = ""
) -> Query:
    """PatchOptions of a server-side apply, which needs a field manager."""
    if not field_manager:
        raise ValueError("server-side apply needs a field manager: pass field_manager='my-controller'")
    return patch_query(
        dry_run=dry_run, field_manager=field_manager, field_validation=field_validation, force=force or None
    )


def delete_options(
    *,
    grace_period_seconds: int | None = None,
    propagation_policy: PropagationPolicy | None = None,
    precondition_uid: str = "",
    precondition_resource_version: str = "",
    orphan_dependents: bool | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """The DeleteOptions body of a delete or delete-collection (client-go sends them as the body):
    the grace period, how dependents go (Orphan, Background, Foreground), and preconditions
    that must hold (409 Conflict otherwise)."""
    options: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}
    if grace_period_seconds is not None:
        options["gracePeriodSeconds"] = grace_period_seconds
    if precondition_uid or precondition_resource_version:
        preconditions: dict[str, str] = {}
        if precondition_uid:
            preconditions["uid"] = precondition_uid
        if precondition_resource_version:
            preconditions["resourceVersion"] = precondition_resource_version
        options["preconditions"] = preconditions
    if orphan_dependents is not None:
        options["orphanDependents"] = orphan_dependents
    if propagation_policy is not None:
        options["propagationPolicy"] = propagation_policy
    if dry_run:
        options["dryRun"] = ["All"]
    return options
