import pytest

from textkit import slugify


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Hello World", "hello-world"),
        ("  spaces  around  ", "spaces-around"),
        ("C++ & Rust", "c-rust"),
        ("v1.2.3", "v1-2-3"),
        ("---", ""),
    ],
)
def test_slugify(text, expected):
    assert slugify(text) == expected


def test_custom_separator():
    assert slugify("Hello World", sep="_") == "hello_world"


@pytest.mark.skip(reason="transliteration tables for CJK scripts are not bundled")
def test_slugify_cjk():
    assert slugify("北京") == "bei-jing"
