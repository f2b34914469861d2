"""The validation generator (counterpart of validation-gen): `validation.py` per package.

Its parts: what gets a check function (`plan`), the checks of the markers before anything
is generated (`checks`), and the generated module (`emit`).
"""

from kgen.generators.validation.checks import check
from kgen.generators.validation.emit import generate
from kgen.generators.validation.plan import HOOK_PREFIX, NAME, has_module, hooks_by_type, needs, significant

__all__ = ["HOOK_PREFIX", "NAME", "check", "generate", "has_module", "hooks_by_type", "needs", "significant"]
