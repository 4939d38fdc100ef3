"""pycalc: a tiny arithmetic expression evaluator with a few statistics helpers."""

from .errors import CalcError
from .evaluate import evaluate
from .stats import mean, median, mode, variance
from .tokens import Token, tokenize

__all__ = [
    "CalcError",
    "Token",
    "evaluate",
    "mean",
    "median",
    "mode",
    "tokenize",
    "variance",
]
