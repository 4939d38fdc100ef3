"""Greedy word wrapping."""


def wrap(text, width=70):
    """Split `text` into lines of at most `width` characters, breaking at spaces."""
    if width < 1:
        raise ValueError(f"width must be at least 1, not {width}")
    lines = []
    current = ""
    for word in text.split():
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines
