"""Case conversions."""


# Minor words that stay lower-case inside a title.
SMALL_WORDS = frozenset({"a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to"})


def title_case(text):
    """Capitalize the words of `text`, except minor words that are neither first nor last;
    runs of spaces are kept."""
    words = text.split(" ")
    last = len(words) - 1
    out = []
    for i, word in enumerate(words):
        if 0 < i < last and word.lower() in SMALL_WORDS:
            out.append(word.lower())
        else:
            out.append(word[:1].upper() + word[1:].lower())
    return " ".join(out)


def camel_to_snake(name):
    """`camelCase` or `CamelCase` to `snake_case`."""
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i > 0 and name[i - 1] != "_":
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def snake_to_camel(name, upper_first=False):
    """`snake_case` to `snakeCase`, or `SnakeCase` with `upper_first`."""
    parts = [part for part in name.split("_") if part]
    if not parts:
        return ""
    head = parts[0].capitalize() if upper_first else parts[0].lower()
    return head + "".join(part.capitalize() for part in parts[1:])
