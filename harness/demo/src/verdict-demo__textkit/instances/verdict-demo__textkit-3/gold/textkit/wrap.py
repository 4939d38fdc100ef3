"""Greedy word wrapping."""


def wrap(text, width=70, break_long_words=True):
    """Split `text` into lines of at most `width` characters, breaking at spaces.

    A word longer than `width` is cut into pieces of `width` characters, unless
    `break_long_words` is false, in which case it gets a line of its own.
    """
    if width < 1:
        raise ValueError(f"width must be at least 1, not {width}")
    lines = []
    current = ""
    for word in _pieces(text.split(), width, break_long_words):
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


def _pieces(words, width, break_long_words):
    for word in words:
        if not break_long_words:
            yield word
            continue
        while len(word) > width:
            yield word[:width]
            word = word[width:]
        yield word
