"""The apimachinery types an API's objects are built from, in one place to import them from:

    from kgen.meta import ObjectMeta, Condition, Time, Quantity

`metav1` (object and list metadata, label selectors, owner references, conditions, delete
options, Status) as pydantic models, and the value types (Time, MicroTime, Duration,
Quantity, IntOrString). They are the classes the generated models' fields hold; the msgspec
backend's are in `kgen.runtime.apimachinery_structs.meta.v1`.
"""

from kgen.runtime.apimachinery.meta.v1.models import (
    Condition,
    DeleteOptions,
    LabelSelector,
    LabelSelectorRequirement,
    ListMeta,
    ManagedFieldsEntry,
    ObjectMeta,
    OwnerReference,
    Preconditions,
    Status,
)
from kgen.runtime.intstr import IntOrString
from kgen.runtime.quantity import Quantity
from kgen.runtime.timeutil import Duration, MicroTime, Time

__all__ = [
    "Condition",
    "DeleteOptions",
    "Duration",
    "IntOrString",
    "LabelSelector",
    "LabelSelectorRequirement",
    "ListMeta",
    "ManagedFieldsEntry",
    "MicroTime",
    "ObjectMeta",
    "OwnerReference",
    "Preconditions",
    "Quantity",
    "Status",
    "Time",
]
