//! Reading a reporter's JSON document when it may be mixed with other text (a test's
//! `console.log` printed before or after the reporter's output on the same stream).

use serde::Deserialize;

/// How many candidate objects are tried before giving up, so text full of braces cannot make
/// the search slow.
const MAX_CANDIDATES: usize = 64;

/// A JSON document of type `T`: first the whole text, then the last object in it that starts
/// with `{ "<key>"` and parses as `T` (text after the object is ignored). `Err` carries why the
/// whole text did not parse, for the caller's note.
pub(crate) fn document<'a, T: Deserialize<'a>>(text: &'a str, key: &str) -> Result<(T, bool), String> {
    let whole = match serde_json::from_str::<T>(text) {
        Ok(value) => return Ok((value, false)),
        Err(err) => err,
    };
    let needle = format!("\"{key}\"");
    let mut end = text.len();
    let mut tried = 0;
    while let Some(at) = text[..end].rfind(&needle) {
        end = at;
        let before = text[..at].trim_end_matches([' ', '\t', '\r', '\n']);
        if !before.ends_with('{') {
            continue;
        }
        tried += 1;
        if tried > MAX_CANDIDATES {
            break;
        }
        let start = before.len() - 1;
        let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<T>();
        if let Some(Ok(value)) = values.next() {
            return Ok((value, true));
        }
    }
    Err(describe(&whole))
}

/// A serde_json error in words a reader can act on.
pub(crate) fn describe(err: &serde_json::Error) -> String {
    use serde_json::error::Category;
    match err.classify() {
        Category::Eof => format!("is truncated (the JSON ends early, at line {})", err.line()),
        Category::Syntax => format!("is not valid JSON ({err})"),
        Category::Data => format!("is JSON of another shape ({err})"),
        Category::Io => format!("could not be read ({err})"),
    }
}
