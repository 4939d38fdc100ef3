//! Git access for `verdict collect`: one long-lived `git cat-file --batch` process reads every
//! object (commits, version files), one `git log` and one `git for-each-ref` index the whole
//! repository's PRs, and each PR then costs one `git diff` (plus one `git merge-base` when its
//! base must be computed).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

/// Something went wrong talking to git.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run git in {dir} ({source}); install git")]
    Spawn { dir: PathBuf, source: std::io::Error },
    #[error("`git {args}` failed in {dir}: {stderr}")]
    Failed { dir: PathBuf, args: String, stderr: String },
    #[error("git cat-file in {dir} answered unexpectedly: {what}")]
    Protocol { dir: PathBuf, what: String },
}

/// A commit, as `verdict collect` needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    pub sha: String,
    pub parents: Vec<String>,
    /// Committer time, seconds since the epoch.
    pub committer_time: i64,
    /// The whole message (subject, blank line, body).
    pub message: String,
}

impl Commit {
    pub fn subject(&self) -> &str {
        self.message.lines().next().unwrap_or("")
    }
}

/// One object read through `cat-file --batch`.
#[derive(Debug, Clone)]
pub struct Object {
    pub sha: String,
    /// `commit`, `tree`, `blob` or `tag`.
    pub kind: String,
    pub content: Vec<u8>,
}

struct Batch {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// One repository (a work tree or a bare git directory).
pub struct Git {
    dir: PathBuf,
    batch: Mutex<Option<Batch>>,
}

impl Git {
    pub fn open(dir: &Path) -> Result<Self, GitError> {
        let git = Git { dir: dir.to_path_buf(), batch: Mutex::new(None) };
        // Fails early, with git's own words, when `dir` is not a repository; a folder inside
        // another repository's work tree is not that repository either.
        let answer = git.run(&["rev-parse", "--is-bare-repository", "--absolute-git-dir"])?;
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let mut lines = answer.lines();
        let bare = lines.next() == Some("true");
        let mut found = PathBuf::from(lines.next().unwrap_or_default().trim());
        if !bare {
            let top = git.run(&["rev-parse", "--show-toplevel"])?;
            found = PathBuf::from(String::from_utf8_lossy(&top).trim());
        }
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let here = canonical(dir);
        if canonical(&found) != here && !(bare && canonical(&found) == canonical(&here.join(".git"))) {
            return Err(GitError::Failed {
                dir: git.dir.clone(),
                args: "rev-parse".into(),
                stderr: format!("the folder is inside the repository {}, not a repository itself", found.display()),
            });
        }
        Ok(git)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Runs one git command and returns its standard output.
    pub fn run(&self, args: &[&str]) -> Result<Vec<u8>, GitError> {
        self.run_with(args, &[])
    }

    /// Runs one git command with extra `-c key=value` settings.
    pub fn run_with(&self, args: &[&str], config: &[String]) -> Result<Vec<u8>, GitError> {
        let mut command = self.command();
        for c in config {
            command.arg("-c").arg(c);
        }
        let out = command
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|source| GitError::Spawn { dir: self.dir.clone(), source })?;
        if out.status.success() {
            Ok(out.stdout)
        } else {
            Err(GitError::Failed {
                dir: self.dir.clone(),
                args: args.join(" "),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            })
        }
    }

    fn command(&self) -> Command {
        let mut command = Command::new("git");
        command
            .arg("-C")
            .arg(&self.dir)
            // The user's configuration must not change what is read (quoted paths, colours,
            // prefixes, renames).
            .args(["-c", "core.quotePath=false", "-c", "color.ui=never", "-c", "diff.noprefix=false"])
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE");
        command
    }

    /// The object a revision names (`sha`, `refs/pull/7/head`, `<commit>:<path>`): its sha, type
    /// and content, or `None` when it does not exist. Read through the long-lived
    /// `cat-file --batch`.
    pub fn object(&self, rev: &str) -> Result<Option<Object>, GitError> {
        if rev.contains('\n') {
            return Ok(None);
        }
        let mut guard = self.batch.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            *guard = Some(self.start_batch()?);
        }
        let result = Self::ask(guard.as_mut().expect("started above"), rev);
        if result.is_err() {
            // A broken process is not reused; the next read starts a fresh one.
            if let Some(mut batch) = guard.take() {
                let _ = batch.child.kill();
                let _ = batch.child.wait();
            }
        }
        result.map_err(|what| GitError::Protocol { dir: self.dir.clone(), what })
    }

    fn start_batch(&self) -> Result<Batch, GitError> {
        let mut child = self
            .command()
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| GitError::Spawn { dir: self.dir.clone(), source })?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(Batch { child, stdin, stdout })
    }

    fn ask(batch: &mut Batch, rev: &str) -> Result<Option<Object>, String> {
        writeln!(batch.stdin, "{rev}").and_then(|()| batch.stdin.flush()).map_err(|e| e.to_string())?;
        let mut header = String::new();
        batch.stdout.read_line(&mut header).map_err(|e| e.to_string())?;
        let header = header.trim_end_matches('\n');
        if header.is_empty() {
            return Err("the process ended".into());
        }
        if header.ends_with(" missing") || header.ends_with(" ambiguous") {
            return Ok(None);
        }
        let mut parts = header.split(' ');
        let (Some(sha), Some(kind), Some(size)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!("header {header:?}"));
        };
        let size: usize = size.parse().map_err(|_| format!("header {header:?}"))?;
        let mut content = vec![0; size + 1];
        batch.stdout.read_exact(&mut content).map_err(|e| e.to_string())?;
        content.pop(); // the newline after the content
        Ok(Some(Object { sha: sha.to_string(), kind: kind.to_string(), content }))
    }

    /// A commit by revision; `None` when the revision names no commit.
    pub fn commit(&self, rev: &str) -> Result<Option<Commit>, GitError> {
        let Some(object) = self.object(&format!("{rev}^{{commit}}"))? else {
            return Ok(None);
        };
        if object.kind != "commit" {
            return Ok(None);
        }
        Ok(Some(parse_commit(object.sha, &object.content)))
    }

    /// The contents of `path` at `commit`, or `None` when it is not a file there.
    pub fn blob(&self, commit: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        Ok(self.object(&format!("{commit}:{path}"))?.filter(|o| o.kind == "blob").map(|o| o.content))
    }
}

impl Drop for Git {
    fn drop(&mut self) {
        if let Some(mut batch) = self.batch.lock().unwrap_or_else(|e| e.into_inner()).take() {
            drop(batch.stdin);
            let _ = batch.child.wait();
        }
    }
}

fn parse_commit(sha: String, body: &[u8]) -> Commit {
    let text = String::from_utf8_lossy(body);
    let (headers, message) = text.split_once("\n\n").unwrap_or((&text, ""));
    let mut parents = Vec::new();
    let mut committer_time = 0;
    for line in headers.lines() {
        if let Some(p) = line.strip_prefix("parent ") {
            parents.push(p.trim().to_string());
        } else if let Some(c) = line.strip_prefix("committer ") {
            // `Name <email> 1700000000 +0100`
            let mut fields = c.rsplitn(3, ' ');
            let _zone = fields.next();
            committer_time = fields.next().and_then(|t| t.parse().ok()).unwrap_or(0);
        }
    }
    Commit { sha, parents, committer_time, message: message.to_string() }
}

/// Where each PR number shows up in a repository's history.
#[derive(Debug, Default)]
pub struct PrIndex {
    /// PR → the earliest commit on a branch or tag whose subject is `Merge pull request #N …`.
    pub merges: HashMap<u64, String>,
    /// PR → the earliest commit on a branch or tag whose subject ends with `(#N)`.
    pub squashes: HashMap<u64, String>,
    /// PR → `refs/pull/N/head`.
    pub pull_heads: HashMap<u64, String>,
    /// PR → `refs/pull/N/merge` (GitHub's test merge, kept for open PRs).
    pub pull_merges: HashMap<u64, String>,
    /// Commit → the earliest merge commit that has it as a second (or later) parent.
    pub merged_by: HashMap<String, String>,
    /// Every commit reachable from a branch or tag.
    pub on_branches: std::collections::HashSet<String>,
    /// Parents of each commit reachable from a branch or tag.
    pub parents: HashMap<String, Vec<String>>,
}

impl PrIndex {
    /// Indexes the history of every branch, tag and remote-tracking branch (one `git log`), and
    /// the pull refs (one `git for-each-ref`).
    pub fn build(git: &Git) -> Result<Self, GitError> {
        let log = git.run(&["log", "--branches", "--tags", "--remotes", "--format=%H %ct %P%x09%s"])?;
        let mut index = PrIndex::default();
        let merge_re = regex::Regex::new(r"^Merge pull request #(\d+) from ").expect("valid regex");
        let squash_re = regex::Regex::new(r"\(#(\d+)\)\s*$").expect("valid regex");
        // Earliest by committer time; `git log` lists newest first, so later lines win ties.
        let mut times: HashMap<String, i64> = HashMap::new();
        let keep = |map: &mut HashMap<u64, String>, n: u64, sha: &str, t: i64, times: &HashMap<String, i64>| {
            let older = map.get(&n).and_then(|s| times.get(s)).is_none_or(|&old| t <= old);
            if older {
                map.insert(n, sha.to_string());
            }
        };
        for line in String::from_utf8_lossy(&log).lines() {
            let (ids, subject) = line.split_once('\t').unwrap_or((line, ""));
            let mut fields = ids.split(' ');
            let (Some(sha), Some(time)) = (fields.next(), fields.next()) else { continue };
            let time: i64 = time.parse().unwrap_or(0);
            let parents: Vec<String> = fields.filter(|p| !p.is_empty()).map(str::to_string).collect();
            times.insert(sha.to_string(), time);
            if let Some(n) = merge_re.captures(subject).and_then(|c| c[1].parse().ok()) {
                if parents.len() >= 2 {
                    keep(&mut index.merges, n, sha, time, &times);
                }
            } else if let Some(n) = squash_re.captures(subject).and_then(|c| c[1].parse().ok()) {
                keep(&mut index.squashes, n, sha, time, &times);
            }
            for later in parents.iter().skip(1) {
                let older = index.merged_by.get(later).and_then(|s| times.get(s)).is_none_or(|&old| time <= old);
                if older {
                    index.merged_by.insert(later.clone(), sha.to_string());
                }
            }
            index.on_branches.insert(sha.to_string());
            index.parents.insert(sha.to_string(), parents);
        }
        let refs = git.run(&["for-each-ref", "--format=%(objectname) %(refname)", "refs/pull"])?;
        for line in String::from_utf8_lossy(&refs).lines() {
            let Some((sha, name)) = line.split_once(' ') else { continue };
            let Some(rest) = name.strip_prefix("refs/pull/") else { continue };
            let Some((n, kind)) = rest.split_once('/') else { continue };
            let Ok(n) = n.parse::<u64>() else { continue };
            match kind {
                "head" => index.pull_heads.insert(n, sha.to_string()),
                "merge" => index.pull_merges.insert(n, sha.to_string()),
                _ => None,
            };
        }
        Ok(index)
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the epoch (UTC), the form SWE-bench's
/// `created_at` uses.
pub fn iso8601_utc(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_iso8601() {
        assert_eq!(iso8601_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601_utc(1_678_812_414), "2023-03-14T16:46:54Z");
        assert_eq!(iso8601_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso8601_utc(-1), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn commit_objects_are_parsed() {
        let body = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent aaa\nparent bbb\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 1678812414 +0100\ngpgsig -----BEGIN\n second line\n\nFix the thing (#12)\n\nBody.\n";
        let c = parse_commit("ccc".into(), body);
        assert_eq!(c.parents, vec!["aaa", "bbb"]);
        assert_eq!(c.committer_time, 1_678_812_414);
        assert_eq!(c.subject(), "Fix the thing (#12)");
        assert_eq!(c.message, "Fix the thing (#12)\n\nBody.\n");
    }
}
