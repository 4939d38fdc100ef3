// Package stats holds small statistics over float64 slices.
package stats

import "sort"

// Sum returns the sum of xs.
func Sum(xs []float64) float64 {
	total := 0.0
	for _, x := range xs {
		total += x
	}
	return total
}

// Mean returns the arithmetic mean of xs.
func Mean(xs []float64) float64 {
	return Sum(xs) / float64(len(xs))
}

// Median returns the middle value of xs, which it leaves unchanged.
func Median(xs []float64) float64 {
	sorted := append([]float64(nil), xs...)
	sort.Float64s(sorted)
	n := len(sorted)
	if n%2 == 0 {
		return (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return sorted[n/2]
}
