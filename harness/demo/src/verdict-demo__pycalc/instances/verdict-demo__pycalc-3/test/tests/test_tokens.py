import pytest

from pycalc import CalcError, Token, tokenize


def test_tokenize_simple():
    assert tokenize("1+2") == [Token("num", "1"), Token("op", "+"), Token("num", "2")]


def test_tokenize_whitespace():
    assert tokenize("  12 *\t3 ") == [Token("num", "12"), Token("op", "*"), Token("num", "3")]


def test_tokenize_decimal():
    tokens = tokenize("0.5 + .25")
    assert [t.text for t in tokens] == ["0.5", "+", ".25"]
    assert tokens[0].value + tokens[2].value == 0.75


@pytest.mark.parametrize("text, value", [("7", 7), ("0.5", 0.5), (".25", 0.25), ("10.", 10.0)])
def test_number_value(text, value):
    (token,) = tokenize(text)
    assert token.kind == "num"
    assert token.value == value


@pytest.mark.parametrize("expr", ["1..2", "3 $ 4", "."])
def test_tokenize_rejects(expr):
    with pytest.raises(CalcError):
        tokenize(expr)


def test_empty():
    assert tokenize("") == []


@pytest.mark.parametrize(
    "text, value",
    [
        ("1e3", 1000.0),
        ("2.5e-2", 0.025),
        ("6.02E+23", 6.02e23),
        (".5e1", 5.0),
    ],
)
def test_scientific_notation(text, value):
    (token,) = tokenize(text)
    assert token.value == value


def test_scientific_in_expression():
    assert [t.text for t in tokenize("1e-3*2")] == ["1e-3", "*", "2"]


@pytest.mark.parametrize("expr", ["1e", "2e+", "3E-x"])
def test_incomplete_exponent_rejected(expr):
    with pytest.raises(CalcError):
        tokenize(expr)
