//! Splitting a PR's diff into the test patch and the gold patch by path, with OmniGIRL's rules
//! (`harness/collect.toml` documents them). The diff is cut into per-file blocks at its
//! `diff --git` lines and the blocks are copied byte for byte, so CRLF lines, a missing newline
//! at the end of a file and binary patches reach the two patches exactly as git wrote them.

use std::collections::BTreeMap;
use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use crate::dataset::patch::changed_files;

/// `harness/collect.toml`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SplitConfig {
    /// Path words that make a file a test file.
    pub test_words: Vec<String>,
    /// Per-language globs.
    #[serde(default)]
    pub languages: BTreeMap<String, LanguageSplit>,
}

/// One language's split globs.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LanguageSplit {
    #[serde(default)]
    pub test_globs: Vec<String>,
    #[serde(default)]
    pub source_globs: Vec<String>,
}

impl SplitConfig {
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        toml::from_str(&text).map_err(|e| format!("invalid {}: {e}", path.display()))
    }
}

/// Where one file of a PR's diff goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Test,
    Source,
    /// In neither patch.
    Dropped,
}

/// The rules for one repository: flag globs first, then test words and test globs, then
/// source globs.
pub struct Rules {
    forced_test: GlobSet,
    forced_source: GlobSet,
    test_words: Vec<String>,
    test_globs: GlobSet,
    source_globs: GlobSet,
    /// How the rules were put together, for messages.
    pub describe: String,
}

impl Rules {
    /// `forced_*` come from the command line; `extra_*` from the spec file's `[collect]`.
    pub fn new(
        config: &SplitConfig,
        language: &str,
        extra_test: &[String],
        extra_source: &[String],
        forced_test: &[String],
        forced_source: &[String],
    ) -> Result<Self, String> {
        let lang = config.languages.get(language).ok_or_else(|| {
            format!(
                "harness/collect.toml has no split rules for language {language:?} (it has {}); add [languages.{language}]",
                config.languages.keys().cloned().collect::<Vec<_>>().join(", ")
            )
        })?;
        let test: Vec<String> = lang.test_globs.iter().chain(extra_test).cloned().collect();
        let source: Vec<String> = lang.source_globs.iter().chain(extra_source).cloned().collect();
        Ok(Rules {
            forced_test: globs(forced_test)?,
            forced_source: globs(forced_source)?,
            test_words: config.test_words.iter().map(|w| w.to_lowercase()).collect(),
            test_globs: globs(&test)?,
            source_globs: globs(&source)?,
            describe: format!(
                "a test file has one of the path words {:?}{}; a source file matches {}",
                config.test_words,
                if test.is_empty() { String::new() } else { format!(" or matches {}", test.join(", ")) },
                if source.is_empty() { "nothing".into() } else { source.join(", ") },
            ),
        })
    }

    /// The role of a file, from every path it has in the diff (old and new).
    pub fn role(&self, paths: &[&str]) -> Role {
        let any = |set: &GlobSet| paths.iter().any(|p| set.is_match(p));
        if any(&self.forced_test) {
            return Role::Test;
        }
        if any(&self.forced_source) {
            return Role::Source;
        }
        let has_word = paths
            .iter()
            .any(|p| p.to_lowercase().split(['/', '_', '.', ' ']).any(|w| self.test_words.iter().any(|t| t == w)));
        if has_word || any(&self.test_globs) {
            return Role::Test;
        }
        // OmniGIRL looks at the new path's extension (`diff --git a/X b/Y` ends with it).
        let last = paths.last().copied().unwrap_or("");
        if self.source_globs.is_match(last) {
            Role::Source
        } else {
            Role::Dropped
        }
    }
}

fn globs(patterns: &[String]) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for p in patterns {
        let glob =
            GlobBuilder::new(p).literal_separator(true).build().map_err(|e| format!("invalid glob {p:?}: {e}"))?;
        builder.add(glob);
        // `**/x` also matches `x` at the top (globset already does); a bare name matches anywhere.
        if !p.contains('/') {
            let anywhere = format!("**/{p}");
            builder.add(GlobBuilder::new(&anywhere).literal_separator(true).build().map_err(|e| e.to_string())?);
        }
    }
    builder.build().map_err(|e| e.to_string())
}

/// One file's part of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileBlock {
    /// The path before (`None`: created) and after (`None`: deleted).
    pub old: Option<String>,
    pub new: Option<String>,
    /// The bytes of the block, from its `diff --git` line to the next one.
    pub bytes: Vec<u8>,
}

impl FileBlock {
    pub fn path(&self) -> &str {
        self.new.as_deref().or(self.old.as_deref()).unwrap_or("")
    }

    pub fn paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = Vec::new();
        for p in [self.old.as_deref(), self.new.as_deref()].into_iter().flatten() {
            if !paths.contains(&p) {
                paths.push(p);
            }
        }
        paths
    }
}

/// Cuts `git diff` output into per-file blocks. Bytes before the first `diff --git` line (there
/// are none in git's output) are ignored.
pub fn file_blocks(diff: &[u8]) -> Vec<FileBlock> {
    let mut starts = Vec::new();
    let mut at = 0;
    while at < diff.len() {
        if diff[at..].starts_with(b"diff --git ") {
            starts.push(at);
        }
        match diff[at..].iter().position(|&b| b == b'\n') {
            Some(nl) => at += nl + 1,
            None => break,
        }
    }
    let mut blocks = Vec::with_capacity(starts.len());
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(diff.len());
        let bytes = diff[start..end].to_vec();
        // The header lines are ASCII or UTF-8 (paths are not quoted: core.quotePath=false);
        // only they are read here.
        let header_end = header_len(&bytes);
        let header = String::from_utf8_lossy(&bytes[..header_end]);
        let change = changed_files(&header).into_iter().next();
        let (old, new) = change.map(|c| (c.old, c.new)).unwrap_or((None, None));
        blocks.push(FileBlock { old, new, bytes });
    }
    blocks
}

/// The length of a block's header: up to its first hunk (`@@`) or binary data.
fn header_len(block: &[u8]) -> usize {
    let mut at = 0;
    while at < block.len() {
        let line = &block[at..];
        if at > 0 && (line.starts_with(b"@@") || line.starts_with(b"GIT binary patch")) {
            return at;
        }
        match line.iter().position(|&b| b == b'\n') {
            Some(nl) => at += nl + 1,
            None => return block.len(),
        }
    }
    block.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> SplitConfig {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/harness/collect.toml")).unwrap();
        toml::from_str(&text).unwrap()
    }

    fn rules(language: &str) -> Rules {
        Rules::new(&config(), language, &[], &[], &[], &[]).unwrap()
    }

    #[test]
    fn omnigirl_words_make_test_files() {
        let py = rules("python");
        for path in ["tests/test_x.py", "tqdm/tests/tests_perf.py", "test_a.py", "a/testing/b.py", "x/TESTS/y.txt"] {
            assert_eq!(py.role(&[path]), Role::Test, "{path}");
        }
        assert_eq!(py.role(&["tqdm/std.py"]), Role::Source);
        assert_eq!(py.role(&["README.rst"]), Role::Dropped);
        assert_eq!(py.role(&["contest/x.py"]), Role::Source, "a word is a whole path component part");
        assert_eq!(py.role(&["test-utils/x.py"]), Role::Source, "`-` does not split words");
        let js = rules("javascript");
        assert_eq!(js.role(&["src/__tests__/a.js"]), Role::Test);
        assert_eq!(js.role(&["src/a.test.ts"]), Role::Test);
        assert_eq!(js.role(&["src/__snapshots__/a.test.js.snap"]), Role::Test);
        assert_eq!(js.role(&["src/plugin/x.js"]), Role::Source);
        assert_eq!(js.role(&["package.json"]), Role::Dropped);
        assert_eq!(js.role(&["types/index.d.ts"]), Role::Source);
        let java = rules("java");
        assert_eq!(java.role(&["gson/src/main/java/com/google/gson/Gson.java"]), Role::Source);
        assert_eq!(java.role(&["gson/src/test/java/com/google/gson/GsonTest.java"]), Role::Test);
        assert_eq!(java.role(&["core/FooTests.java"]), Role::Test);
        assert_eq!(java.role(&["core/TestUtil.java"]), Role::Test);
        assert_eq!(java.role(&["pom.xml"]), Role::Dropped);
    }

    #[test]
    fn spec_and_flag_globs_extend_the_rules() {
        let netty = Rules::new(&config(), "java", &[], &["**/*.c".into(), "pom.xml".into()], &[], &[]).unwrap();
        assert_eq!(netty.role(&["transport-native/src/main/c/epoll.c"]), Role::Source);
        assert_eq!(netty.role(&["codec/pom.xml"]), Role::Source, "a bare name matches in any folder");
        let forced =
            Rules::new(&config(), "python", &[], &[], &["fixtures/**".into()], &["tests/helpers.py".into()]).unwrap();
        assert_eq!(forced.role(&["fixtures/data.bin"]), Role::Test);
        assert_eq!(forced.role(&["tests/helpers.py"]), Role::Source, "flags come first");
        let err = Rules::new(&config(), "cobol", &[], &[], &[], &[]).err().unwrap();
        assert!(err.contains("cobol") && err.contains("python"), "{err}");
    }

    #[test]
    fn blocks_are_cut_byte_exact() {
        let diff = b"diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\r\n+y\r\n\\ No newline at end of file\ndiff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+diff --git a/fake b/fake\ndiff --git a/img.png b/img.png\nnew file mode 100644\nGIT binary patch\nliteral 3\nKcmZ?wKn4H+0RR91\n\nliteral 0\nHcmV?d00001\n\n";
        let blocks = file_blocks(diff);
        assert_eq!(blocks.len(), 3, "a `+diff --git` line inside a hunk does not start a block");
        assert_eq!(blocks[0].path(), "a.txt");
        assert!(blocks[0].bytes.windows(3).any(|w| w == b"y\r\n"));
        assert_eq!(blocks[1].old, None);
        assert_eq!(blocks[1].new.as_deref(), Some("new.py"));
        assert_eq!(blocks[2].path(), "img.png");
        let joined: Vec<u8> = blocks.iter().flat_map(|b| b.bytes.clone()).collect();
        assert_eq!(joined, diff.to_vec());
    }
}
