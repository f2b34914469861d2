"""The conversion and admission webhooks of an API's custom resources, served from the code
kgen generates for it.

A cluster runs a custom resource's conversions, defaulting and validation only through
webhooks: `Webhooks` answers the ConversionReviews and AdmissionReviews the API server
sends with the generated conversions, defaulters and validators and the hand-written hooks
beside the types, in process (`review(path, body) -> dict`) or as an ASGI application
(`asgi()`). The generated `webhook.py` of an API builds it for every custom resource;
`kgen webhook` (`python -m kgen.webhook`) serves it over TLS with the certificate a
cluster mounts (`pip install "kgen-k8s[webhook]"` adds the ASGI server).

Nothing here needs more than kgen's runtime; only serving needs uvicorn.
"""

from __future__ import annotations

from kgen.webhook.app import Webhooks, default_routes, kubebuilder_path
from kgen.webhook.records import AdmissionRequest, Resource, ReviewError, Route, current_request

__all__ = [
    "AdmissionRequest",
    "Resource",
    "ReviewError",
    "Route",
    "Webhooks",
    "current_request",
    "default_routes",
    "kubebuilder_path",
]
