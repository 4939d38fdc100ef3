"""Case conversions."""

import re

_BOUNDARY = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def title_case(text):
    """Capitalize every word of `text`; runs of spaces are kept."""
    return " ".join(word[:1].upper() + word[1:].lower() for word in text.split(" "))


def camel_to_snake(name):
    """`camelCase` or `CamelCase` to `snake_case`, keeping acronyms together."""
    return _BOUNDARY.sub("_", name).lower()


def snake_to_camel(name, upper_first=False):
    """`snake_case` to `snakeCase`, or `SnakeCase` with `upper_first`."""
    parts = [part for part in name.split("_") if part]
    if not parts:
        return ""
    head = parts[0].capitalize() if upper_first else parts[0].lower()
    return head + "".join(part.capitalize() for part in parts[1:])
