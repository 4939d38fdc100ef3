"""Closed integer ranges written as "LOW..HIGH"."""


def parse_range(text):
    """Reads "LOW..HIGH" (integers, either may be negative) into a (low, high) pair."""
    low, high = (int(part) for part in text.strip().split(".."))
    if low > high:
        raise ValueError(f"reversed range: {text.strip()}")
    return low, high


def within(value, bounds):
    """Whether value lies in the closed range `bounds`."""
    low, high = bounds
    return low <= value <= high


def clamp(value, bounds):
    """The nearest value to `value` inside the closed range `bounds`."""
    low, high = bounds
    return max(low, min(value, high))
