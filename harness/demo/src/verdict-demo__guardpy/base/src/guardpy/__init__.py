"""Range helpers."""

from ._version import VERSION
from .ranges import clamp, parse_range, within

__version__ = VERSION
__all__ = ["clamp", "parse_range", "within", "__version__"]
