"""Write a synthetic API repository: GROUPS x VERSIONS packages of TYPES_PER_PACKAGE types.

The defaults make 50 group/versions with 40 types each (2,000 types), written the way
real API files are: doc.go with markers, kinds with TypeMeta/ObjectMeta, specs with
pointers, slices, maps, named types, enums, Quantities and cross-type references.
"""

from __future__ import annotations

import random
from pathlib import Path

GROUPS = 25
VERSIONS = ("v1", "v1beta1")
TYPES_PER_PACKAGE = 40

_FIELD_SHAPES = [
    ("string", 'json:"{j},omitempty"'),
    ("*int32", 'json:"{j},omitempty"'),
    ("int64", 'json:"{j}"'),
    ("bool", 'json:"{j},omitempty"'),
    ("[]string", 'json:"{j},omitempty"'),
    ("map[string]string", 'json:"{j},omitempty"'),
    ("*metav1.Time", 'json:"{j},omitempty"'),
    ("resource.Quantity", 'json:"{j},omitempty"'),
    ("*intstr.IntOrString", 'json:"{j},omitempty"'),
    ("[]byte", 'json:"{j},omitempty"'),
    ("map[string][]string", 'json:"{j},omitempty"'),
]


def write_synthetic_api(root: Path, seed: int = 7) -> int:
    """Write the API under `root`; return the number of types written."""
    rng = random.Random(seed)
    (root / "go.mod").parent.mkdir(parents=True, exist_ok=True)
    (root / "go.mod").write_text("module bench.example.com/apis\n\ngo 1.22\n")
    count = 0
    for g in range(GROUPS):
        for version in VERSIONS:
            package_dir = root / f"group{g:02d}" / version
            package_dir.mkdir(parents=True, exist_ok=True)
            (package_dir / "doc.go").write_text(
                f"// +k8s:deepcopy-gen=package\n// +groupName=group{g:02d}.bench.example.com\n\n"
                f"// Package {version} is a synthetic API package.\npackage {version}\n"
            )
            (package_dir / "types.go").write_text(_types_file(version, rng))
            count += TYPES_PER_PACKAGE
    return count


def _types_file(version: str, rng: random.Random) -> str:
    lines = [
        f"package {version}",
        "",
        "import (",
        '\t"k8s.io/apimachinery/pkg/api/resource"',
        '\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"',
        '\t"k8s.io/apimachinery/pkg/util/intstr"',
        ")",
        "",
    ]
    kinds = TYPES_PER_PACKAGE // 10
    structs = TYPES_PER_PACKAGE - 2 * kinds - kinds  # kinds, their lists, and one enum per kind
    for s in range(structs):
        lines += [f"// Part{s} is part {s} of a synthetic kind.", f"type Part{s} struct {{"]
        for f in range(rng.randint(6, 12)):
            shape, tag = rng.choice(_FIELD_SHAPES)
            json_name = f"field{f}Value"
            lines += [f"\t// Field{f} is field {f}.", "\t// +optional", f"\tField{f} {shape} `{tag.format(j=json_name)}`"]
        if s > 0:
            lines += [f"\t// Previous is another part.\n\t// +optional\n\tPrevious *Part{rng.randrange(s)} `json:\"previous,omitempty\"`"]
            lines += [f"\t// Items are parts.\n\t// +optional\n\tItems []Part{rng.randrange(s)} `json:\"items,omitempty\"`"]
        lines += ["}", ""]
    for k in range(kinds):
        lines += [
            f"// Mode{k} is an enum.",
            "// +enum",
            f"type Mode{k} string",
            "",
            "const (",
            f'\tMode{k}Fast Mode{k} = "Fast"',
            f'\tMode{k}Slow Mode{k} = "Slow"',
            ")",
            "",
            "// +genclient",
            "// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object",
            *(["// +kgen:storageVersion"] if version == "v1" else []),
            "",
            f"// Kind{k} is a synthetic kind.",
            f"type Kind{k} struct {{",
            '\tmetav1.TypeMeta `json:",inline"`',
            "\t// +optional",
            '\tmetav1.ObjectMeta `json:"metadata,omitempty"`',
            f'\tSpec Part{rng.randrange(structs)} `json:"spec,omitempty"`',
            f'\tMode Mode{k} `json:"mode,omitempty"`',
            f'\tStatus *Part{rng.randrange(structs)} `json:"status,omitempty"`',
            "}",
            "",
            f"// Kind{k}List is a list of Kind{k}.",
            f"type Kind{k}List struct {{",
            '\tmetav1.TypeMeta `json:",inline"`',
            '\tmetav1.ListMeta `json:"metadata,omitempty"`',
            f'\tItems []Kind{k} `json:"items"`',
            "}",
            "",
        ]
    return "\n".join(lines)
