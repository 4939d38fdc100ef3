import pytest

from textkit.case import camel_to_snake, snake_to_camel, title_case


@pytest.mark.parametrize(
    "text, expected",
    [
        ("hello world", "Hello World"),
        ("HELLO", "Hello"),
        ("o'neil", "O'neil"),
        ("", ""),
    ],
)
def test_title_case(text, expected):
    assert title_case(text) == expected


def test_title_case_keeps_spacing():
    assert title_case("a  b") == "A  B"


@pytest.mark.parametrize(
    "name, expected",
    [
        ("camelCase", "camel_case"),
        ("CamelCase", "camel_case"),
        ("already_snake", "already_snake"),
        ("version2Update", "version2_update"),
        ("x", "x"),
    ],
)
def test_camel_to_snake(name, expected):
    assert camel_to_snake(name) == expected


@pytest.mark.parametrize(
    "name, upper_first, expected",
    [
        ("snake_case", False, "snakeCase"),
        ("snake_case", True, "SnakeCase"),
        ("_private_name", False, "privateName"),
        ("", False, ""),
    ],
)
def test_snake_to_camel(name, upper_first, expected):
    assert snake_to_camel(name, upper_first) == expected


class TestRoundTrip:
    def test_snake_camel_snake(self):
        assert camel_to_snake(snake_to_camel("one_two_three")) == "one_two_three"

    def test_camel_snake_camel(self):
        assert snake_to_camel(camel_to_snake("oneTwoThree")) == "oneTwoThree"
