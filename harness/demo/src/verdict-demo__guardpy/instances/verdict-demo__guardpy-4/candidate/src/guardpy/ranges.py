"""Closed integer ranges written as "LOW..HIGH"."""


def parse_range(text):
    """Reads "LOW..HIGH" (integers, either may be negative) into a (low, high) pair."""
    low_text, high_text = text.strip().split("..")
    low, high = int(low_text), int(high_text)
    if high < low:
        raise ValueError("reversed range: %s" % text.strip())
    return low, high


def within(value, bounds):
    """Whether value lies in the closed range `bounds`."""
    low, high = bounds
    return low <= value <= high


def clamp(value, bounds):
    """The nearest value to `value` inside the closed range `bounds`."""
    low, high = bounds
    return max(low, min(value, high))
