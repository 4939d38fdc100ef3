//! The public API, as a user of the crate calls it.

use rustcalc::{arith, text};

#[test]
fn clamps_and_counts() {
    assert_eq!(arith::clamp(42, 0, 10), 10);
    assert_eq!(text::word_count("a b c"), 3);
}

#[test]
fn counts_dashed_words_apart() {
    assert_eq!(text::word_count("well-known fact"), 3);
}

#[test]
fn gcd_is_symmetric() {
    assert_eq!(arith::gcd(12, 18), arith::gcd(18, 12));
}

#[test]
fn capitalizes_ascii() {
    assert_eq!(text::capitalize("hello world"), "Hello world");
}

#[test]
fn capitalizes_unicode() {
    assert_eq!(text::capitalize("élan"), "Élan");
}

mod means {
    use rustcalc::arith::mean;

    #[test]
    fn mean_of_values() {
        assert_eq!(mean(&[2.0, 4.0, 9.0]), Some(5.0));
    }
}
