"""The Kubernetes CEL libraries as the API server's CEL environment has them at 1.36: lists,
strings, regex, URLs, IP and CIDR, quantity, semver, format, sets and optional values."""

from __future__ import annotations

import pytest

from kgen.runtime.validation.cel import Rule, compile_error
from kgen.runtime.validation.field import Path


def evaluate(expression: str, self_value=None):
    """The value of a CEL expression, as a rule sees it (`self` bound)."""
    rule = Rule(expression)
    from kgen.runtime.validation.cel import _context

    context = _context()
    context.update({"self": self_value})
    return rule.program.execute(context)


@pytest.mark.parametrize(
    "expression, expected",
    [
        # lists (Kubernetes' and cel-go's ext lists)
        ("[1, 2, 3].isSorted() && ![2, 1].isSorted()", True),
        ("[1, 2, 3].sum()", 6),
        ("[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3", True),
        ("[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2 && [1].indexOf(5) == -1", True),
        ("[1, 2, 3, 4].slice(1, 3)", [2, 3]),
        ("[[1], [2, [3]]].flatten()", [1, 2, [3]]),
        ("[1, 2, 1, 3].distinct()", [1, 2, 3]),
        ("[3, 1, 2].sort()", [1, 2, 3]),
        ("lists.range(3)", [0, 1, 2]),
        ("[1, 2].reverse()", [2, 1]),
        # strings (cel-go's ext strings, version 2)
        ("'hello'.charAt(1)", "e"),
        ("'hello'.indexOf('l') == 2 && 'hello'.lastIndexOf('l') == 3 && 'hello'.indexOf('l', 3) == 3", True),
        ("'TacoCat'.lowerAscii() + 'TacoCat'.upperAscii()", "tacocatTACOCAT"),
        ("'a.b.c'.replace('.', '/', 1)", "a/b.c"),
        ("'a.b.c'.split('.')", ["a", "b", "c"]),
        ("'a.b.c'.split('.', 2)", ["a", "b.c"]),
        ("'hello'.substring(1, 3)", "el"),
        ("'  x \\t'.trim()", "x"),
        ("['a', 'b'].join('-')", "a-b"),
        ("strings.quote('say \"hi\"\\n')", '"say \\"hi\\"\\n"'),
        ("'%s is %d years, %.2f'.format(['Ann', 30, 1.5])", "Ann is 30 years, 1.50"),
        ("'abc'.reverse()", "cba"),
        # regex (RE2)
        ("'abc123def456'.find('[0-9]+')", "123"),
        ("'abc123def456'.findAll('[0-9]+')", ["123", "456"]),
        ("'abc123def456'.findAll('[0-9]+', 1)", ["123"]),
        ("'baaac'.findAll('a*')", ["", "aaa", ""]),  # as Go's FindAllString: no empty match right after a match
        (r"'\u0661'.matches('^\\d$') || matches('a\n', '^a$')", False),  # RE2: ASCII \d, $ at the very end
        ("'x1'.matches('^[[:alpha:]][[:digit:]]$')", True),
        # URLs
        ("url('https://user@example.com:8443/a%20b?x=1&x=2').getHostname()", "example.com"),
        ("url('https://example.com:8443/a').getPort() + url('https://example.com:8443/a').getScheme()", "8443https"),
        ("url('https://[::1]:80/').getHostname() + url('https://[::1]:80/').getHost()", "::1[::1]:80"),
        ("url('https://example.com/p?x=1&x=2').getQuery()", {"x": ["1", "2"]}),
        ("url('https://example.com/a%20b').getEscapedPath()", "/a%20b"),
        ("isURL('https://example.com') && isURL('/relative/path') && !isURL('not a url') && !isURL('https://a.com/#frag')", True),
        # IP and CIDR
        ("isIP('1.2.3.4') && isIP('::1') && !isIP('1.2.3') && !isIP('fe80::1%eth0')", True),
        ("ip('1.2.3.4').family() == 4 && ip('2001:db8::1').family() == 6", True),
        ("ip('127.0.0.1').isLoopback() && ip('0.0.0.0').isUnspecified() && ip('8.8.8.8').isGlobalUnicast()", True),
        ("ip('169.254.1.1').isLinkLocalUnicast() && ip('224.0.0.1').isLinkLocalMulticast()", True),
        ("ip('::1') == ip('0:0::1') && ip('2001:db8:0::1') == ip('2001:db8::1') && ip('::1') != ip('::2')", True),
        ("ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:db8:0::1')", True),
        ("cidr('10.0.0.0/8').containsIP('10.1.2.3') && !cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))", True),
        ("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && !cidr('10.0.0.0/16').containsCIDR(cidr('10.0.0.0/8'))", True),
        ("cidr('10.1.2.3/8').masked().string() + ' ' + cidr('10.1.2.3/8').ip().string()", "10.0.0.0/8 10.1.2.3"),
        ("cidr('2001:db8::/32').prefixLength()", 32),
        ("isCIDR('10.0.0.0/8') && !isCIDR('10.0.0.0') && !isCIDR('10.0.0.0/33')", True),
        # quantity
        ("quantity('1Gi').isGreaterThan(quantity('1000Mi')) && quantity('1').isLessThan(quantity('1001m'))", True),
        ("quantity('1500m').compareTo(quantity('1.5')) == 0 && quantity('1') == quantity('1000m')", True),
        ("quantity('1Mi').add(quantity('1Mi')).isInteger() && quantity('2Mi').asInteger() == 2097152", True),
        ("quantity('5').sub(3).asInteger() == 2 && quantity('-1').sign() == -1 && quantity('0').sign() == 0", True),
        # quantities as large as apimachinery allows add without overflowing
        ("quantity('1e999999999').add(quantity('1e999999999')).isGreaterThan(quantity('1e999999999'))", True),
        ("isQuantity('1.5Gi') && !isQuantity('1.5 Gi') && quantity('250m').asApproximateFloat() == 0.25", True),
        # semver
        ("semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3", True),
        ("semver('1.2.3').isLessThan(semver('1.10.0')) && semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", True),
        ("semver('1.0.0-alpha.1').compareTo(semver('1.0.0-alpha.beta')) == -1", True),
        ("isSemver('1.2.3') && !isSemver('v1.2') && isSemver('v1.2', true) && semver('v01.2', true).minor() == 2", True),
        # format
        ("format.dns1123Label().validate('my-name').hasValue()", False),
        ("format.dns1123Label().validate('My_Name').hasValue()", True),
        ("format.named('dns1123Subdomain').hasValue() && !format.named('nope').hasValue()", True),
        ("format.named('labelValue').value().validate('x').hasValue()", False),
        ("format.dns1035Label().validate('1abc').value().size() > 0", True),
        # sets
        ("sets.contains([1, 2, 3], [1, 2]) && !sets.contains([1], [2])", True),
        ("sets.equivalent([1, 2], [2, 1, 1]) && sets.intersects([1, 2], [2, 3])", True),
        # optional values
        ("optional.of(1).hasValue() && !optional.none().hasValue() && optional.none().orValue(5) == 5", True),
    ],
)
def test_kubernetes_cel_functions(expression, expected):
    assert evaluate(expression) == expected


@pytest.mark.parametrize(
    "expression",
    ["ip('::ffff:1.2.3.4')", "ip('1.2.3')", "cidr('10.0.0.0')", "quantity('1 Gi')", "semver('1.2')", "url('no scheme')", "'abc'.charAt(9)"],
)
def test_bad_arguments_are_evaluation_errors_not_crashes(expression):
    with pytest.raises(Exception):
        evaluate(expression)


def test_a_rule_reports_a_failed_format_check_as_its_message():
    rule = Rule("!format.dns1123Label().validate(self).hasValue()", message_expression="format.dns1123Label().validate(self).value().join('; ')", json_type="string")
    errors = []
    rule.check("Bad_Name", None, Path.root("spec").child("name"), errors)
    assert len(errors) == 1 and "a lowercase RFC 1123 label" in str(errors[0])


def test_gateway_apis_rule_compiles_and_judges():
    rule = "self.all(h, !isIP(h))"
    assert compile_error(rule) is None
    assert evaluate(rule, ["example.com"]) is True
    assert evaluate(rule, ["example.com", "10.0.0.1"]) is False
