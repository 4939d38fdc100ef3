//! How a Swarm job carries its inputs in and its files out without touching a node's engine.
//!
//! - **In**: the eval script and the patches, as a gzipped tar, base64 in environment variables
//!   (`VERDICT_IN_000`, …, each under the kernel's 128 KiB bound for one variable). The task's
//!   command unpacks them and `exec`s the wrapper with those variables removed, so neither the
//!   process's command line nor its environment holds them once the tests run.
//! - **Out**: after the eval script, the wrapper prints, behind the run's nonce marker, the OOM
//!   kills its cgroup counted, the eval script's exit code and duration (measured in the
//!   container, as the local backend's wait measures it) and the output folder as a gzipped tar
//!   in base64. The frame's last line ends the job for verdict: it need not wait for the task's
//!   end to reach the manager. The code under
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
        "#!/bin/bash\nT0=$EPOCHREALTIME\nF=$(cat {IN_DIR}/frame.sh); rm -f {IN_DIR}/frame.sh \"$0\"\n\
         bash {IN_DIR}/eval.sh\ncode=$?\neval \"$F\"\nexit $code\n"
    )
}

/// Prints the OOM kill count of the job's cgroup (v2, else v1), the eval script's exit code
/// (`$code`) and its start and end (`$T0`, now; bash 5's clock), all set by the wrapper, and the
/// output folder.
fn framing(nonce: &str) -> String {
    format!(
        "M=VERDICT-{nonce}\necho\n\
         echo \"$M OOM $(cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null | awk '$1 == \"oom_kill\" {{ print $2; exit }}')\"\n\
         echo \"$M EXIT $code\"\n\
         echo \"$M WALL $T0 $EPOCHREALTIME\"\n\
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
    /// `VERDICT-<nonce> `, which opens each of the wrapper's lines: then a word and its value.
    marker: String,
    partial: Vec<u8>,
    state: State,
    base64: Vec<u8>,
    oom_kills: Option<u64>,
    exit_code: Option<i64>,
    wall: Option<std::time::Duration>,
    notes: Vec<String>,
}

/// What came back.
pub struct Unframed {
    pub output: Captured,
    pub write_error: Option<std::io::Error>,
    pub files: Vec<StructuredReport>,
    /// `None` when the framing never ran (the job was killed first).
    pub oom_kills: Option<u64>,
    /// The eval script's exit code, as the framing printed it (`None` without the framing).
    pub exit_code: Option<i64>,
    /// How long the wrapper ran, by the container's clock (`None` without the framing).
    pub wall: Option<std::time::Duration>,
    pub framed: bool,
    pub notes: Vec<String>,
}

impl FramedOutput {
    pub fn new(sink: OutputSink, nonce: &str) -> Self {
        FramedOutput {
            sink,
            marker: format!("VERDICT-{nonce} "),
            partial: Vec::new(),
            state: State::Console,
            base64: Vec::new(),
            oom_kills: None,
            exit_code: None,
            wall: None,
            notes: Vec::new(),
        }
    }

    /// Whether the frame's last line has come: the job has nothing more to say.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
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
        let framing = text.strip_prefix(self.marker.as_str()).map(|rest| rest.split_once(' ').unwrap_or((rest, "")));
        match (self.state, framing) {
            (State::Console, Some(("FILES", ""))) => self.state = State::Files,
            (State::Console, Some(("OOM", value))) => self.oom_kills = Some(value.trim().parse().unwrap_or(0)),
            (State::Console, Some(("EXIT", value))) => self.exit_code = value.trim().parse().ok(),
            (State::Console, Some(("WALL", value))) => self.wall = elapsed(value),
            (State::Console | State::Done, _) => self.sink.push(line),
            (State::Files, Some(("FILES", "END"))) => self.state = State::Done,
            (State::Files, _) => {
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
        let (exit_code, wall) = if framed { (self.exit_code, self.wall) } else { (None, None) };
        Unframed { output, write_error, files, oom_kills: self.oom_kills, exit_code, wall, framed, notes }
    }
}

/// The time between two `$EPOCHREALTIME` readings ("1733072400.123456 1733072410.654321"; a
/// comma where the locale has one), or `None` if either is missing.
fn elapsed(readings: &str) -> Option<std::time::Duration> {
    let mut seconds = readings.split_whitespace().map(|r| r.replace(',', ".").parse::<f64>().ok());
    let (start, end) = (seconds.next()??, seconds.next()??);
    (end >= start).then(|| std::time::Duration::from_secs_f64(end - start))
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
        format!("\nVERDICT-abc OOM 0\nVERDICT-abc EXIT 1\nVERDICT-abc WALL 100.25 110.75\nVERDICT-abc FILES\n{}\nVERDICT-abc FILES END\n", lines.join("\n"))
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
        let chunks: Vec<&[u8]> = stream.as_bytes().chunks(7).collect();
        for (i, chunk) in chunks.iter().enumerate() {
            assert!(!out.is_done(), "done before chunk {i} of {}", chunks.len());
            out.push(chunk);
        }
        assert!(out.is_done(), "the frame's last line ends the job");
        let got = out.finish();
        assert!(got.framed);
        assert_eq!(got.oom_kills, Some(0));
        assert_eq!(got.exit_code, Some(1));
        assert_eq!(got.wall, Some(std::time::Duration::from_millis(10_500)));
        assert_eq!(got.output.text, "VERDICT-abc TESTS START\ntest output\nVERDICT-abc END\n\n");
        let names: Vec<(&str, &[u8])> = got.files.iter().map(|f| (f.name.as_str(), f.bytes.as_slice())).collect();
        assert_eq!(names, vec![("collected/a.xml", &b"<x/>"[..]), ("junit.xml", &b"<testsuite/>"[..])]);
    }

    #[test]
    fn forged_frames_with_another_nonce_stay_console_and_oom_counts_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = framed(dir.path());
        out.push(b"VERDICT-xyz FILES\nnot a frame\nVERDICT-xyz FILES END\nVERDICT-xyz EXIT 0\nVERDICT-abc OOM 2\n");
        assert!(!out.is_done());
        let got = out.finish();
        assert!(!got.framed, "no frame of this run's nonce");
        assert_eq!(got.exit_code, None, "no exit code without this run's frame");
        assert_eq!(got.oom_kills, Some(2));
        assert!(got.output.text.contains("VERDICT-xyz FILES"), "{}", got.output.text);
        assert!(got.files.is_empty());
    }

    #[test]
    fn durations_come_from_two_clock_readings() {
        assert_eq!(elapsed(" 10.5 12.75"), Some(std::time::Duration::from_millis(2250)));
        assert_eq!(elapsed("10,5 12,75"), Some(std::time::Duration::from_millis(2250)), "a comma locale");
        assert_eq!(elapsed(" 12.75"), None, "bash before 5 has no $EPOCHREALTIME: one reading");
        assert_eq!(elapsed(""), None);
        assert_eq!(elapsed("12 10"), None, "a clock set back gives nothing");
    }

    #[test]
    fn a_frame_cut_short_keeps_no_files_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = framed(dir.path());
        let frame = frame_of(&[("junit.xml", "<testsuite/>")]);
        out.push(&frame.as_bytes()[..frame.len() - 25]);
        assert!(!out.is_done());
        let got = out.finish();
        assert!(!got.framed && got.files.is_empty());
        assert_eq!(got.exit_code, None, "a frame cut short gives no exit code");
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
