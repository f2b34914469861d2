"""The lint rules, one concept per module; `kgen.lint.registry` lists them."""
