"""Benchmarks of kgen and its generated code against what a user would otherwise use."""
