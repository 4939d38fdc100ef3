//! How a Swarm job carries its inputs in and its files out without touching a node's engine.
//!
//! - **In**: the eval script and the patches, as a gzipped tar, base64 in environment variables
//!   (`VERDICT_IN_000`, …, each under the kernel's 128 KiB bound for one variable). The task's
//!   command unpacks them and `exec`s the wrapper with those variables removed, so neither the
//!   process's command line nor its environment holds them once the tests run.
//! - **Out**: after the eval script, the wrapper prints, behind the run's nonce marker, the OOM
//!   kills its cgroup counted and the output folder as a gzipped tar in base64. The code under
//!   test cannot forge these lines: the wrapper reads the marker from a file it deletes before
//!   the eval script starts (as the eval script deletes itself).
//!
//! [`FramedOutput`] splits the job's log stream back into the console (bounded, into
//! [`OutputSink`]) and the framed files. Everything here is pure and tested without Docker.

use std::io::{Read, Write};

use base64::Engine as _;

use crate::parse::StructuredReport;
use crate::run::docker::untar_reports;
use crate::run::output::{Captured, OutputSink};
use crate::run::script::IN_DIR;

/// Bytes of base64 in one environment variable.
const CHUNK: usize = 96 * 1024;
/// Compressed inputs larger than this cannot be carried in a job's environment.
pub const MAX_INPUT_BYTES: usize = 768 * 1024;
/// Framed reports larger than this (decoded) are not kept.
const MAX_FRAMED_BYTES: usize = 256 << 20;

/// The task's command (run by `bash -c`): unpack the inputs, drop them from the environment, run
/// the wrapper.
pub const ENTRY: &str = r#"for v in ${!VERDICT_IN_*}; do printf %s "${!v}"; done | base64 -d | tar -xz -C / || { echo "verdict: cannot unpack the job's inputs" >&2; exit 125; }
exec env $(for v in ${!VERDICT_IN_*}; do printf -- '-u %s ' "$v"; done) bash /verdict/in/run.sh"#;

/// The inputs of a job as environment variables, with the wrapper and the framing script added.
pub fn input_env(files: &[(String, Vec<u8>)], nonce: &str) -> std::io::Result<Vec<String>> {
    let mut all = files.to_vec();
    all.push(("run.sh".into(), wrapper().into_bytes()));
    all.push(("frame.sh".into(), framing(nonce).into_bytes()));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&crate::run::docker::inputs_tar(&all)?)?;
    let packed = gz.finish()?;
    if packed.len() > MAX_INPUT_BYTES {
        return Err(std::io::Error::other(format!(
            "the job's inputs are {} bytes compressed; a Swarm job carries at most {MAX_INPUT_BYTES}",
            packed.len()
        )));
    }
    let text = base64::engine::general_purpose::STANDARD.encode(packed);
    Ok(text
        .as_bytes()
        .chunks(CHUNK)
        .enumerate()
        .map(|(i, chunk)| format!("VERDICT_IN_{i:03}={}", String::from_utf8_lossy(chunk)))
        .collect())
}

/// Runs the eval script, then the framing (read into memory and deleted first).
fn wrapper() -> String {
    format!(
        "#!/bin/bash\nF=$(cat {IN_DIR}/frame.sh); rm -f {IN_DIR}/frame.sh \"$0\"\n\
         bash {IN_DIR}/eval.sh\ncode=$?\neval \"$F\"\nexit $code\n"
    )
}

/// Prints the OOM kill count of the job's cgroup (v2, else v1) and the output folder.
fn framing(nonce: &str) -> String {
    format!(
        "M=VERDICT-{nonce}\necho\n\
         echo \"$M OOM $(cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null | awk '$1 == \"oom_kill\" {{ print $2; exit }}')\"\n\
         echo \"$M FILES\"\n\
         tar -cz -C /verdict out 2>/dev/null | base64 -w 120\n\
         echo \"$M FILES END\"\n"
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Console,
    Files,
    Done,
}

/// A job's log stream, split into the console and the framed files.
pub struct FramedOutput {
    sink: OutputSink,
    files_marker: String,
    end_marker: String,
    oom_prefix: String,
    partial: Vec<u8>,
    state: State,
    base64: Vec<u8>,
    oom_kills: Option<u64>,
    notes: Vec<String>,
}

/// What came back.
pub struct Unframed {
    pub output: Captured,
    pub write_error: Option<std::io::Error>,
    pub files: Vec<StructuredReport>,
    /// `None` when the framing never ran (the job was killed first).
    pub oom_kills: Option<u64>,
    pub framed: bool,
    pub notes: Vec<String>,
}

impl FramedOutput {
    pub fn new(sink: OutputSink, nonce: &str) -> Self {
        let marker = format!("VERDICT-{nonce}");
        FramedOutput {
            sink,
            files_marker: format!("{marker} FILES"),
            end_marker: format!("{marker} FILES END"),
            oom_prefix: format!("{marker} OOM"),
            partial: Vec::new(),
            state: State::Console,
            base64: Vec::new(),
            oom_kills: None,
            notes: Vec::new(),
        }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            let (line, tail) = rest.split_at(at + 1);
            if self.partial.is_empty() {
                self.line(line);
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(line);
                self.line(&whole);
            }
            rest = tail;
        }
        if !rest.is_empty() {
            // A console line can be as long as it likes; keep only what the sink would.
            if self.state == State::Console && self.partial.len() > 1 << 20 {
                let taken = std::mem::take(&mut self.partial);
                self.sink.push(&taken);
            }
            self.partial.extend_from_slice(rest);
        }
    }

    fn line(&mut self, line: &[u8]) {
        let text = std::str::from_utf8(line).unwrap_or("").trim_end();
        match self.state {
            State::Console if text == self.files_marker => self.state = State::Files,
            State::Console if text.starts_with(&self.oom_prefix) => {
                self.oom_kills = Some(text[self.oom_prefix.len()..].trim().parse().unwrap_or(0));
            }
            State::Console | State::Done => self.sink.push(line),
            State::Files if text == self.end_marker => self.state = State::Done,
            State::Files => {
                if self.base64.len() + text.len() <= MAX_FRAMED_BYTES / 3 * 4 {
                    self.base64.extend_from_slice(text.as_bytes());
                } else if !self.notes.iter().any(|n| n.contains("framed reports")) {
                    self.notes.push(format!("the framed reports exceed {} MiB; none kept", MAX_FRAMED_BYTES >> 20));
                }
            }
        }
    }

    pub fn finish(mut self) -> Unframed {
        let partial = std::mem::take(&mut self.partial);
        if !partial.is_empty() {
            self.line(&partial);
        }
        let framed = self.state == State::Done;
        let mut files = Vec::new();
        let mut notes = std::mem::take(&mut self.notes);
        if framed && !self.base64.is_empty() && !notes.iter().any(|n| n.contains("framed reports")) {
            match decode(&self.base64) {
                Ok(tar) => files = untar_reports(&tar),
                Err(e) => notes.push(format!("the framed reports cannot be read ({e}); none kept")),
            }
        } else if self.state == State::Files {
            notes.push("the job's output ends inside the framed reports; none kept".into());
        }
        let (output, write_error) = self.sink.finish();
        Unframed { output, write_error, files, oom_kills: self.oom_kills, framed, notes }
    }
}

fn decode(base64_text: &[u8]) -> std::io::Result<Vec<u8>> {
    let gz = base64::engine::general_purpose::STANDARD.decode(base64_text).map_err(std::io::Error::other)?;
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(gz.as_slice()).take(MAX_FRAMED_BYTES as u64 + 1).read_to_end(&mut tar)?;
    if tar.len() > MAX_FRAMED_BYTES {
        return Err(std::io::Error::other("larger than the bound"));
    }
    Ok(tar)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::output::OutputSpec;

    fn framed(dir: &std::path::Path) -> FramedOutput {
        let spec = OutputSpec { path: dir.join("output.txt"), limit_bytes: 1 << 20 };
        FramedOutput::new(OutputSink::create(&spec), "abc")
    }

    /// The bytes the framing script prints for an output folder holding `files`.
    fn frame_of(files: &[(&str, &str)]) -> String {
        let mut builder = tar::Builder::new(Vec::new());
        for (name, body) in files {
            let mut header = tar::Header::new_gnu();
            header.set_size(body.len() as u64);
            header.set_mode(0o644);
            builder.append_data(&mut header, format!("out/{name}"), body.as_bytes()).unwrap();
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&builder.into_inner().unwrap()).unwrap();
        let text = base64::engine::general_purpose::STANDARD.encode(gz.finish().unwrap());
        let lines: Vec<&str> = text.as_bytes().chunks(120).map(|c| std::str::from_utf8(c).unwrap()).collect();
        format!("\nVERDICT-abc OOM 0\nVERDICT-abc FILES\n{}\nVERDICT-abc FILES END\n", lines.join("\n"))
    }

    #[test]
    fn the_console_and_the_framed_files_come_apart() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = framed(dir.path());
        let stream = format!(
            "VERDICT-abc TESTS START\ntest output\nVERDICT-abc END\n{}",
            frame_of(&[("junit.xml", "<testsuite/>"), ("collected/a.xml", "<x/>")])
        );
        // In uneven chunks, as service logs arrive.
        for chunk in stream.as_bytes().chunks(7) {
            out.push(chunk);
        }
        let got = out.finish();
        assert!(got.framed);
        assert_eq!(got.oom_kills, Some(0));
        assert_eq!(got.output.text, "VERDICT-abc TESTS START\ntest output\nVERDICT-abc END\n\n");
        let names: Vec<(&str, &[u8])> = got.files.iter().map(|f| (f.name.as_str(), f.bytes.as_slice())).collect();
        assert_eq!(names, vec![("collected/a.xml", &b"<x/>"[..]), ("junit.xml", &b"<testsuite/>"[..])]);
    }

    #[test]
    fn forged_frames_with_another_nonce_stay_console_and_oom_counts_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = framed(dir.path());
        out.push(b"VERDICT-xyz FILES\nnot a frame\nVERDICT-xyz FILES END\nVERDICT-abc OOM 2\n");
        let got = out.finish();
        assert!(!got.framed, "no frame of this run's nonce");
        assert_eq!(got.oom_kills, Some(2));
        assert!(got.output.text.contains("VERDICT-xyz FILES"), "{}", got.output.text);
        assert!(got.files.is_empty());
    }

    #[test]
    fn a_frame_cut_short_keeps_no_files_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = framed(dir.path());
        let frame = frame_of(&[("junit.xml", "<testsuite/>")]);
        out.push(&frame.as_bytes()[..frame.len() - 25]);
        let got = out.finish();
        assert!(!got.framed && got.files.is_empty());
        assert!(got.notes.iter().any(|n| n.contains("ends inside the framed reports")), "{:?}", got.notes);
    }

    #[test]
    fn inputs_fit_in_environment_variables_and_unpack_to_the_in_folder() {
        let files = vec![("eval.sh".to_string(), b"echo hi".to_vec()), ("test.diff".to_string(), vec![b'x'; 300_000])];
        let env = input_env(&files, "abc").unwrap();
        assert!(env.iter().all(|v| v.starts_with("VERDICT_IN_") && v.len() < 128 * 1024), "{}", env.len());
        let text: String = env.iter().map(|v| v.split_once('=').unwrap().1).collect();
        let gz = base64::engine::general_purpose::STANDARD.decode(text).unwrap();
        let mut tar = Vec::new();
        flate2::read::GzDecoder::new(gz.as_slice()).read_to_end(&mut tar).unwrap();
        let mut archive = tar::Archive::new(tar.as_slice());
        let names: Vec<String> =
            archive.entries().unwrap().map(|e| e.unwrap().path().unwrap().display().to_string()).collect();
        assert_eq!(names, ["verdict/in/eval.sh", "verdict/in/test.diff", "verdict/in/run.sh", "verdict/in/frame.sh"]);
        let big: Vec<(String, Vec<u8>)> =
            vec![("x".into(), (0..2_000_000u32).flat_map(|i| i.wrapping_mul(2654435761).to_le_bytes()).collect())];
        assert!(input_env(&big, "abc").is_err(), "incompressible megabytes do not fit");
    }
}
