//! Text helpers.

/// `s` with its first character in upper case.
pub fn capitalize(s: &str) -> String {
    if s.is_empty() {
        return String::new();
    }
    s[..1].to_uppercase() + &s[1..]
}

/// The number of words of `s`, separated by whitespace.
pub fn word_count(s: &str) -> usize {
    s.split_whitespace().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capitalize_ascii() {
        assert_eq!(capitalize("hello world"), "Hello world");
    }

    #[test]
    fn capitalize_unicode() {
        assert_eq!(capitalize("élan"), "Élan");
    }

    #[test]
    fn word_count_ignores_extra_spaces() {
        assert_eq!(word_count("  two\twords \n"), 2);
    }
}
