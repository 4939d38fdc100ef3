import pytest

from pycalc import CalcError, median


class TestMedian:
    def test_odd_length(self):
        assert median([7, 1, 4]) == 4

    def test_single_value(self):
        assert median([42]) == 42

    def test_even_length(self):
        assert median([1, 2, 3, 4]) == 2.5

    def test_even_length_unsorted(self):
        assert median([10, 2, 8, 4]) == 6

    def test_two_values(self):
        assert median([1, 2]) == 1.5

    def test_empty_raises(self):
        with pytest.raises(CalcError):
            median([])

    @pytest.mark.skip(reason="statistics.median_grouped semantics are not implemented")
    def test_grouped(self):
        assert median([1, 2, 2, 3]) == 1.8333333333333333
