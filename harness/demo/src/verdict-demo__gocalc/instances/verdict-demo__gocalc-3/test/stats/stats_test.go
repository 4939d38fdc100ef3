package stats

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSum(t *testing.T) {
	if got := Sum([]float64{1, 2, 3.5}); got != 6.5 {
		t.Errorf("Sum = %v, want 6.5", got)
	}
	if got := Sum(nil); got != 0 {
		t.Errorf("Sum(nil) = %v, want 0", got)
	}
}

func TestMean(t *testing.T) {
	if got := Mean([]float64{2, 4, 9}); got != 5 {
		t.Errorf("Mean = %v, want 5", got)
	}
}

func TestMeanOfNothing(t *testing.T) {
	if got := Mean(nil); got != 0 {
		t.Errorf("Mean(nil) = %v, want 0", got)
	}
}

func TestMedian(t *testing.T) {
	t.Run("odd length", func(t *testing.T) {
		if got := Median([]float64{9, 1, 5}); got != 5 {
			t.Errorf("Median = %v, want 5", got)
		}
	})
	t.Run("leaves the input unchanged", func(t *testing.T) {
		xs := []float64{3, 1, 2}
		Median(xs)
		if diff := cmp.Diff([]float64{3, 1, 2}, xs); diff != "" {
			t.Errorf("Median changed its input (-want +got):\n%s", diff)
		}
	})
}
