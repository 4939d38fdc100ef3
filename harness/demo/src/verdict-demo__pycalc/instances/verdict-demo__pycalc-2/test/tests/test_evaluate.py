import pytest

from pycalc import CalcError


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("1 + 2", 3),
        ("5 - 3", 2),
        ("2 * 3 + 4", 10),
        ("2 * (3 + 4)", 14),
        ("10 / 4", 2.5),
        ("-3 + 5", 2),
        ("--3", 3),
        ("+7", 7),
        ("1.5 * 2", 3.0),
        ("8 - 2 - 1", 5),
        ("((1))", 1),
    ],
)
def test_evaluate(calc, expr, expected):
    assert calc(expr) == expected


@pytest.mark.parametrize("expr", ["1 +", "(1 + 2", "1 2", "*3", ")"])
def test_malformed(calc, expr):
    with pytest.raises(CalcError):
        calc(expr)


def test_division_by_zero(calc):
    with pytest.raises(CalcError, match="division by zero"):
        calc("1 / (2 - 2)")


def test_result_types(calc):
    assert isinstance(calc("6 / 3"), float)
    assert isinstance(calc("6 * 3"), int)


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("2 ** 3", 8),
        ("2 ** 3 ** 2", 512),
        ("-2 ** 2", -4),
        ("2 ** -1", 0.5),
    ],
)
def test_power(calc, assert_close, expr, expected):
    assert_close(calc(expr), expected)


def test_power_precedence(calc):
    assert calc("3 * 2 ** 2") == 12


@pytest.mark.xfail(reason="real cube roots of negative numbers are not supported", strict=True)
def test_power_negative_base_fractional_exponent(calc):
    assert calc("(-8) ** (1 / 3)") == -2
