"""`kgen compat`: does a change of the API break existing clients or stored objects?

Two revisions of an API (Go types, or CRD manifests when that is all there is) are read into
snapshots (`snapshot`, `crdfiles`, `revision`) and compared by three sets of rules, all
listed in `rules`:

- `resources`: kinds, versions, the storage version, scope and resource names;
- `schemas`: the structural schema of every version both revisions serve, keyword by
  keyword (shared by Go and CRD inputs);
- `gotypes`: what only Go types tell (JSON names, protobuf numbers and tombstones, Go types).

`report` turns the changes into `kgen.findings` findings: named and placed, severities as
the API change guide ranks them, one finding per Go field however many kinds share it, with
an example object the old schema accepts and the new one refuses where one exists
(`examples`, checked with `kgen.runtime.structural`), and the `[tool.kgen.compat]` allow
list (`settings`) applied.
"""

from kgen.compat.report import compare, rule_table
from kgen.compat.revision import read_against, read_paths
from kgen.compat.snapshot import Snapshot, from_universe

__all__ = ["Snapshot", "compare", "from_universe", "read_against", "read_paths", "rule_table"]
