//! Languages the localizer knows: which file extensions map to which tree-sitter grammar, and
//! the language names used in reports. Grammar crate versions are pinned in Cargo.toml because
//! node kinds change between grammar releases.

use serde::{Deserialize, Serialize};

/// A language with a tree-sitter grammar. TSX is its own grammar but reports as `typescript`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Java,
    Go,
    Rust,
    C,
    Cpp,
    CSharp,
    Ruby,
    Php,
}

impl Language {
    pub const ALL: [Language; 12] = [
        Language::Python,
        Language::JavaScript,
        Language::TypeScript,
        Language::Tsx,
        Language::Java,
        Language::Go,
        Language::Rust,
        Language::C,
        Language::Cpp,
        Language::CSharp,
        Language::Ruby,
        Language::Php,
    ];

    /// The language of a repository path, from its extension. `.h` headers parse as C++,
    /// whose grammar also reads nearly all C.
    pub fn from_path(path: &str) -> Option<Language> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let (_, ext) = name.rsplit_once('.')?;
        Some(match ext.to_ascii_lowercase().as_str() {
            "py" | "pyi" => Language::Python,
            "js" | "jsx" | "mjs" | "cjs" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "java" => Language::Java,
            "go" => Language::Go,
            "rs" => Language::Rust,
            "c" => Language::C,
            "h" | "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "ipp" | "tpp" => Language::Cpp,
            "cs" => Language::CSharp,
            "rb" | "rake" | "gemspec" => Language::Ruby,
            "php" | "phtml" => Language::Php,
            _ => return None,
        })
    }

    /// The name used in reports and in the per-language breakdown.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript | Language::Tsx => "typescript",
            Language::Java => "java",
            Language::Go => "go",
            Language::Rust => "rust",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::CSharp => "csharp",
            Language::Ruby => "ruby",
            Language::Php => "php",
        }
    }

    pub(crate) fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Language::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Language::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Language::Php => tree_sitter_php::LANGUAGE_PHP.into(),
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// The report language of an instance: the language of most of its gold files (the first one
/// to reach the highest count wins ties), or `None` when no file has a known extension. `.h`
/// files count only when nothing else decides, as `c`.
pub fn infer_language<'a>(paths: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    let mut headers = 0;
    for path in paths {
        if path.to_ascii_lowercase().ends_with(".h") {
            headers += 1;
            continue;
        }
        if let Some(lang) = Language::from_path(path) {
            match counts.iter_mut().find(|(name, _)| *name == lang.name()) {
                Some((_, n)) => *n += 1,
                None => counts.push((lang.name(), 1)),
            }
        }
    }
    let mut best: Option<(&str, usize)> = None;
    for (name, n) in counts {
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((name, n));
        }
    }
    match best {
        Some((name, _)) => Some(name.to_string()),
        None if headers > 0 => Some("c".to_string()),
        None => None,
    }
}
