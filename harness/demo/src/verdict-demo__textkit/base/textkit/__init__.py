"""textkit: small text helpers."""

from .case import camel_to_snake, snake_to_camel, title_case
from .slug import slugify
from .wrap import wrap

__all__ = ["camel_to_snake", "slugify", "snake_to_camel", "title_case", "wrap"]
