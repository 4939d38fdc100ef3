//! A job's console output, streamed to disk and kept bounded: the first part and the last part
//! are kept (in memory for parsing, and in `output.txt`), and whatever lies between them past
//! the limit is left out with a note saying how much. A candidate that prints gigabytes costs
//! verdict the limit, not the gigabytes.
//!
//! The head is written to the file as it arrives; the tail is a ring that is written at the
//! end. Cuts fall on line boundaries, so a parser never sees half a line at a cut.

use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Default bound on the output kept of one job (`--max-output`, MiB).
pub const DEFAULT_LIMIT_MIB: u64 = 32;

/// How the limit is shared: a quarter for the head (where the script's apply markers are), the
/// rest for the tail (where the runner's summary and the script's end markers are).
const HEAD_SHARE: usize = 4;

/// Where a job's output goes and how much of it is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputSpec {
    pub path: PathBuf,
    pub limit_bytes: usize,
}

/// The output kept of one job.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    /// The head, the note (when something was left out) and the tail.
    pub text: String,
    /// Every byte the job printed.
    pub total_bytes: u64,
    /// Bytes left out between the head and the tail.
    pub omitted_bytes: u64,
}

impl Captured {
    /// Output that needed no bounding (tests, and backends that return it whole).
    pub fn whole(bytes: &[u8]) -> Captured {
        Captured {
            text: String::from_utf8_lossy(bytes).into_owned(),
            total_bytes: bytes.len() as u64,
            omitted_bytes: 0,
        }
    }
}

/// Receives output chunks as they arrive.
pub struct OutputSink {
    file: Option<std::io::BufWriter<std::fs::File>>,
    path: PathBuf,
    head_limit: usize,
    tail_limit: usize,
    head: Vec<u8>,
    head_done: bool,
    tail: VecDeque<u8>,
    total: u64,
    /// Bytes pushed out of the tail ring (so left out).
    dropped: u64,
    error: Option<std::io::Error>,
}

impl OutputSink {
    /// A sink writing to `spec.path` (its folder is made).
    pub fn create(spec: &OutputSpec) -> OutputSink {
        let limit = spec.limit_bytes.max(2 * HEAD_SHARE);
        let head_limit = limit / HEAD_SHARE;
        let mut sink = OutputSink {
            file: None,
            path: spec.path.clone(),
            head_limit,
            tail_limit: limit - head_limit,
            head: Vec::new(),
            head_done: false,
            tail: VecDeque::new(),
            total: 0,
            dropped: 0,
            error: None,
        };
        let opened =
            spec.path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::File::create(&spec.path));
        match opened {
            Ok(file) => sink.file = Some(std::io::BufWriter::with_capacity(1 << 16, file)),
            Err(e) => sink.error = Some(e),
        }
        sink
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Takes the next chunk of output.
    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if !self.head_done {
            let room = self.head_limit - self.head.len();
            let take = room.min(bytes.len());
            self.write(&bytes[..take]);
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.head.len() < self.head_limit {
                return;
            }
            self.head_done = true;
        }
        if bytes.len() >= self.tail_limit {
            self.dropped += (self.tail.len() + bytes.len() - self.tail_limit) as u64;
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_limit..]);
            return;
        }
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.tail_limit);
        self.tail.drain(..overflow);
        self.dropped += overflow as u64;
        self.tail.extend(bytes);
    }

    fn write(&mut self, bytes: &[u8]) {
        if let Some(file) = &mut self.file {
            if let Err(e) = file.write_all(bytes) {
                self.error.get_or_insert(e);
                self.file = None;
            }
        }
    }

    /// Writes the rest (the note and the tail) and returns what was kept. A file that could not
    /// be written is reported as the error, with the output still returned in memory.
    pub fn finish(mut self) -> (Captured, Option<std::io::Error>) {
        let mut tail: Vec<u8> = std::mem::take(&mut self.tail).into();
        let mut omitted = self.dropped;
        if omitted > 0 {
            // Start the tail on a line of its own, and end the head on a whole line.
            let cut = tail.iter().position(|&b| b == b'\n').map_or(tail.len(), |i| i + 1);
            tail.drain(..cut);
            omitted += cut as u64;
        }
        let mut head_text = String::from_utf8_lossy(&self.head).into_owned();
        let mut note = String::new();
        if omitted > 0 {
            let line_start = head_text.rfind('\n').map_or(0, |i| i + 1);
            let partial = head_text.len() - line_start;
            note = format!(
                "{}[verdict: {} of output left out here ({} printed in all; the first {} and the last {} are kept, --max-output sets the bound)]\n",
                if partial > 0 { "\n" } else { "" },
                bytes(omitted + partial as u64),
                bytes(self.total),
                bytes(self.head_limit as u64),
                bytes(self.tail_limit as u64),
            );
            omitted += partial as u64;
            head_text.truncate(line_start);
            // The file already holds the partial line; the note starts on the next one.
        }
        self.write(note.as_bytes());
        self.write(&tail);
        if let Some(file) = &mut self.file {
            if let Err(e) = file.flush() {
                self.error.get_or_insert(e);
            }
        }
        let mut text = head_text;
        text.push_str(note.trim_start_matches('\n'));
        text.push_str(&String::from_utf8_lossy(&tail));
        (Captured { text, total_bytes: self.total, omitted_bytes: omitted }, self.error)
    }
}

fn bytes(n: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    if n as f64 >= MIB {
        format!("{:.1} MiB", n as f64 / MIB)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sink(dir: &Path, limit: usize) -> OutputSink {
        OutputSink::create(&OutputSpec { path: dir.join("out/output.txt"), limit_bytes: limit })
    }

    #[test]
    fn small_output_is_kept_whole_in_memory_and_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = sink(dir.path(), 1024);
        s.push(b"line one\n");
        s.push(b"line two\n");
        let path = s.path().to_path_buf();
        let (kept, error) = s.finish();
        assert!(error.is_none());
        assert_eq!(kept.text, "line one\nline two\n");
        assert_eq!((kept.total_bytes, kept.omitted_bytes), (18, 0));
        assert_eq!(std::fs::read_to_string(path).unwrap(), kept.text);
    }

    #[test]
    fn huge_output_keeps_head_and_tail_on_line_boundaries_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = sink(dir.path(), 400);
        s.push(b"START marker\n");
        let mut printed = 13u64;
        for i in 0..10_000 {
            let line = format!("noise line {i:05}\n");
            printed += line.len() as u64;
            // Uneven chunks, as an engine delivers them.
            let (a, b) = line.as_bytes().split_at(7);
            s.push(a);
            s.push(b);
        }
        s.push(b"EXIT 0\nEND\n");
        printed += 11;
        let path = s.path().to_path_buf();
        let (kept, _) = s.finish();
        assert_eq!(kept.total_bytes, printed);
        assert!(kept.text.starts_with("START marker\nnoise line 00000\n"), "{}", kept.text);
        assert!(kept.text.ends_with("noise line 09999\nEXIT 0\nEND\n"), "{}", kept.text);
        assert!(kept.text.contains("[verdict: ") && kept.text.contains("left out here"), "{}", kept.text);
        for line in kept.text.lines() {
            assert!(
                line == "START marker"
                    || line.starts_with("[verdict: ")
                    || line == "EXIT 0"
                    || line == "END"
                    || (line.starts_with("noise line ") && line.len() == 16),
                "a cut line: {line:?}"
            );
        }
        let kept_bytes =
            kept.text.len() as u64 - kept.text.lines().find(|l| l.starts_with("[verdict")).unwrap().len() as u64 - 1;
        assert_eq!(kept_bytes + kept.omitted_bytes, printed, "every byte is kept or counted as left out");
        assert!(kept.text.len() < 600, "bounded: {}", kept.text.len());
        // The file holds the same lines (the head's partial last line too, before the note).
        let on_disk = std::fs::read_to_string(path).unwrap();
        assert!(on_disk.len() < 700, "{}", on_disk.len());
        assert!(on_disk.ends_with("EXIT 0\nEND\n"));
        assert!(on_disk.contains("left out here"));
    }

    #[test]
    fn one_chunk_larger_than_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = sink(dir.path(), 80);
        let big: String = (0..100).map(|i| format!("{i:04}\n")).collect();
        s.push(big.as_bytes());
        let (kept, _) = s.finish();
        assert!(kept.text.starts_with("0000\n0001\n0002\n"), "{}", kept.text);
        assert!(kept.text.ends_with("0099\n"), "{}", kept.text);
        assert_eq!(kept.total_bytes, 500);
        assert!(kept.omitted_bytes > 400);
    }

    #[test]
    fn an_unwritable_file_still_returns_the_output() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("out"), "a file where the folder should be").unwrap();
        let mut s = sink(dir.path(), 1024);
        s.push(b"hello\n");
        let (kept, error) = s.finish();
        assert_eq!(kept.text, "hello\n");
        assert!(error.is_some());
    }
}
