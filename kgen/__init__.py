"""kgen: schema and code generation for Kubernetes-style APIs, in Python."""

__version__ = "0.1.0"
