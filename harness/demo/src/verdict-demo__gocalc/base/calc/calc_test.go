package calc

import (
	"errors"
	"testing"
)

func TestAdd(t *testing.T) {
	cases := []struct {
		name       string
		a, b, want int
	}{
		{"two positives", 2, 3, 5},
		{"with a negative", -4, 1, -3},
		{"zeros", 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Add(c.a, c.b); got != c.want {
				t.Errorf("Add(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
			}
		})
	}
}

func TestDivide(t *testing.T) {
	got, err := Divide(7, 2)
	if err != nil || got != 3 {
		t.Fatalf("Divide(7, 2) = %d, %v; want 3, nil", got, err)
	}
}

func TestDivideByZero(t *testing.T) {
	if _, err := Divide(1, 0); !errors.Is(err, ErrDivideByZero) {
		t.Fatalf("Divide(1, 0) error = %v, want ErrDivideByZero", err)
	}
}

func TestClamp(t *testing.T) {
	cases := []struct {
		name            string
		v, lo, hi, want int
	}{
		{"inside the range", 5, 0, 10, 5},
		{"below the range", -3, 0, 10, 0},
		{"at the bounds", 10, 0, 10, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Clamp(c.v, c.lo, c.hi); got != c.want {
				t.Errorf("Clamp(%d, %d, %d) = %d, want %d", c.v, c.lo, c.hi, got, c.want)
			}
		})
	}
}
