"""Case conversions."""

import re

# "HTTPServer": the last capital of a run starts the next word.
_ACRONYM_END = re.compile(r"([A-Z]+)([A-Z][a-z])")
# "camelCase", "version2Update": a capital after a lower-case letter or digit starts a word.
_WORD_START = re.compile(r"([a-z0-9])([A-Z])")


def title_case(text):
    """Capitalize every word of `text`; runs of spaces are kept."""
    return " ".join(word[:1].upper() + word[1:].lower() for word in text.split(" "))


def camel_to_snake(name):
    """`camelCase` or `CamelCase` to `snake_case`; an acronym stays one word (`HTTPServer`
    becomes `http_server`)."""
    name = _ACRONYM_END.sub(r"\1_\2", name)
    name = _WORD_START.sub(r"\1_\2", name)
    return name.lower()


def snake_to_camel(name, upper_first=False):
    """`snake_case` to `snakeCase`, or `SnakeCase` with `upper_first`."""
    parts = [part for part in name.split("_") if part]
    if not parts:
        return ""
    head = parts[0].capitalize() if upper_first else parts[0].lower()
    return head + "".join(part.capitalize() for part in parts[1:])
