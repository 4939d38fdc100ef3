"""URL slugs."""

import re

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def slugify(text, sep="-"):
    """Lower-case `text` and join its runs of letters and digits with `sep`."""
    text = text.lower()
    text = _NOT_SLUG.sub(sep, text)
    return text.strip(sep)
