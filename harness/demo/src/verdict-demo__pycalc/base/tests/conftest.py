import pytest

from pycalc import evaluate


@pytest.fixture
def calc():
    """The evaluator under test."""
    return evaluate
