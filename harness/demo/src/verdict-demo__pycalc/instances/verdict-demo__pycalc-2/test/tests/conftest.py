import pytest

from pycalc import evaluate


@pytest.fixture
def calc():
    """The evaluator under test."""
    return evaluate


@pytest.fixture
def assert_close():
    """Compares floats with a relative tolerance."""

    def check(actual, expected):
        assert actual == pytest.approx(expected, rel=1e-9)

    return check
