"""The runtime that generated code imports: model base, well-known types, Go JSON."""
