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
        ("[1 + 2] * 3", 9),
        ("[10 - 4] / 2", 3.0),
        ("2 * [3 - [1 + 1]]", 2),
        ("[(1 + 1) * 2]", 4),
    ],
)
def test_brackets(calc, expr, expected):
    assert calc(expr) == expected


@pytest.mark.parametrize("expr", ["[1 + 2)", "(1 + 2]", "[1"])
def test_mismatched_brackets(calc, expr):
    with pytest.raises(CalcError):
        calc(expr)
