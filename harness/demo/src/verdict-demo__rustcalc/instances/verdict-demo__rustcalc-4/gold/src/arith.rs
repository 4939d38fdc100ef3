//! Integer and float helpers.

/// Limits `v` to the range `[lo, hi]`.
///
/// ```
/// assert_eq!(rustcalc::arith::clamp(15, 0, 10), 10);
/// ```
pub fn clamp(v: i64, lo: i64, hi: i64) -> i64 {
    v.max(lo).min(hi)
}

/// The greatest common divisor of `a` and `b`.
pub fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The arithmetic mean of `xs`.
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    Some(xs.iter().sum::<f64>() / xs.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamp_inside_the_range() {
        assert_eq!(clamp(5, 0, 10), 5);
    }

    #[test]
    fn clamp_below_the_range() {
        assert_eq!(clamp(-3, 0, 10), 0);
    }

    #[test]
    fn gcd_of_positives() {
        assert_eq!(gcd(12, 18), 6);
        assert_eq!(gcd(7, 0), 7);
    }

    #[test]
    fn mean_of_values() {
        assert_eq!(mean(&[2.0, 4.0, 9.0]), Some(5.0));
    }

    mod signs {
        use super::super::*;

        #[test]
        fn gcd_with_a_negative_zero_side() {
            assert_eq!(gcd(0, 5), 5);
        }
    }
}
