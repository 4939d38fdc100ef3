import pytest

from textkit import wrap


def test_short_text_is_one_line():
    assert wrap("hello world", 20) == ["hello world"]


def test_wraps_at_width():
    assert wrap("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]


def test_exact_fit():
    assert wrap("abc def", 7) == ["abc def"]


def test_collapses_whitespace():
    assert wrap("a \n b\tc", 80) == ["a b c"]


def test_empty():
    assert wrap("", 10) == []


def test_rejects_zero_width():
    with pytest.raises(ValueError):
        wrap("abc", 0)


@pytest.mark.xfail(reason="hyphenation is not implemented", strict=True)
def test_hyphenates_long_words():
    assert wrap("internationalization", 10) == ["internati-", "onalizati-", "on"]
