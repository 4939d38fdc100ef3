"""URL slugs."""

import re
import unicodedata

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def slugify(text, sep="-"):
    """Lower-case `text` and join its runs of letters and digits with `sep`.

    Accented Latin letters lose their accents ("é" becomes "e") instead of being dropped.
    """
    text = unicodedata.normalize("NFKD", text)
    text = text.encode("ascii", "ignore").decode("ascii")
    text = text.lower()
    text = _NOT_SLUG.sub(sep, text)
    return text.strip(sep)
