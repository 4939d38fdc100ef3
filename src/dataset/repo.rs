//! Repository sources: where the code of `owner/name` at a commit comes from.
//!
//! Looked up, in order, in each `--repos` folder (a git bundle `owner__name.bundle`, a bare
//! mirror `owner__name.git`, a checkout `owner__name/`, or `owner/name`), then cloned from
//! `https://github.com/owner/name` unless cloning is off. Bundles and remote repositories are
//! mirrored once into verdict's cache folder; local repositories are read in place. Reading
//! uses the `git` program (the repository's own tool, not Docker's): whole trees with
//! `git archive`, single files and commit checks through one long-lived `git cat-file --batch`
//! process per repository, shared by every instance of a run.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};

#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    #[error("repository {repo}: no source found in {searched} and cloning from GitHub is off; pass --repos DIR holding {slug}.bundle, {slug}.git or {slug}/")]
    NotFound { repo: String, slug: String, searched: String },
    #[error("repository {repo}: commit {commit} is not in {source_path}; fetch it into that repository or pass a newer mirror")]
    MissingCommit { repo: String, commit: String, source_path: String },
    #[error("repository {repo}: `git {args}` failed: {stderr}")]
    Git { repo: String, args: String, stderr: String },
    #[error("repository {repo}: cannot run git ({source}); install git")]
    Spawn { repo: String, source: std::io::Error },
    #[error("repository name {0:?} is not of the form owner/name")]
    BadName(String),
}

/// Finds repositories and reads snapshots from them.
#[derive(Debug)]
pub struct RepoStore {
    search_dirs: Vec<PathBuf>,
    cache_dir: PathBuf,
    clone_from_github: bool,
    /// Serializes mirror creation so two workers never clone the same repository at once.
    mirror_lock: Mutex<()>,
    /// The git directory found to hold each (repository, commit).
    resolved: Mutex<HashMap<(String, String), PathBuf>>,
    /// One object reader per git directory, started on first use.
    readers: Mutex<HashMap<PathBuf, Arc<Mutex<ObjectReader>>>>,
}

impl RepoStore {
    pub fn new(search_dirs: Vec<PathBuf>, cache_dir: PathBuf, clone_from_github: bool) -> Self {
        Self {
            search_dirs,
            cache_dir,
            clone_from_github,
            mirror_lock: Mutex::new(()),
            resolved: Mutex::new(HashMap::new()),
            readers: Mutex::new(HashMap::new()),
        }
    }

    /// The `owner__name` form used for folder and file names.
    pub fn slug(repo: &str) -> Result<String, RepoError> {
        match repo.split_once('/') {
            Some((owner, name)) if !owner.is_empty() && !name.is_empty() && !name.contains('/') => {
                Ok(format!("{owner}__{name}"))
            }
            _ => Err(RepoError::BadName(repo.to_string())),
        }
    }

    /// A git directory holding `commit`, mirroring the source first when needed.
    pub fn git_dir(&self, repo: &str, commit: &str) -> Result<PathBuf, RepoError> {
        let key = (repo.to_string(), commit.to_string());
        if let Some(dir) = lock(&self.resolved).get(&key) {
            return Ok(dir.clone());
        }
        let dir = self.find_git_dir(repo, commit)?;
        lock(&self.resolved).insert(key, dir.clone());
        Ok(dir)
    }

    fn find_git_dir(&self, repo: &str, commit: &str) -> Result<PathBuf, RepoError> {
        let slug = Self::slug(repo)?;
        let _guard = self.mirror_lock.lock().unwrap_or_else(|e| e.into_inner());
        let has_commit = |dir: &Path| self.has_commit(dir, commit);
        let mirror = self.cache_dir.join("repos").join(format!("{slug}.git"));
        if mirror.exists() && has_commit(&mirror) {
            return Ok(mirror);
        }
        let source = self.find_source(repo, &slug)?;
        let source_is_bundle = source.extension().is_some_and(|e| e == "bundle");
        let source_is_url = source.to_string_lossy().starts_with("https://");
        if !source_is_bundle && !source_is_url {
            // A local repository is read in place.
            if has_commit(&source) {
                return Ok(source);
            }
            return Err(RepoError::MissingCommit {
                repo: repo.into(),
                commit: commit.into(),
                source_path: source.display().to_string(),
            });
        }
        let source_arg = source.to_string_lossy().into_owned();
        if mirror.exists() {
            git(repo, &mirror, &["fetch", "--quiet", &source_arg, "+refs/*:refs/*"])?;
        } else {
            std::fs::create_dir_all(mirror.parent().unwrap_or(Path::new(".")))
                .map_err(|source| RepoError::Spawn { repo: repo.into(), source })?;
            let mirror_arg = mirror.to_string_lossy().into_owned();
            git(repo, Path::new("."), &["clone", "--quiet", "--mirror", &source_arg, &mirror_arg])?;
        }
        if has_commit(&mirror) {
            Ok(mirror)
        } else {
            Err(RepoError::MissingCommit { repo: repo.into(), commit: commit.into(), source_path: source_arg })
        }
    }

    /// The git directory of a repository, for reading its whole history: a local repository in
    /// place, or the cache's mirror of a bundle or of GitHub (made or refreshed first).
    pub fn repository(&self, repo: &str) -> Result<PathBuf, RepoError> {
        let slug = Self::slug(repo)?;
        let source = self.find_source(repo, &slug)?;
        let source_is_bundle = source.extension().is_some_and(|e| e == "bundle");
        let source_is_url = source.to_string_lossy().starts_with("https://");
        if !source_is_bundle && !source_is_url {
            return Ok(source);
        }
        let _guard = self.mirror_lock.lock().unwrap_or_else(|e| e.into_inner());
        let mirror = self.cache_dir.join("repos").join(format!("{slug}.git"));
        let source_arg = source.to_string_lossy().into_owned();
        if mirror.exists() {
            git(repo, &mirror, &["fetch", "--quiet", &source_arg, "+refs/*:refs/*"])?;
        } else {
            std::fs::create_dir_all(mirror.parent().unwrap_or(Path::new(".")))
                .map_err(|source| RepoError::Spawn { repo: repo.into(), source })?;
            let mirror_arg = mirror.to_string_lossy().into_owned();
            git(repo, Path::new("."), &["clone", "--quiet", "--mirror", &source_arg, &mirror_arg])?;
        }
        Ok(mirror)
    }

    fn find_source(&self, repo: &str, slug: &str) -> Result<PathBuf, RepoError> {
        let (owner, name) = repo.split_once('/').ok_or_else(|| RepoError::BadName(repo.into()))?;
        for dir in &self.search_dirs {
            let candidates = [
                dir.join(format!("{slug}.bundle")),
                dir.join(format!("{slug}.git")),
                dir.join(slug),
                dir.join(owner).join(format!("{name}.git")),
                dir.join(owner).join(name),
            ];
            if let Some(found) = candidates.into_iter().find(|p| p.exists()) {
                return Ok(found);
            }
        }
        if self.clone_from_github {
            return Ok(PathBuf::from(format!("https://github.com/{repo}")));
        }
        Err(RepoError::NotFound {
            repo: repo.into(),
            slug: slug.into(),
            searched: if self.search_dirs.is_empty() {
                "no --repos folder".into()
            } else {
                self.search_dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
            },
        })
    }

    /// The tree at `commit` as a tar archive, every file as committed: `git archive` run where
    /// the repository's attributes are overridden ([`RepoStore::reader_dir`]), so that neither
    /// `export-ignore` nor `export-subst` nor end-of-line conversion changes what is in it.
    pub fn archive(&self, repo: &str, commit: &str) -> Result<Vec<u8>, RepoError> {
        let dir = self.git_dir(repo, commit)?;
        let reader = self.reader_dir(repo, &dir)?;
        let commit = resolve(repo, &dir, commit)?;
        git(repo, &reader, &["archive", "--format=tar", &commit])
    }

    /// `git ls-tree -r -z --full-tree` of `commit` without submodule entries (`git archive`
    /// leaves submodules out): what `/testbed` must hold, checked when its image is built.
    pub fn tree_listing(&self, repo: &str, commit: &str) -> Result<Vec<u8>, RepoError> {
        let dir = self.git_dir(repo, commit)?;
        let listing = git(repo, &dir, &["ls-tree", "-r", "-z", "--full-tree", commit])?;
        let mut out = Vec::with_capacity(listing.len());
        for entry in listing.split(|&b| b == 0).filter(|e| !e.is_empty() && !e.starts_with(b"160000 ")) {
            out.extend_from_slice(entry);
            out.push(0);
        }
        Ok(out)
    }

    /// A bare git directory of verdict's own that borrows `source`'s objects (git's
    /// alternates) and turns off the attributes that change an archive, without writing into
    /// the user's repository.
    fn reader_dir(&self, repo: &str, source: &Path) -> Result<PathBuf, RepoError> {
        let slug = Self::slug(repo)?;
        let _guard = self.mirror_lock.lock().unwrap_or_else(|e| e.into_inner());
        let reader = self.cache_dir.join("repos").join(format!("{slug}.reader.git"));
        let objects = git(repo, source, &["rev-parse", "--path-format=absolute", "--git-path", "objects"])?;
        let objects = String::from_utf8_lossy(&objects).trim().to_string();
        let io = |source: std::io::Error| RepoError::Spawn { repo: repo.into(), source };
        if !reader.join("HEAD").exists() {
            std::fs::create_dir_all(&reader).map_err(io)?;
            git(repo, &reader, &["init", "-q", "--bare"])?;
        }
        std::fs::create_dir_all(reader.join("info")).map_err(io)?;
        std::fs::write(reader.join("info").join("attributes"), TREE_AS_COMMITTED).map_err(io)?;
        std::fs::create_dir_all(reader.join("objects").join("info")).map_err(io)?;
        std::fs::write(reader.join("objects").join("info").join("alternates"), format!("{objects}\n")).map_err(io)?;
        Ok(reader)
    }

    /// The contents of `path` at `commit`, or `None` when the file does not exist there (or is
    /// a directory or a submodule).
    pub fn read_file(&self, repo: &str, commit: &str, path: &str) -> Result<Option<Vec<u8>>, RepoError> {
        let dir = self.git_dir(repo, commit)?;
        if path.contains(['\n', '\r']) {
            // Not expressible on `cat-file --batch`'s line protocol.
            return read_blob(repo, &dir, commit, path);
        }
        let object = self.object(&dir, &format!("{commit}:{path}")).map_err(|source| RepoError::Git {
            repo: repo.into(),
            args: format!("cat-file --batch ({commit}:{path})"),
            stderr: source.to_string(),
        })?;
        Ok(object.filter(|(kind, _)| kind == "blob").map(|(_, contents)| contents))
    }

    /// Whether `dir` holds `commit`, asked of its object reader.
    fn has_commit(&self, dir: &Path, commit: &str) -> bool {
        if commit.contains(['\n', '\r']) {
            return false;
        }
        matches!(self.object(dir, &format!("{commit}^{{commit}}")), Ok(Some((kind, _))) if kind == "commit")
    }

    /// The object `spec` names in `dir` (its type and contents), through the directory's
    /// long-lived reader. A reader that fails is started again once.
    fn object(&self, dir: &Path, spec: &str) -> std::io::Result<Option<(String, Vec<u8>)>> {
        for attempt in 0..2 {
            let reader = {
                let mut readers = lock(&self.readers);
                match readers.get(dir) {
                    Some(reader) => Arc::clone(reader),
                    None => {
                        let reader = Arc::new(Mutex::new(ObjectReader::spawn(dir)?));
                        readers.insert(dir.to_path_buf(), Arc::clone(&reader));
                        reader
                    }
                }
            };
            let result = lock(&reader).read(spec);
            match result {
                Ok(object) => return Ok(object),
                Err(e) => {
                    lock(&self.readers).remove(dir);
                    if attempt == 1 {
                        return Err(e);
                    }
                }
            }
        }
        unreachable!("the loop returns on its second attempt")
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A `git cat-file --batch` process over one git directory: object names in on stdin, each
/// answered on stdout by `<oid> <type> <size>`, the contents and a newline, or by
/// `<name> missing`.
#[derive(Debug)]
struct ObjectReader {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl ObjectReader {
    fn spawn(dir: &Path) -> std::io::Result<ObjectReader> {
        let mut child = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["cat-file", "--batch"])
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let broken = || std::io::Error::other("git cat-file --batch started without pipes");
        let stdin = child.stdin.take().ok_or_else(broken)?;
        let stdout = BufReader::new(child.stdout.take().ok_or_else(broken)?);
        Ok(ObjectReader { child, stdin: Some(stdin), stdout })
    }

    fn read(&mut self, spec: &str) -> std::io::Result<Option<(String, Vec<u8>)>> {
        let stdin = self.stdin.as_mut().ok_or_else(|| std::io::Error::other("the reader is closed"))?;
        stdin.write_all(spec.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()?;
        let mut header = String::new();
        if self.stdout.read_line(&mut header)? == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "git cat-file --batch exited"));
        }
        let header = header.trim_end_matches('\n');
        let mut fields = header.splitn(3, ' ');
        let (oid, kind, size) = (fields.next(), fields.next(), fields.next().and_then(|s| s.parse::<usize>().ok()));
        let found = oid.is_some_and(|o| matches!(o.len(), 40 | 64) && o.bytes().all(|b| b.is_ascii_hexdigit()));
        match (found, kind, size) {
            (true, Some(kind), Some(size)) => {
                let mut contents = vec![0; size + 1];
                self.stdout.read_exact(&mut contents)?;
                contents.pop();
                Ok(Some((kind.to_string(), contents)))
            }
            // `<name> missing`, `<name> ambiguous`: no such object.
            _ => Ok(None),
        }
    }
}

impl Drop for ObjectReader {
    fn drop(&mut self) {
        // Closing stdin ends the process; wait so that it leaves no zombie.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// Attributes that make git read and write every file as committed (the instance image's
/// `/testbed/.git/info/attributes` holds the same line).
pub const TREE_AS_COMMITTED: &str = "* -export-ignore -export-subst -text -eol -filter -ident\n";

/// The full id of `commit` (a sha, or a name the repository knows).
fn resolve(repo: &str, dir: &Path, commit: &str) -> Result<String, RepoError> {
    let out = git(repo, dir, &["rev-parse", "--verify", "--end-of-options", &format!("{commit}^{{commit}}")])?;
    Ok(String::from_utf8_lossy(&out).trim().to_string())
}

/// A repository at one commit, read file by file (what localization needs on the host).
pub struct GitSnapshot<'a> {
    pub store: &'a RepoStore,
    pub repo: String,
    pub commit: String,
}

impl crate::localize::Snapshot for GitSnapshot<'_> {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        self.store.read_file(&self.repo, &self.commit, path).map_err(|e| e.to_string())
    }
}

/// Reads one blob with two `git` processes; `None` when the path is absent at that commit.
fn read_blob(repo: &str, git_dir: &Path, commit: &str, path: &str) -> Result<Option<Vec<u8>>, RepoError> {
    let spec = format!("{commit}:{path}");
    let exists = Command::new("git")
        .arg("-C")
        .arg(git_dir)
        .args(["cat-file", "-e", &spec])
        .stderr(Stdio::null())
        .status()
        .map_err(|source| RepoError::Spawn { repo: repo.into(), source })?;
    if !exists.success() {
        return Ok(None);
    }
    git(repo, git_dir, &["cat-file", "blob", &spec]).map(Some)
}

fn git(repo: &str, dir: &Path, args: &[&str]) -> Result<Vec<u8>, RepoError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|source| RepoError::Spawn { repo: repo.into(), source })?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(RepoError::Git {
            repo: repo.into(),
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .status()
            .unwrap();
        assert!(ok.success(), "git {args:?}");
    }

    fn head(dir: &Path) -> String {
        let out = Command::new("git").arg("-C").arg(dir).args(["rev-parse", "HEAD"]).output().unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    #[test]
    fn bundle_is_mirrored_and_read() {
        let tmp = tempfile::tempdir().unwrap();
        let work = tmp.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        run(&work, &["init", "-q", "-b", "main"]);
        std::fs::write(work.join("a.txt"), "hello\n").unwrap();
        run(&work, &["add", "a.txt"]);
        run(&work, &["commit", "-qm", "one"]);
        let commit = head(&work);
        let repos = tmp.path().join("repos");
        std::fs::create_dir_all(&repos).unwrap();
        let bundle = repos.join("acme__tool.bundle");
        run(&work, &["bundle", "create", bundle.to_str().unwrap(), "main"]);

        let store = RepoStore::new(vec![repos], tmp.path().join("cache"), false);
        assert_eq!(store.read_file("acme/tool", &commit, "a.txt").unwrap(), Some(b"hello\n".to_vec()));
        assert_eq!(store.read_file("acme/tool", &commit, "missing.txt").unwrap(), None);
        let tar = store.archive("acme/tool", &commit).unwrap();
        assert!(tar.len() > 512);
        let err = store.archive("acme/tool", "0000000000000000000000000000000000000000").unwrap_err();
        assert!(matches!(err, RepoError::MissingCommit { .. }), "{err}");
        let err = store.archive("acme/other", &commit).unwrap_err();
        assert!(err.to_string().contains("acme__other.bundle"), "{err}");
    }

    fn tar_files(tar_bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
        use std::io::Read;
        let mut archive = tar::Archive::new(tar_bytes);
        let mut files: Vec<(String, Vec<u8>)> = archive
            .entries()
            .unwrap()
            .filter_map(|e| {
                let mut e = e.unwrap();
                if e.header().entry_type() != tar::EntryType::Regular {
                    return None;
                }
                let path = e.path().unwrap().to_string_lossy().into_owned();
                let mut data = Vec::new();
                e.read_to_end(&mut data).unwrap();
                Some((path, data))
            })
            .collect();
        files.sort();
        files
    }

    /// A tracked file that `.gitignore` matches, an `export-ignore`d one, an `export-subst`
    /// one and a CRLF file under `eol=crlf` all reach the archive as committed.
    #[test]
    fn archive_holds_the_tree_as_committed() {
        let tmp = tempfile::tempdir().unwrap();
        let work = tmp.path().join("repos").join("acme__tree");
        std::fs::create_dir_all(work.join("types")).unwrap();
        run(&work, &["init", "-q", "-b", "main"]);
        std::fs::write(work.join(".gitignore"), "types/\n").unwrap();
        std::fs::write(work.join("types/index.d.ts"), "export {};\n").unwrap();
        std::fs::write(work.join(".gitattributes"), "tests export-ignore\nv.txt export-subst\n*.bat eol=crlf\n")
            .unwrap();
        std::fs::write(work.join("tests"), "kept\n").unwrap();
        std::fs::write(work.join("v.txt"), "$Format:%H$\n").unwrap();
        std::fs::write(work.join("run.bat"), "echo 1\n").unwrap();
        run(&work, &["add", "-A", "-f"]);
        run(&work, &["commit", "-qm", "one"]);
        let commit = head(&work);

        let store = RepoStore::new(vec![tmp.path().join("repos")], tmp.path().join("cache"), false);
        let files = tar_files(&store.archive("acme/tree", &commit).unwrap());
        let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, [".gitattributes", ".gitignore", "run.bat", "tests", "types/index.d.ts", "v.txt"]);
        assert_eq!(files[5].1, b"$Format:%H$\n");
        assert_eq!(files[2].1, b"echo 1\n");
        // The user's repository was not written to.
        assert!(!work.join(".git/info/attributes").exists());

        let listing = store.tree_listing("acme/tree", &commit).unwrap();
        let entries: Vec<String> = listing
            .split(|&b| b == 0)
            .filter(|e| !e.is_empty())
            .map(|e| String::from_utf8_lossy(e).into_owned())
            .collect();
        assert_eq!(entries.len(), 6);
        assert!(
            entries.iter().any(|e| e.starts_with("100644 blob ") && e.ends_with("\ttypes/index.d.ts")),
            "{entries:?}"
        );
    }

    #[test]
    fn one_reader_serves_every_file_and_commit() {
        let tmp = tempfile::tempdir().unwrap();
        let work = tmp.path().join("acme__tool");
        std::fs::create_dir_all(work.join("src/sub dir")).unwrap();
        run(&work, &["init", "-q", "-b", "main"]);
        std::fs::write(work.join("src/a.py"), "one\n").unwrap();
        std::fs::write(work.join("src/sub dir/b c.txt"), "spaced\n").unwrap();
        std::fs::write(work.join("empty"), "").unwrap();
        std::fs::write(work.join("bytes.bin"), b"\x00\n\n\xff missing\n").unwrap();
        std::os::unix::fs::symlink("src/a.py", work.join("link")).unwrap();
        run(&work, &["add", "-A"]);
        run(&work, &["commit", "-qm", "one"]);
        let first = head(&work);
        std::fs::write(work.join("src/a.py"), "two\n").unwrap();
        run(&work, &["commit", "-qam", "two"]);
        let second = head(&work);

        let store = RepoStore::new(vec![tmp.path().to_path_buf()], tmp.path().join("cache"), false);
        let read = |commit: &str, path: &str| store.read_file("acme/tool", commit, path).unwrap();
        assert_eq!(read(&first, "src/a.py"), Some(b"one\n".to_vec()));
        assert_eq!(read(&second, "src/a.py"), Some(b"two\n".to_vec()));
        assert_eq!(read(&first, "src/sub dir/b c.txt"), Some(b"spaced\n".to_vec()));
        assert_eq!(read(&first, "empty"), Some(Vec::new()));
        assert_eq!(read(&first, "bytes.bin"), Some(b"\x00\n\n\xff missing\n".to_vec()));
        assert_eq!(read(&first, "link"), Some(b"src/a.py".to_vec()), "a link reads as its target");
        assert_eq!(read(&first, "src"), None, "a directory is not a file");
        assert_eq!(read(&first, "nope missing"), None);
        assert_eq!(lock(&store.readers).len(), 1, "one process for the repository");
        let err = store.read_file("acme/tool", "0000000000000000000000000000000000000000", "src/a.py").unwrap_err();
        assert!(matches!(err, RepoError::MissingCommit { .. }), "{err}");
    }
}
