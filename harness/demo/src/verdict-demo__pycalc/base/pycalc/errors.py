"""The one exception pycalc raises."""


class CalcError(ValueError):
    """An expression that cannot be evaluated, or data a statistic is not defined for."""
