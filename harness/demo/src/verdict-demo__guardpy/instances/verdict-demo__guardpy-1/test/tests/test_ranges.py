import json
from pathlib import Path

import pytest

import guardpy
from guardpy import clamp, parse_range, within

HERE = Path(__file__).resolve().parent


def test_simple_range():
    assert parse_range("1..5") == (1, 5)


def test_negative_bounds():
    assert parse_range("-3..-1") == (-3, -1)


def test_reversed_range_raises():
    with pytest.raises(ValueError):
        parse_range("5..1")


def test_reversed_range_message():
    with pytest.raises(ValueError, match="reversed range"):
        parse_range("3..-3")


def test_within_and_clamp():
    assert within(3, (1, 5))
    assert clamp(9, (1, 5)) == 5


def test_generated_cases():
    # Written by the install step (tools/make_cases.py): it must survive into the test run.
    cases = json.loads((HERE / "generated" / "cases.json").read_text())
    for case in cases:
        assert clamp(case["value"], parse_range(case["range"])) == case["clamped"]


def test_version():
    # src/guardpy/_version.py is tracked although .gitignore matches it.
    assert guardpy.__version__ == "0.1.0"
