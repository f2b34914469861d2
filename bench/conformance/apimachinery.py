"""kgen's runtime against apimachinery's own unit tests, read from a checkout at run time.

    python -m bench.conformance.apimachinery --apimachinery DIR [--details]

apimachinery's tests are tables of facts: the names a check accepts and rejects, the
errors an IP or CIDR gets in each mode, the canonical form of a quantity. This reads
those tables out of the test files with tree-sitter-go (nothing is copied: the checkout
is read when the command runs), runs each case through kgen's runtime, and prints, per
area, the cases checked and passed, and those it could not read.

Read: every `for _, v := range <list> { if msgs := IsX(v); len(msgs) != 0 ...` loop of
util/validation and api/validate/content (good values when the test wants no errors, bad
when it wants some); the keyed tables of util/validation/ip_test.go; the (in, expect)
tables of TestQuantityParse (values, formats, and the inputs that must fail),
TestQuantityParseEmit, TestQuantityString and TestQuantityRoundUp; intstr's TestParse and
TestGetIntFromIntOrPercent; and the (input, wantErrs) tables of api/validate/strfmt_test.go,
matched as apimachinery's ErrorMatcher does (type, origin, detail substring).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tree_sitter
import tree_sitter_go

from kgen.runtime.intstr import IntOrString, get_scaled_value_from_int_or_percent
from kgen.runtime.quantity import BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, Quantity
from kgen.runtime.validation import content, formats, network
from kgen.runtime.validation.field import ErrorType, FieldError
from kgen.runtime.validation.field import Path as FieldPath
from kgen.source.tags import unquote_go


class _Unreadable(Exception):
    """A Go expression this reader does not evaluate."""


def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_go.language()))


def _text(node: tree_sitter.Node) -> str:
    return node.text.decode()


def _evaluate(node: tree_sitter.Node) -> Any:
    """The value of a literal Go expression: strings, integers, `+`, `-x`, strings.Repeat,
    math.MaxInt32 / MaxInt64, `string(rune(n))`."""
    kind = node.type
    if kind == "interpreted_string_literal":
        return unquote_go(_text(node)[1:-1])
    if kind == "raw_string_literal":
        return _text(node)[1:-1]
    if kind == "int_literal":
        from kgen.source.parser import go_int

        return go_int(_text(node))
    if kind == "parenthesized_expression":
        return _evaluate(node.named_children[0])
    if kind == "unary_expression" and _text(node.child_by_field_name("operator")) == "-":
        return -_evaluate(node.child_by_field_name("operand"))
    if kind == "binary_expression":
        operator = _text(node.child_by_field_name("operator"))
        left, right = _evaluate(node.child_by_field_name("left")), _evaluate(node.child_by_field_name("right"))
        if operator == "+":
            return left + right
        if operator == "-" and isinstance(left, int):
            return left - right
        raise _Unreadable(_text(node))
    if kind == "selector_expression":
        constants = {"math.MaxInt32": 2**31 - 1, "math.MaxInt64": 2**63 - 1, "math.MinInt32": -(2**31)}
        if _text(node) in constants:
            return constants[_text(node)]
    if kind == "call_expression":
        function = _text(node.child_by_field_name("function"))
        args = [c for c in node.child_by_field_name("arguments").named_children if c.type != "comment"]
        if function == "strings.Repeat" and len(args) == 2:
            return _evaluate(args[0]) * _evaluate(args[1])
        if function in ("string", "rune") and len(args) == 1:
            value = _evaluate(args[0])
            return chr(value) if isinstance(value, int) else value
    raise _Unreadable(_text(node))


def _walk(node: tree_sitter.Node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


@dataclass
class Area:
    """The cases of one check: passed, failed (with what happened), unreadable."""

    name: str
    passed: int = 0
    failed: list[str] = field(default_factory=list)
    skipped: int = 0

    @property
    def checked(self) -> int:
        return self.passed + len(self.failed)


# -- good and bad value lists -----------------------------------------------------------------

_SINGLE: dict[str, Callable[[Any], list[str]]] = {
    "IsDNS1123Label": content.is_dns1123_label,
    "IsDNS1123Subdomain": content.is_dns1123_subdomain,
    "IsDNS1123SubdomainCaseless": content.is_dns1123_subdomain_caseless,
    "IsDNS1123SubdomainWithUnderscore": content.is_dns1123_subdomain_with_underscore,
    "IsDNS1035Label": content.is_dns1035_label,
    "IsWildcardDNS1123Subdomain": content.is_wildcard_dns1123_subdomain,
    "IsQualifiedName": content.is_label_key,
    "IsLabelKey": content.is_label_key,
    "IsValidLabelValue": content.is_label_value,
    "IsLabelValue": content.is_label_value,
    "IsCIdentifier": content.is_c_identifier,
    "IsDecimalInteger": content.is_decimal_integer,
    "IsPathSegmentName": content.is_path_segment_name,
    "IsValidPortNum": content.is_valid_port_num,
    "IsValidGroupID": content.is_valid_group_id,
    "IsValidUserID": content.is_valid_user_id,
    "IsValidPortName": content.is_valid_port_name,
    "IsValidPercent": content.is_valid_percent,
    "IsHTTPHeaderName": content.is_http_header_name,
    "IsEnvVarName": content.is_env_var_name,
    "IsRelaxedEnvVarName": content.is_relaxed_env_var_name,
    "IsConfigMapKey": content.is_config_map_key,
    "IsFullyQualifiedName": content.is_fully_qualified_name,
    "IsFullyQualifiedDomainName": content.is_fully_qualified_domain_name,
    "IsDomainPrefixedPath": content.is_domain_prefixed_path,
    "IsDomainPrefixedKey": content.is_domain_prefixed_key,
}


def value_lists(source: bytes, areas: dict[str, Area]) -> None:
    """The `for _, v := range list { if errs := IsX(v); len(errs) ... }` loops of a test file."""
    root = _parser().parse(source).root_node
    for function in (n for n in root.named_children if n.type == "function_declaration"):
        lists: dict[str, tree_sitter.Node] = {}
        for node in _walk(function):
            if node.type == "short_var_declaration":
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                values = right.named_children[0] if right is not None and right.named_children else None
                if left is not None and values is not None and values.type == "composite_literal":
                    lists[_text(left.named_children[0])] = values
            if node.type != "for_statement":
                continue
            clause = next((c for c in node.named_children if c.type == "range_clause"), None)
            if clause is None:
                continue
            target = _text(clause.child_by_field_name("right"))
            variables = [_text(c) for c in clause.child_by_field_name("left").named_children]
            if target not in lists or len(variables) != 2:
                continue
            call = _check_call(node.child_by_field_name("body"), variables[1])
            if call is None:
                continue
            name, wants_errors = call
            check = _SINGLE.get(name)
            area = areas.setdefault(name, Area(name))
            body = lists[target].child_by_field_name("body")
            for item in body.named_children if body is not None else ():
                if item.type == "comment":
                    continue
                element = item.named_children[0] if item.type == "literal_element" else item
                try:
                    value = _evaluate(element)
                except _Unreadable:
                    area.skipped += 1
                    continue
                if check is None:
                    area.skipped += 1
                    continue
                errors = check(value)
                if bool(errors) == wants_errors:
                    area.passed += 1
                else:
                    area.failed.append(f"{value!r}: kgen says {errors or 'valid'}")


def _check_call(body: tree_sitter.Node | None, variable: str) -> tuple[str, bool] | None:
    """(function name, whether the test wants errors) of `if errs := F([path,] v); len(errs) != 0`."""
    if body is None:
        return None
    for node in _walk(body):
        if node.type != "if_statement":
            continue
        condition = _text(node.child_by_field_name("condition")).replace(" ", "")
        initializer = node.child_by_field_name("initializer")
        call = None
        for sub in _walk(initializer or node.child_by_field_name("condition")):
            if sub.type == "call_expression":
                args = [c for c in sub.child_by_field_name("arguments").named_children if c.type != "comment"]
                if args and _text(args[-1]) == variable:
                    call = _text(sub.child_by_field_name("function")).rsplit(".", 1)[-1]
                    break
        if call is None:
            continue
        if condition.endswith("!=0") or condition.endswith(">0"):
            return call, False
        if condition.endswith("==0"):
            return call, True
    return None


# -- IP and CIDR tables -------------------------------------------------------------------------


def _keyed_rows(function: tree_sitter.Node) -> list[dict[str, Any]]:
    """The keyed struct literals of a test function's table: `{in: "...", err: "..."}`."""
    rows = []
    for node in _walk(function):
        if node.type != "literal_value":
            continue
        row: dict[str, Any] = {}
        for element in node.named_children:
            if element.type != "keyed_element":
                continue
            key, value = element.named_children[0], element.named_children[-1]
            try:
                row[_text(key)] = _evaluate(value.named_children[0] if value.type == "literal_element" else value)
            except _Unreadable:
                continue
        if "in" in row:
            rows.append(row)
    return rows


def _detail(errors: list[str], wanted: str) -> bool:
    """apimachinery's IP tests: no error when none is wanted, else one that contains it."""
    return not errors if not wanted else len(errors) == 1 and wanted in errors[0]


def ip_tables(source: bytes, areas: dict[str, Area]) -> None:
    root = _parser().parse(source).root_node
    checks = {
        "TestIsValidIP": [("IsValidIP", "err", network.is_valid_ip),
                          ("IsValidIPForLegacyField", "legacyErr", lambda v: network.is_valid_ip_for_legacy_field(v, False)),
                          ("IsValidIPForLegacyField(strict)", "legacyStrictErr", lambda v: network.is_valid_ip_for_legacy_field(v, True))],
        "TestIsValidCIDR": [("IsValidCIDR", "err", network.is_valid_cidr),
                            ("IsValidCIDRForLegacyField", "legacyErr", lambda v: network.is_valid_cidr_for_legacy_field(v, False)),
                            ("IsValidCIDRForLegacyField(strict)", "legacyStrictErr", lambda v: network.is_valid_cidr_for_legacy_field(v, True))],
        "TestIsValidInterfaceAddress": [("IsValidInterfaceAddress", "err", network.is_valid_interface_address)],
    }  # fmt: skip
    for function in (n for n in root.named_children if n.type == "function_declaration"):
        name = _text(function.child_by_field_name("name"))
        for check_name, key, check in checks.get(name, ()):
            area = areas.setdefault(check_name, Area(check_name))
            for row in _keyed_rows(function):
                errors = check(row["in"])
                if _detail(errors, row.get(key, "")):
                    area.passed += 1
                else:
                    area.failed.append(f"{row['in']!r}: wanted {row.get(key) or 'valid'!r}, kgen says {errors or 'valid'}")


# -- quantities ---------------------------------------------------------------------------------


def quantity_tables(source: bytes, areas: dict[str, Area]) -> None:
    root = _parser().parse(source).root_node
    area = areas.setdefault("Quantity parse and canonical form", Area("Quantity parse and canonical form"))
    for function in (n for n in root.named_children if n.type == "function_declaration"):
        if _text(function.child_by_field_name("name")) != "TestQuantityParseEmit":
            continue
        for node in _walk(function):
            if node.type != "literal_value" or len(node.named_children) != 2:
                continue
            try:
                given, expected = (_evaluate(c.named_children[0] if c.type == "literal_element" else c) for c in node.named_children)
            except _Unreadable:
                area.skipped += 1
                continue
            if not (isinstance(given, str) and isinstance(expected, str)):
                continue
            for sign in ("", "-"):
                try:
                    got = Quantity(sign + given).to_json()
                except ValueError as err:
                    got = f"error: {err}"
                want = "0" if sign and expected == "0" else sign + expected
                if got == want:
                    area.passed += 1
                else:
                    area.failed.append(f"{sign + given!r}: wanted {want!r}, kgen writes {got!r}")


_FORMATS_DECLARED = {"DecimalSI": DECIMAL_SI, "BinarySI": BINARY_SI, "DecimalExponent": DECIMAL_EXPONENT}
_SCALES = {"Nano": -9, "Micro": -6, "Milli": -3, "Kilo": 3, "Mega": 6, "Giga": 9, "Tera": 12, "Peta": 15, "Exa": 18}


def _quantity_literal(node: tree_sitter.Node) -> Quantity:
    """`decQuantity(m, e, Format)` / `intQuantity(m, e, Format)` of quantity_test.go: m x 10**e."""
    if node.type != "call_expression":
        raise _Unreadable(_text(node))
    function = _text(node.child_by_field_name("function"))
    args = [c for c in node.child_by_field_name("arguments").named_children if c.type != "comment"]
    if function not in ("decQuantity", "intQuantity") or len(args) != 3:
        raise _Unreadable(_text(node))
    fmt = _FORMATS_DECLARED.get(_text(args[2]))
    if fmt is None:
        raise _Unreadable(_text(node))
    return Quantity.new_scaled(_int_expression(args[0]), _scale(args[1]), fmt)


def _int_expression(node: tree_sitter.Node) -> int:
    if node.type == "binary_expression":
        operator = _text(node.child_by_field_name("operator"))
        left, right = _int_expression(node.child_by_field_name("left")), _int_expression(node.child_by_field_name("right"))
        operations = {"*": left * right, "+": left + right, "-": left - right, "<<": left << right if right >= 0 else 0}
        if operator in operations:
            return operations[operator]
    value = _evaluate(node)
    if not isinstance(value, int):
        raise _Unreadable(_text(node))
    return value


def _scale(node: tree_sitter.Node) -> int:
    text = _text(node)
    if text in _SCALES:
        return _SCALES[text]
    return _int_expression(node)


def _function(root: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
    for node in root.named_children:
        if node.type == "function_declaration" and _text(node.child_by_field_name("name")) == name:
            return node
    return None


def _positional_rows(function: tree_sitter.Node, width: int) -> list[list[tree_sitter.Node]]:
    """The unkeyed rows `{a, b, c}` of a test function's tables, as nodes."""
    rows = []
    for node in _walk(function):
        if node.type != "literal_value" or len(node.named_children) != width:
            continue
        elements = [c.named_children[0] if c.type == "literal_element" else c for c in node.named_children]
        if any(c.type in ("keyed_element", "comment") for c in node.named_children):
            continue
        rows.append(elements)
    return rows


def _parse_or_error(text: str) -> Quantity | str:
    try:
        return Quantity(text)
    except ValueError as err:
        return f"error: {err}"


def quantity_parse_tables(source: bytes, areas: dict[str, Area]) -> None:
    root = _parser().parse(source).root_node
    parse = areas.setdefault("Quantity parse: value and format", Area("Quantity parse: value and format"))
    function = _function(root, "TestQuantityParse")
    if function is not None:
        for given_node, expected_node in _positional_rows(function, 2):
            try:
                given, expected = _evaluate(given_node), _quantity_literal(expected_node)
            except _Unreadable:
                parse.skipped += 1
                continue
            for sign in ("", "-", "+"):
                text = sign + given.lstrip() if sign == "+" else sign + given
                got = _parse_or_error(text)
                want_value = -expected.value if sign == "-" else expected.value
                if isinstance(got, Quantity) and got.value == want_value and got.format == expected.format:
                    parse.passed += 1
                else:
                    shown = got if isinstance(got, str) else f"{got.value} {got.format}"
                    parse.failed.append(f"{text!r}: wanted {want_value} {expected.format}, kgen has {shown}")
        invalid = areas.setdefault("Quantity parse: rejected inputs", Area("Quantity parse: rejected inputs"))
        for node in _walk(function):
            if node.type == "short_var_declaration" and _text(node.child_by_field_name("left")) == "invalid":
                body = node.child_by_field_name("right").named_children[0].child_by_field_name("body")
                for item in body.named_children:
                    if item.type == "comment":
                        continue
                    text = _evaluate(item.named_children[0] if item.type == "literal_element" else item)
                    got = _parse_or_error(text)
                    if isinstance(got, str):
                        invalid.passed += 1
                    else:
                        invalid.failed.append(f"{text!r}: kgen parses it as {got}")
        if isinstance(_parse_or_error(""), str):
            invalid.passed += 1
        else:
            invalid.failed.append("'': kgen parses it")
    string = areas.setdefault("Quantity canonical string", Area("Quantity canonical string"))
    function = _function(root, "TestQuantityString")
    if function is not None:
        for quantity_node, expect_node, alternate_node in _positional_rows(function, 3):
            try:
                quantity, expect, alternate = _quantity_literal(quantity_node), _evaluate(expect_node), _evaluate(alternate_node)
            except _Unreadable:
                string.skipped += 1
                continue
            got = str(quantity)
            if got == expect:
                string.passed += 1
            else:
                string.failed.append(f"{quantity.value} {quantity.format}: wanted {expect!r}, kgen writes {got!r}")
            if alternate:
                parsed = _parse_or_error(alternate)
                if isinstance(parsed, Quantity) and parsed.value == quantity.value:
                    string.passed += 1
                else:
                    string.failed.append(f"{alternate!r}: wanted the value {quantity.value}, kgen has {parsed}")
    round_up = areas.setdefault("Quantity RoundUp", Area("Quantity RoundUp"))
    function = _function(root, "TestQuantityRoundUp")
    if function is not None:
        for given_node, scale_node, expect_node, ok_node in _positional_rows(function, 4):
            try:
                given, scale, expected = _evaluate(given_node), _scale(scale_node), _quantity_literal(expect_node)
            except _Unreadable:
                round_up.skipped += 1
                continue
            rounded, exact = Quantity(given).round_up(scale)
            if rounded.value == expected.value and exact == (_text(ok_node) == "true"):
                round_up.passed += 1
            else:
                round_up.failed.append(f"{given!r} to 1e{scale}: wanted {expected.value} {_text(ok_node)}, kgen has {rounded.value} {exact}")


def _intstr_literal(node: tree_sitter.Node) -> IntOrString:
    """`FromInt32(n)`, `FromString("s")`, `IntOrString{Type: Int, IntVal: n}` of intstr_test.go."""
    if node.type == "call_expression":
        function = _text(node.child_by_field_name("function"))
        args = [c for c in node.child_by_field_name("arguments").named_children if c.type != "comment"]
        if function in ("FromInt32", "FromInt", "FromString") and len(args) == 1:
            return IntOrString(_evaluate(args[0]))
    if node.type == "composite_literal":
        fields = {}
        for element in node.child_by_field_name("body").named_children:
            if element.type == "keyed_element":
                key, value = element.named_children[0], element.named_children[-1]
                fields[_text(key)] = value.named_children[0] if value.type == "literal_element" else value
        if "StrVal" in fields:
            return IntOrString(_evaluate(fields["StrVal"]))
        return IntOrString(_evaluate(fields["IntVal"]) if "IntVal" in fields else 0)
    raise _Unreadable(_text(node))


def _keyed_nodes(function: tree_sitter.Node, required: str) -> list[dict[str, tree_sitter.Node]]:
    rows = []
    for node in _walk(function):
        if node.type != "literal_value":
            continue
        row = {}
        for element in node.named_children:
            if element.type == "keyed_element":
                key, value = element.named_children[0], element.named_children[-1]
                row[_text(key)] = value.named_children[0] if value.type == "literal_element" else value
        if required in row:
            rows.append(row)
    return rows


def intstr_tables(source: bytes, areas: dict[str, Area]) -> None:
    root = _parser().parse(source).root_node
    parse = areas.setdefault("IntOrString Parse", Area("IntOrString Parse"))
    function = _function(root, "TestParse")
    if function is not None:
        for row in _keyed_nodes(function, "input"):
            given, expected = _evaluate(row["input"]), _intstr_literal(row["output"])
            got = IntOrString.parse(given)
            if got == expected:
                parse.passed += 1
            else:
                parse.failed.append(f"{given!r}: wanted {expected!r}, kgen has {got!r}")
    scaled = areas.setdefault("IntOrString scaled value", Area("IntOrString scaled value"))
    function = _function(root, "TestGetIntFromIntOrPercent")
    if function is not None:
        for row in _keyed_nodes(function, "input"):
            value = _intstr_literal(row["input"])
            total = _evaluate(row["total"]) if "total" in row else 0
            up = "roundUp" in row and _text(row["roundUp"]) == "true"
            wants_error = "expectErr" in row and _text(row["expectErr"]) == "true"
            try:
                got: int | str = get_scaled_value_from_int_or_percent(value, total, up)
            except ValueError as err:
                got = f"error: {err}"
            ok = isinstance(got, str) if wants_error else got == _evaluate(row["expectVal"])
            if ok:
                scaled.passed += 1
            else:
                scaled.failed.append(f"{value!r} of {total}: kgen has {got!r}")
    if _function(root, "TestGetValueFromIntOrPercentNil") is not None:
        try:
            get_scaled_value_from_int_or_percent(None, 0, False)
            scaled.failed.append("nil: kgen returns a value")
        except ValueError:
            scaled.passed += 1


# -- validation-gen's formats (api/validate/strfmt_test.go) ------------------------------------

_STRFMT_TESTS = {
    "TestShortName": "k8s-short-name",
    "TestLongName": "k8s-long-name",
    "TestLabelKey": "k8s-label-key",
    "TestPrefixedLabelKey": "k8s-prefixed-label-key",
    "TestK8sUUID": "k8s-uuid",
    "TestLabelValue": "k8s-label-value",
    "TestPathSegmentName": "k8s-path-segment-name",
    "TestLongNameCaseless": "k8s-long-name-caseless",
    "TestResourcePoolName": "k8s-resource-pool-name",
    "TestExtendedResourceName": "k8s-extended-resource-name",
    "TestResourceFullyQualifiedName": "k8s-resource-fully-qualified-name",
}
_ERROR_TYPES = {"Invalid": ErrorType.INVALID, "TooLong": ErrorType.TOO_LONG, "Required": ErrorType.REQUIRED}


def _wanted_error(node: tree_sitter.Node) -> tuple[ErrorType, str, str]:
    """(type, detail, origin) of `field.Invalid(path, value, "detail").WithOrigin("origin")`."""
    origin = ""
    while node.type == "call_expression":
        function = node.child_by_field_name("function")
        args = [c for c in node.child_by_field_name("arguments").named_children if c.type != "comment"]
        if function.type == "selector_expression" and _text(function.child_by_field_name("field")) == "WithOrigin":
            origin = _evaluate(args[0])
            node = function.child_by_field_name("operand")
            continue
        name = _text(function).removeprefix("field.")
        if name == "Invalid":
            return ErrorType.INVALID, _evaluate(args[2]), origin
        if name == "TooLong":
            limit = _evaluate(args[2])
            return ErrorType.TOO_LONG, f"may not be more than {limit} {'byte' if limit == 1 else 'bytes'}", origin
        break
    raise _Unreadable(_text(node))


def _errors_match(got: list[FieldError], wanted: list[tuple[ErrorType, str, str]]) -> bool:
    """ErrorMatcher{}.ByType().ByOrigin().ByDetailSubstring().Test: a wanted error with an
    origin takes every error it matches, one without takes one; nothing may be left over."""
    remaining = list(got)
    for kind, detail, origin in wanted:
        matches = [e for e in remaining if e.type == kind and e.origin == origin and detail in e.detail]
        if not matches:
            return False
        for match in matches if origin else matches[:1]:
            remaining.remove(match)
    return not remaining


def strfmt_tables(source: bytes, areas: dict[str, Area]) -> None:
    root = _parser().parse(source).root_node
    for test, format_name in _STRFMT_TESTS.items():
        function = _function(root, test)
        if function is None:
            continue
        area = areas.setdefault(f"format={format_name}", Area(f"format={format_name}"))
        validate = formats.VALIDATORS[format_name]
        for row in _keyed_nodes(function, "input"):
            if "name" in row and _text(row["name"]) == '"nil value"':
                continue  # the test passes no value at all
            try:
                given = _evaluate(row["input"])
                wanted = []
                if "wantErrs" in row and row["wantErrs"].type == "composite_literal":
                    for item in row["wantErrs"].child_by_field_name("body").named_children:
                        if item.type != "comment":
                            wanted.append(_wanted_error(item.named_children[0] if item.type == "literal_element" else item))
            except _Unreadable:
                area.skipped += 1
                continue
            got = validate(FieldPath.root("test"), given)
            if _errors_match(got, wanted):
                area.passed += 1
            else:
                area.failed.append(f"{given!r}: wanted {wanted or 'valid'}, kgen says {[str(e) for e in got] or 'valid'}")


def run(apimachinery: Path) -> dict[str, Area]:
    areas: dict[str, Area] = {}
    for relative in ("pkg/util/validation/validation_test.go", "pkg/api/validate/content/dns_test.go",
                     "pkg/api/validate/content/kube_test.go", "pkg/api/validate/content/identifier_test.go",
                     "pkg/api/validate/content/decimal_int_test.go", "pkg/api/validate/content/path_test.go"):  # fmt: skip
        path = apimachinery / relative
        if path.is_file():
            value_lists(path.read_bytes(), areas)
    ip_test = apimachinery / "pkg/util/validation/ip_test.go"
    if ip_test.is_file():
        ip_tables(ip_test.read_bytes(), areas)
    quantity_test = apimachinery / "pkg/api/resource/quantity_test.go"
    if quantity_test.is_file():
        quantity_tables(quantity_test.read_bytes(), areas)
        quantity_parse_tables(quantity_test.read_bytes(), areas)
    intstr_test = apimachinery / "pkg/util/intstr/intstr_test.go"
    if intstr_test.is_file():
        intstr_tables(intstr_test.read_bytes(), areas)
    strfmt_test = apimachinery / "pkg/api/validate/strfmt_test.go"
    if strfmt_test.is_file():
        strfmt_tables(strfmt_test.read_bytes(), areas)
    return areas


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.conformance.apimachinery", description=__doc__)
    parser.add_argument("--apimachinery", type=Path, required=True, help="a checkout of k8s.io/apimachinery")
    parser.add_argument("--details", action="store_true", help="list every failed case")
    args = parser.parse_args(argv)
    areas = run(args.apimachinery)
    total = Counter()
    for name, area in sorted(areas.items()):
        print(f"  {name:<40} {area.passed}/{area.checked} passed" + (f", {area.skipped} not read" if area.skipped else ""))
        total.update(passed=area.passed, checked=area.checked, skipped=area.skipped)
        if args.details:
            for failure in area.failed:
                print(f"      {failure}")
    print(f"  {'all':<40} {total['passed']}/{total['checked']} passed, {total['skipped']} not read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
