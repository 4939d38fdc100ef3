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


@pytest.mark.parametrize(
    "text, width, expected",
    [
        ("abcdefghij", 4, "abcd|efgh|ij"),
        ("see abcdefghij", 4, "see|abcd|efgh|ij"),
        ("a bcdefgh i", 3, "a|bcd|efg|h i"),
    ],
)
def test_breaks_long_words(text, width, expected):
    assert "|".join(wrap(text, width)) == expected


def test_keeps_long_words_when_asked():
    assert wrap("see abcdefghij", 4, break_long_words=False) == ["see", "abcdefghij"]


@pytest.mark.xfail(reason="hyphenation is not implemented", strict=True)
def test_hyphenates_long_words():
    assert wrap("internationalization", 10) == ["internati-", "onalizati-", "on"]
