//! Publishable reports from real runs of part of the demo: one run of two prediction files (the
//! bundled predictions and `tests/fixtures/reports/third.jsonl`, whose records name a method)
//! and one of `gold`, then `verdict compare` in every format checked against the runs'
//! summaries, the HTML reports loaded in headless Chromium, the JUnit XML parsed back, and
//! `--apply-only` checked against the full run's apply rates. One set of runs serves every
//! assertion, on fast instances (Python and mocha), to keep CI short.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::*;

/// Fast demo instances covering every outcome the comparison needs, Python and JavaScript.
const SUBSET: &str = "verdict-demo__pycalc-1,verdict-demo__pycalc-2,verdict-demo__pycalc-4,verdict-demo__textkit-1,\
verdict-demo__textkit-2,verdict-demo__textkit-3,verdict-demo__textkit-4,verdict-demo__mochatext-1";

/// What `third.jsonl` must produce.
const THIRD: &[(&str, &str)] = &[
    ("verdict-demo__pycalc-1", "empty_patch"),
    ("verdict-demo__pycalc-2", "resolved_full"),
    ("verdict-demo__pycalc-4", "resolved_full"),
    ("verdict-demo__textkit-1", "resolved_full"),
    ("verdict-demo__textkit-2", "patch_apply_failed"),
    ("verdict-demo__textkit-3", "resolved_full"),
    ("verdict-demo__textkit-4", "unresolved"),
    ("verdict-demo__mochatext-1", "patch_apply_failed"),
];

/// The page as headless Chromium leaves it once its scripts have run (`--dump-dom`). Chromium
/// comes from Debian's `chromium` package, which `dockerfiles/engine.sh` installs; without it
/// this fails, saying so.
pub fn browser_dom(page: &Path, fragment: &str) -> String {
    let browser = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|b| Command::new(b).arg("--version").output().is_ok_and(|o| o.status.success()))
        .unwrap_or_else(|| {
            panic!(
                "the HTML report tests need Chromium: run `bash dockerfiles/engine.sh` (it installs Debian's chromium)"
            )
        });
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}{fragment}", std::path::absolute(page).unwrap().display());
    // The DOM goes to a file, not a pipe: a page larger than the pipe's buffer would block
    // Chromium's write while this waits for it to exit.
    let dom_path = profile.path().join("dom.html");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--no-first-run",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(&url)
        .stdout(std::fs::File::create(&dom_path).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("chromium starts");
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            panic!("chromium did not finish loading {url} within 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let dom = String::from_utf8_lossy(&std::fs::read(&dom_path).unwrap()).into_owned();
    assert!(dom.contains("</html>"), "chromium gave no DOM for {url}: {dom:.300}");
    dom
}

/// Checks that the page's scripts ran without an error.
pub fn assert_rendered_cleanly(dom: &str, what: &str) {
    let html_tag = dom.split_once("<html").and_then(|(_, rest)| rest.split('>').next()).unwrap_or("");
    assert!(
        !html_tag.contains("data-script-errors"),
        "{what}: script errors: {}",
        between(dom, "<pre id=\"script-errors\">", "<")
    );
    assert!(dom.contains("<body data-ready=\"1\">"), "{what}: the page's script did not finish");
    for needle in ["src=\"http", "href=\"http", "url(http", "@import"] {
        assert!(!dom.contains(needle), "{what}: the page loads something from the network ({needle})");
    }
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    text.split_once(start).and_then(|(_, rest)| rest.split(end).next()).unwrap_or("")
}

/// The value of `attr` on the element that carries `marker` (an attribute, e.g.
/// `data-figure="resolve_rate"`).
pub fn attr(dom: &str, marker: &str, attr: &str) -> String {
    let at = dom.find(marker).unwrap_or_else(|| panic!("{marker} is not on the page"));
    let start = dom[..at + 1].rfind('<').unwrap();
    let tag = &dom[start..start + dom[start..].find('>').unwrap()];
    between(tag, &format!("{attr}=\""), "\"").to_string()
}

/// The figures on the report page equal the summary's, and the filters count as the summary does.
pub fn check_run_report(page: &Path, summary: &Value) {
    let dom = browser_dom(page, "");
    assert_rendered_cleanly(&dom, &page.display().to_string());
    for figure in ["resolve_rate", "apply_rate_strict", "apply_rate_lenient"] {
        let marker = format!("data-figure=\"{figure}\"");
        assert_eq!(attr(&dom, &marker, "data-numerator"), summary[figure]["numerator"].to_string(), "{figure}");
        assert_eq!(attr(&dom, &marker, "data-denominator"), summary[figure]["denominator"].to_string(), "{figure}");
    }
    for (figure, ids) in [("resolved_partial", "resolved_partial_ids"), ("resolved_flagged", "resolved_flagged_ids")] {
        let marker = format!("data-figure=\"{figure}\"");
        assert_eq!(attr(&dom, &marker, "data-value"), summary[ids].as_array().unwrap().len().to_string(), "{figure}");
    }
    let submitted = summary["submitted_instances"].as_u64().unwrap();
    assert_eq!(attr(&dom, "id=\"shown-count\"", "data-count"), submitted.to_string());
    // The script counted each outcome's rows into its option: they equal the summary's counts.
    for (outcome, count) in summary["outcomes"].as_object().unwrap() {
        if count.as_u64() == Some(0) {
            continue;
        }
        let option = format!("<option value=\"{outcome}\"");
        assert_eq!(attr(&dom, &option, "data-count"), count.to_string(), "{outcome} in the outcome filter");
    }
    // Filtering by URL: one outcome, one language.
    let resolved = summary["outcomes"]["resolved_full"].as_u64().unwrap();
    let dom = browser_dom(page, "#outcome=resolved_full");
    assert_rendered_cleanly(&dom, "filtered by outcome");
    assert_eq!(attr(&dom, "id=\"shown-count\"", "data-count"), resolved.to_string());
    let (language, b) = summary["by_language"].as_object().unwrap().iter().next().unwrap();
    let dom = browser_dom(page, &format!("#language={language}"));
    assert_eq!(attr(&dom, "id=\"shown-count\"", "data-count"), b["submitted"].to_string(), "{language}");
}

fn evaluate(logs: &Path, run_id: &str, extra: &[&str]) -> (String, Duration) {
    let started = Instant::now();
    let logs_arg = logs.to_str().unwrap();
    let mut args = vec!["evaluate", "--logs", logs_arg, "--run-id", run_id, "--instance-ids", SUBSET, "-j", "2"];
    args.extend_from_slice(extra);
    let out = verdict(&args);
    let elapsed = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    (text(&out), elapsed)
}

fn summary(logs: &Path, run: &str, model: &str) -> Value {
    read_json(&logs.join(run).join(model).join("summary.json"))
}

/// Rate cells of a summary figure as the tables print them: `75.0% (6/8)`.
fn rate(v: &Value) -> String {
    format!("{:.1}% ({}/{})", v["value"].as_f64().unwrap() * 100.0, v["numerator"], v["denominator"])
}

#[test]
fn compare_html_junit_and_apply_only_on_real_runs() {
    let _lock = docker_lock();
    let logs = logs_dir("reports");
    let demo_predictions = "harness/demo/predictions.jsonl";
    let third = "tests/fixtures/reports/third.jsonl";
    let junit = logs.join("two.junit.xml");

    // One run, two files; the progress lines name each line's model.
    let (printed, elapsed) = evaluate(
        &logs,
        "two",
        &["--predictions", demo_predictions, "--predictions", third, "--junit", junit.to_str().unwrap()],
    );
    assert!(printed.lines().any(|l| l.contains("verdict-demo__pycalc-1") && l.contains(" demo-model ")), "{printed}");
    assert!(printed.lines().any(|l| l.contains("verdict-demo__pycalc-1") && l.contains("third-model@hand-written")));
    let demo = summary(&logs, "two", "demo-model");
    let third_summary = summary(&logs, "two", "third-model@hand-written");
    assert_eq!(third_summary["method"], "hand-written");
    for (id, outcome) in THIRD {
        let report = read_json(&logs.join("two/third-model@hand-written").join(id).join("report.json"));
        assert_eq!(report["outcome"], *outcome, "{id}: {report:#}");
        assert_eq!(report["method"], "hand-written");
    }
    // Each model has its own wall time, not the whole run's: together they take no longer than
    // the run, give or take the instance in flight when the run moves to the next model.
    let walls: Vec<f64> =
        [&demo, &third_summary].iter().map(|s| s["verdict_cost"]["wall_secs"].as_f64().unwrap()).collect();
    let longest = ["demo-model", "third-model@hand-written"]
        .iter()
        .flat_map(|model| {
            let logs = &logs;
            THIRD.iter().map(move |(id, _)| logs.join("two").join(model).join(id).join("report.json"))
        })
        .map(|path| read_json(&path)["timing"]["wall_secs"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(walls.iter().all(|w| *w > 0.0), "{walls:?}");
    assert!(walls[0] + walls[1] <= elapsed.as_secs_f64() + longest + 1.0, "{walls:?} in a run of {elapsed:?}");

    // Image bytes count each layer once: the Python and Node images share the OS layer.
    let mut sizes: BTreeMap<String, u64> = BTreeMap::new();
    for (id, _) in THIRD {
        let report = read_json(&logs.join("two/demo-model").join(id).join("report.json"));
        if let Some(bytes) = report["image_bytes"].as_u64() {
            sizes.insert(report["environment"].as_str().unwrap().to_string(), bytes);
        }
        assert!(report["image_layers"].as_array().is_some_and(|l| !l.is_empty()) || report["outcome"] == "empty_patch");
    }
    let unique = demo["verdict_cost"]["image_bytes"].as_u64().unwrap();
    assert!(sizes.len() >= 2, "{sizes:?}");
    assert!(unique < sizes.values().sum::<u64>(), "{unique} vs {sizes:?}");
    assert!(unique >= *sizes.values().max().unwrap(), "{unique} vs {sizes:?}");

    let _ = evaluate(&logs, "gold", &["--predictions", "gold"]);
    let gold = summary(&logs, "gold", "gold");
    assert_eq!(gold["resolved_instances"], 8, "{gold:#}");

    // compare: JSON figures are the summaries' own.
    let logs_arg = logs.to_str().unwrap();
    let compare = |extra: &[&str]| {
        let mut args = vec!["compare", "two", "gold", "--logs", logs_arg];
        args.extend_from_slice(extra);
        let out = verdict(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let json: Value = serde_json::from_str(&compare(&["--format", "json"])).unwrap();
    let rows = json["rows"].as_array().unwrap();
    let expected = [("demo-model", &demo), ("gold", &gold), ("third-model (hand-written)", &third_summary)];
    assert_eq!(rows.len(), 3, "{json:#}");
    for (label, s) in &expected {
        let row = rows.iter().find(|r| r["label"] == *label).unwrap_or_else(|| panic!("{label} in {json:#}"));
        assert_eq!(row["instances"], s["total_instances"], "{label}");
        for figure in ["resolve_rate", "apply_rate_strict", "apply_rate_lenient"] {
            assert_eq!(row[figure], s[figure], "{label} {figure}");
        }
        assert_eq!(row["mean_cost_dollars"], s["cost"]["mean_dollars_per_instance"], "{label}");
        assert_eq!(row["resolved_partial"].as_u64(), Some(s["resolved_partial_ids"].as_array().unwrap().len() as u64));
        for level in ["file", "function"] {
            for metric in ["acc_at_1", "acc_at_5", "f1"] {
                assert_eq!(
                    row["localization"][level][metric], s["localization"]["all"][level][metric],
                    "{label} {level}"
                );
            }
        }
        for (kind, field) in [("language", "by_language"), ("repository", "by_repo"), ("patch_scope", "by_patch_scope")]
        {
            let table = json["breakdowns"].as_array().unwrap().iter().find(|t| t["kind"] == kind).unwrap();
            for (group, b) in s[field].as_object().unwrap() {
                let g = table["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|g| g["label"] == *label && g["group"] == *group)
                    .unwrap();
                assert_eq!(g["resolve_rate"], b["resolve_rate"], "{label} {kind} {group}");
                assert_eq!(g["apply_rate_lenient"], b["apply_rate_lenient"], "{label} {kind} {group}");
            }
        }
    }
    let differing: Vec<&str> =
        json["differences"].as_array().unwrap().iter().map(|d| d["instance_id"].as_str().unwrap()).collect();
    assert!(
        differing.contains(&"verdict-demo__pycalc-1") && differing.contains(&"verdict-demo__textkit-3"),
        "{differing:?}"
    );
    assert!(!differing.contains(&"verdict-demo__pycalc-4"), "resolved by all three: {differing:?}");

    // Terminal and Markdown: every row with its rates as the summaries print them.
    let terminal = compare(&["--differences"]);
    let markdown = compare(&["--format", "markdown", "--differences"]);
    for (label, s) in &expected {
        for table in [&terminal, &markdown] {
            let line = table.lines().find(|l| l.contains(label)).unwrap_or_else(|| panic!("{label} in\n{table}"));
            for figure in ["resolve_rate", "apply_rate_strict", "apply_rate_lenient"] {
                assert!(line.contains(&rate(&s[figure])), "{label} {figure} in {line}");
            }
        }
    }
    assert!(markdown.contains("| model | instances | resolved |") && markdown.contains("| ---: |"), "{markdown}");
    let diff_line = terminal.lines().find(|l| l.starts_with("verdict-demo__pycalc-1")).unwrap();
    assert!(diff_line.contains("resolved_full") && diff_line.contains("empty_patch"), "{diff_line}");

    // CSV, read back with a CSV reader.
    let csv_text = compare(&["--format", "csv"]);
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    for (_, s) in &expected {
        let model = s["model"].as_str().unwrap();
        let all = records.iter().find(|r| &r[col("model")] == model && &r[col("breakdown")] == "all").unwrap();
        assert_eq!(all[col("resolved")], s["resolve_rate"]["numerator"].to_string());
        assert_eq!(all[col("instances")], s["total_instances"].to_string());
        assert_eq!(all[col("applied_strict")], s["apply_rate_strict"]["numerator"].to_string());
        assert_eq!(all[col("applied_lenient")], s["apply_rate_lenient"]["numerator"].to_string());
        for (language, b) in s["by_language"].as_object().unwrap() {
            let r = records
                .iter()
                .find(|r| {
                    &r[col("model")] == model && &r[col("breakdown")] == "language" && &r[col("group")] == language
                })
                .unwrap();
            assert_eq!(r[col("resolved")], b["resolved"].to_string(), "{model} {language}");
        }
    }

    // HTML: the comparison and the run's own report, in a real browser.
    let page = logs.join("compare.html");
    compare(&["--html", page.to_str().unwrap()]);
    let dom = browser_dom(&page, "");
    assert_rendered_cleanly(&dom, "compare.html");
    for (label, s) in &expected {
        let marker = format!("data-label=\"{label}\"");
        assert_eq!(attr(&dom, &marker, "data-resolved"), s["resolved_instances"].to_string(), "{label}");
        assert_eq!(attr(&dom, &marker, "data-applied-lenient"), s["apply_rate_lenient"]["numerator"].to_string());
    }
    check_run_report(&logs.join("two/demo-model/report.html"), &demo);

    // JUnit: one test case per instance and model; failed exactly when not resolved.
    let cases = junit_cases(&junit);
    assert_eq!(cases.len(), 16, "{cases:?}");
    for (suite, model) in [("demo-model", "demo-model"), ("third-model@hand-written", "third-model@hand-written")] {
        for (id, _) in THIRD {
            let report = read_json(&logs.join("two").join(model).join(id).join("report.json"));
            let case =
                cases.iter().find(|c| c.suite == suite && c.name == *id).unwrap_or_else(|| panic!("{suite} {id}"));
            let outcome = report["outcome"].as_str().unwrap();
            assert_eq!(case.failure.as_deref(), (outcome != "resolved_full").then_some(outcome), "{suite} {id}");
            assert_eq!(case.outcome_property, outcome);
        }
    }

    // Apply only: no tests, and the same apply rates as the full run of the same predictions.
    let (printed, _) = evaluate(&logs, "apply", &["--apply-only", "--predictions", demo_predictions]);
    assert!(printed.contains("apply rate (strict)"), "{printed}");
    let applied = read_json(&logs.join("apply/demo-model/apply_summary.json"));
    assert_eq!(applied["apply_rate_strict"], demo["apply_rate_strict"], "{applied:#}");
    assert_eq!(applied["apply_rate_lenient"], demo["apply_rate_lenient"], "{applied:#}");
    for (id, _) in THIRD {
        let dir = logs.join("apply/demo-model").join(id);
        let full = read_json(&logs.join("two/demo-model").join(id).join("report.json"));
        assert_eq!(read_json(&dir.join("apply.json"))["apply"]["step"], full["apply"]["step"], "{id}");
        assert!(!dir.join("report.json").exists() && !dir.join("test_output.txt").exists(), "{id}: no tests ran");
        if let Ok(script) = std::fs::read_to_string(dir.join("eval.sh")) {
            assert!(!script.contains("TESTS START") && !script.contains("test.diff"), "{id}");
        }
    }
    assert_no_containers_left(&logs, &["two", "gold", "apply"]);
}

#[derive(Debug)]
struct Case {
    suite: String,
    name: String,
    failure: Option<String>,
    outcome_property: String,
}

/// Test cases of a JUnit XML file, read with quick-xml.
fn junit_cases(path: &PathBuf) -> Vec<Case> {
    use quick_xml::events::Event;
    let xml = std::fs::read_to_string(path).unwrap();
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut cases: Vec<Case> = Vec::new();
    let mut suite = String::new();
    let attr = |e: &quick_xml::events::BytesStart, key: &str| -> Option<String> {
        let found = e.try_get_attribute(key).unwrap()?;
        Some(found.normalized_value(quick_xml::XmlVersion::Implicit1_0).unwrap().into_owned())
    };
    loop {
        match reader.read_event().unwrap() {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => match e.name().as_ref() {
                "testsuite" => suite = attr(&e, "name").unwrap(),
                "testcase" => cases.push(Case {
                    suite: suite.clone(),
                    name: attr(&e, "name").unwrap(),
                    failure: None,
                    outcome_property: String::new(),
                }),
                "failure" | "error" => cases.last_mut().unwrap().failure = attr(&e, "type"),
                "property" if attr(&e, "name").as_deref() == Some("outcome") => {
                    cases.last_mut().unwrap().outcome_property = attr(&e, "value").unwrap()
                }
                _ => {}
            },
            _ => {}
        }
    }
    cases
}

/// The browser check itself can fail: a page whose script throws is caught, the same page
/// without the fault passes. Needs no Docker.
#[test]
fn the_browser_check_catches_a_script_error() {
    let summary = verdict::report::summarize(&["a".to_string()], &[], &BTreeMap::new());
    let page = verdict::report::html::render_run(&summary, &[]);
    let dir = logs_dir("browser-check");
    let good = dir.join("good.html");
    let bad = dir.join("bad.html");
    write(&good, &page);
    write(&bad, &page.replace("</body>", "<script>notAFunction();</script></body>"));
    assert_rendered_cleanly(&browser_dom(&good, ""), "good.html");
    let dom = browser_dom(&bad, "");
    assert!(dom.contains("data-script-errors=\"1\""), "{dom:.400}");
    assert!(dom.contains("notAFunction is not defined"), "the error is written into the page");
}
