"""Descriptive statistics over sequences of numbers."""

from collections import Counter

from .errors import CalcError


def _data(values, what):
    data = list(values)
    if not data:
        raise CalcError(f"{what} of empty data")
    return data


def mean(values):
    """The arithmetic mean."""
    data = _data(values, "mean")
    return sum(data) / len(data)


def median(values):
    """The middle value of the sorted data."""
    data = sorted(_data(values, "median"))
    return data[len(data) // 2]


def mode(values):
    """The most common value; the smallest one on a tie."""
    counts = Counter(_data(values, "mode"))
    best = max(counts.values())
    return min(value for value, count in counts.items() if count == best)


def variance(values):
    """The population variance."""
    data = _data(values, "variance")
    mu = mean(data)
    return sum((x - mu) ** 2 for x in data) / len(data)
