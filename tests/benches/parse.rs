//! Parsing speed on large logs and reports, against a baseline measured in the same run.
//!
//! Run with `cargo bench --bench parse` (release build). It generates in memory, for each
//! runner, about 50 MB of output shaped like the real thing (`VERDICT_BENCH_MB` changes the
//! size): a pytest console log (tracebacks plus the `-rA` summary, no XML), a jest `--json`
//! report, a mocha JSON report and surefire `TEST-*.xml` reports. Each is parsed with
//! `verdict::parse::parse`, best of `VERDICT_BENCH_RUNS` runs (default 3). The baseline is
//! counting the newlines of the same bytes (a memchr-speed scan), so the ratio says how many
//! "line counts" one parse costs, independently of the machine's speed. Goal: well under a
//! second per 50 MB. `VERDICT_BENCH_ONLY=jest` runs only the inputs whose name contains it.
//!
//! The pytest console is also parsed by SWE-bench's own `parse_log_pytest` when
//! `SWEBENCH_PYTHON` names a Python that has the `swebench` package (a venv with
//! `pip install swebench==5.0.2`): the same bytes, written to a temporary file, timed inside
//! Python around the call alone (best of the same number of runs), in the same run. Its time
//! over verdict's is the speed ratio (goal ≥ 10×). Without the variable the bench says so.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use verdict::parse::{parse, RunnerId, StructuredReport};

fn main() {
    let mb: usize = std::env::var("VERDICT_BENCH_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(50);
    let runs: usize = std::env::var("VERDICT_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let target = mb * 1024 * 1024;
    println!("parse benchmark: ~{mb} MB per runner, best of {runs} runs");
    println!(
        "{:<26} {:>8} {:>9} {:>10} {:>10} {:>9} {:>8}",
        "input", "MB", "tests", "parse ms", "base ms", "ratio", "MB/s"
    );
    let cases: Vec<(&str, RunnerId, String, Vec<StructuredReport>)> = vec![
        ("pytest console (-rA)", runner("pytest"), pytest_console(target), vec![]),
        ("jest --json", runner("jest"), String::new(), vec![report("jest.json", jest_json(target))]),
        ("mocha json", runner("mocha"), String::new(), vec![report("mocha.json", mocha_json(target))]),
        ("surefire TEST-*.xml", runner("maven"), String::new(), surefire_xml(target)),
    ];
    let only = std::env::var("VERDICT_BENCH_ONLY").unwrap_or_default();
    for (name, kind, console, reports) in cases.iter().filter(|c| c.0.contains(only.as_str())) {
        let bytes: Vec<&[u8]> =
            std::iter::once(console.as_bytes()).chain(reports.iter().map(|r| r.bytes.as_slice())).collect();
        let size: usize = bytes.iter().map(|b| b.len()).sum();
        let base = best(runs, || {
            black_box(bytes.iter().map(|b| b.iter().filter(|&&c| c == b'\n').count()).sum::<usize>());
        });
        let mut tests = 0;
        let took = best(runs, || {
            let parsed = parse(*kind, black_box(console), black_box(reports)).expect("benchmark input parses");
            tests = parsed.tests.len();
        });
        let megabytes = size as f64 / (1024.0 * 1024.0);
        println!(
            "{:<26} {:>8.1} {:>9} {:>10.1} {:>10.2} {:>8.0}x {:>8.0}",
            name,
            megabytes,
            tests,
            ms(took),
            ms(base),
            took.as_secs_f64() / base.as_secs_f64().max(1e-9),
            megabytes / took.as_secs_f64()
        );
        if name.starts_with("pytest") {
            // On-CPU time too: on a shared machine it is what a parse costs one core.
            let mut cpu = f64::INFINITY;
            for _ in 0..runs.max(1) {
                let before = cpu_secs();
                black_box(parse(*kind, black_box(console), black_box(reports)).expect("benchmark input parses"));
                if let (Some(a), Some(b)) = (before, cpu_secs()) {
                    cpu = cpu.min(b - a);
                }
            }
            compare_with_swebench(console, runs, took, cpu, tests);
        }
    }
}

/// Seconds this thread has spent on a CPU (Linux).
fn cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(stat.split_whitespace().next()?.parse::<u64>().ok()? as f64 / 1e9)
}

/// SWE-bench's `parse_log_pytest` on the same log, when `SWEBENCH_PYTHON` is set: its best wall
/// and on-CPU (`time.thread_time`) times against verdict's.
fn compare_with_swebench(console: &str, runs: usize, verdict: Duration, verdict_cpu: f64, verdict_tests: usize) {
    let Some(python) = std::env::var_os("SWEBENCH_PYTHON") else {
        println!(
            "  swebench: not run (set SWEBENCH_PYTHON to a Python with `pip install swebench==5.0.2` to compare \
             with SWE-bench's parse_log_pytest)"
        );
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let log = dir.path().join("pytest.log");
    std::fs::write(&log, console).expect("write the log");
    let script = format!(
        "import sys, time\n\
         from swebench.harness.log_parsers.python import parse_log_pytest\n\
         log = open(sys.argv[1], encoding='utf-8').read()\n\
         best, best_cpu = None, None\n\
         for _ in range({runs}):\n\
         \x20   start, start_cpu = time.perf_counter(), time.thread_time()\n\
         \x20   result = parse_log_pytest(log, None)\n\
         \x20   took, cpu = time.perf_counter() - start, time.thread_time() - start_cpu\n\
         \x20   best = took if best is None else min(best, took)\n\
         \x20   best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)\n\
         print(best, len(result), best_cpu)\n",
        runs = runs.max(1)
    );
    let out = std::process::Command::new(&python).arg("-c").arg(&script).arg(&log).output();
    let out = match out {
        Ok(out) if out.status.success() => out,
        Ok(out) => {
            println!("  swebench: {} failed: {}", PathDisplay(&python), String::from_utf8_lossy(&out.stderr).trim());
            return;
        }
        Err(e) => {
            println!("  swebench: cannot run {}: {e}", PathDisplay(&python));
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut words = text.split_whitespace();
    let (Some(secs), Some(tests), Some(cpu)) = (
        words.next().and_then(|w| w.parse::<f64>().ok()),
        words.next().and_then(|w| w.parse::<usize>().ok()),
        words.next().and_then(|w| w.parse::<f64>().ok()),
    ) else {
        println!("  swebench: unexpected output {text:?}");
        return;
    };
    println!(
        "  swebench parse_log_pytest: {:.1} ms wall, {:.1} ms on-CPU, {tests} tests (verdict: {:.1} ms wall, {:.1} ms \
         on-CPU, {verdict_tests} tests); verdict is {:.1}x faster (wall), {:.1}x (on-CPU)",
        secs * 1000.0,
        cpu * 1000.0,
        ms(verdict),
        verdict_cpu * 1000.0,
        secs / verdict.as_secs_f64().max(1e-9),
        cpu / verdict_cpu.max(1e-9)
    );
}

struct PathDisplay<'a>(&'a std::ffi::OsStr);

impl std::fmt::Display for PathDisplay<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.to_string_lossy())
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn best(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn report(name: &str, text: String) -> StructuredReport {
    StructuredReport { name: name.to_string(), bytes: text.into_bytes() }
}

/// A pytest run: a FAILURES section with tracebacks, then the short test summary with one line
/// per test (parametrized ids with spaces, brackets and ` - `).
fn pytest_console(target: usize) -> String {
    let mut out = String::with_capacity(target + 4096);
    out.push_str("============================= test session starts ==============================\n");
    out.push_str("platform linux -- Python 3.11.7, pytest-8.3.4, pluggy-1.7.0\nrootdir: /testbed\n");
    out.push_str("=================================== FAILURES ===================================\n");
    let traceback = "    def test_params(text):\n>       assert \"b\" not in text\nE       AssertionError: assert 'b' not in 'a - b'\n\ntests/test_basic.py:14: AssertionError\n";
    while out.len() < target / 2 {
        let _ = write!(out, "_______________ test_params[case {}] _______________\n\n{traceback}", out.len());
    }
    out.push_str("=========================== short test summary info ============================\n");
    let mut i = 0usize;
    while out.len() < target {
        let module = i / 500;
        let _ = match i % 10 {
            0 => writeln!(out, "FAILED tests/pkg{module}/test_mod.py::TestClass::test_case[a - b {i}] - AssertionError: assert [1] == [2]"),
            1 => writeln!(out, "ERROR tests/pkg{module}/test_mod.py::test_fixture[{i}] - RuntimeError: boom"),
            2 => writeln!(out, "XFAIL tests/pkg{module}/test_mod.py::test_known[{i}] - reason"),
            3 => writeln!(out, "SKIPPED [1] tests/pkg{module}/test_mod.py:{i}: not today"),
            _ => writeln!(out, "PASSED tests/pkg{module}/test_mod.py::TestClass::test_case[naïve [x] {i}]"),
        };
        i += 1;
    }
    out.push_str("=== 1 failed, 8 passed in 100.00s ===\n");
    out
}

fn jest_json(target: usize) -> String {
    let mut out = String::with_capacity(target + 4096);
    out.push_str("{\"numFailedTestSuites\":1,\"numPassedTests\":1,\"success\":false,\"testResults\":[");
    let mut file = 0usize;
    while out.len() < target {
        if file > 0 {
            out.push(',');
        }
        let _ = write!(out, "{{\"name\":\"/testbed/src/module{file}/feature.test.js\",\"status\":\"failed\",\"message\":\"\",\"startTime\":1,\"endTime\":2,\"assertionResults\":[");
        for t in 0..200 {
            if t > 0 {
                out.push(',');
            }
            let (status, failure) = if t % 17 == 0 {
                ("failed", "[\"Error: expect(received).toBe(expected)\\n\\nExpected: 5\\nReceived: 4\\n    at Object.<anonymous> (src/feature.test.js:12:25)\"]")
            } else if t % 23 == 0 {
                ("pending", "[]")
            } else {
                ("passed", "[]")
            };
            let _ = write!(
                out,
                "{{\"ancestorTitles\":[\"feature {file}\",\"group {}\"],\"duration\":3,\"failureMessages\":{failure},\"fullName\":\"feature {file} group {} handles case {t}\",\"status\":\"{status}\",\"title\":\"handles case {t} (edge) - [x]\"}}",
                t / 10,
                t / 10
            );
        }
        out.push_str("]}");
        file += 1;
    }
    out.push_str("]}");
    out
}

fn mocha_json(target: usize) -> String {
    // Build the test objects once, then list them under `tests` and their outcome list.
    let mut tests = Vec::new();
    let mut size = 0usize;
    let mut i = 0usize;
    while size < target / 2 {
        let failed = i % 13 == 0;
        let err = if failed {
            "{\"message\":\"expected 1 to equal 2\",\"stack\":\"AssertionError: expected 1 to equal 2\\n    at Context.<anonymous> (test/x.spec.js:10:5)\"}"
        } else {
            "{}"
        };
        let t = format!(
            "{{\"title\":\"does thing {i}\",\"fullTitle\":\"Suite {} nested does thing {i}\",\"file\":\"/testbed/test/suite{}.spec.js\",\"duration\":1,\"currentRetry\":0,\"err\":{err}}}",
            i / 50,
            i / 50
        );
        size += t.len();
        tests.push((t, failed));
        i += 1;
    }
    let join = |items: &mut dyn Iterator<Item = &String>| items.cloned().collect::<Vec<_>>().join(",");
    format!(
        "{{\"stats\":{{\"tests\":{}}},\"tests\":[{}],\"pending\":[],\"failures\":[{}],\"passes\":[{}]}}",
        tests.len(),
        join(&mut tests.iter().map(|(t, _)| t)),
        join(&mut tests.iter().filter(|(_, f)| *f).map(|(t, _)| t)),
        join(&mut tests.iter().filter(|(_, f)| !*f).map(|(t, _)| t)),
    )
}

/// One `TEST-*.xml` per class, 100 test cases each, with properties and stack traces.
fn surefire_xml(target: usize) -> Vec<StructuredReport> {
    let mut reports = Vec::new();
    let mut total = 0usize;
    let mut class = 0usize;
    while total < target {
        let name = format!("com.example.pkg{}.Feature{class}Test", class / 20);
        let mut out = String::with_capacity(64 * 1024);
        let _ = write!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"{name}\" time=\"1.0\" tests=\"100\" errors=\"1\" skipped=\"1\" failures=\"1\">\n  <properties>\n");
        for p in 0..40 {
            let _ = writeln!(
                out,
                "    <property name=\"java.prop{p}\" value=\"/usr/lib/jvm/java-17-openjdk-amd64/lib/value{p}\"/>"
            );
        }
        out.push_str("  </properties>\n");
        for t in 0..100 {
            let _ = write!(out, "  <testcase name=\"testAdd(int, int)[{t}]\" classname=\"{name}\" time=\"0.001\"");
            match t % 25 {
                0 => {
                    let _ = write!(out, ">\n    <failure message=\"expected: &lt;5&gt; but was: &lt;4&gt;\" type=\"org.opentest4j.AssertionFailedError\"><![CDATA[org.opentest4j.AssertionFailedError: expected: <5> but was: <4>\n\tat {name}.testAdd(Feature.java:22)\n]]></failure>\n    <system-out><![CDATA[log line\n]]></system-out>\n  </testcase>\n");
                }
                1 => out.push_str(">\n    <error message=\"/ by zero\" type=\"java.lang.ArithmeticException\">java.lang.ArithmeticException: / by zero</error>\n  </testcase>\n"),
                2 => out.push_str(">\n    <skipped message=\"not ready\"/>\n  </testcase>\n"),
                _ => out.push_str("/>\n"),
            }
        }
        out.push_str("</testsuite>\n");
        total += out.len();
        reports.push(report(&format!("surefire/TEST-{name}.xml"), out));
        class += 1;
    }
    reports
}

fn runner(name: &str) -> RunnerId {
    RunnerId::named(name).expect("a runner of the table")
}
