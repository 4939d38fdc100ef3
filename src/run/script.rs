//! The eval script: the bash program that runs inside an evaluation container.
//!
//! It applies the candidate patch with the field's chain (`git apply`, then `git apply --3way`,
//! then `patch --fuzz=5`), resetting the tree between attempts, and puts back the paths of the
//! candidate that git does not track in the image (installed files); resets the runner's
//! configuration ([`super::runner_config`], with its fallback); restores the test files and the
//! test patch's files to the base commit and deletes the files the test patch creates; applies
//! the test patch; runs the test command under `timeout` (and libfaketime for a pinned clock);
//! kills whatever the tests left running; and copies the runner's reports into `$VERDICT_OUT`.
//! With [`ScriptInput::apply_only`] it stops after the apply chain: no test patch, no tests
//! (`verdict evaluate --apply-only`). Every step is announced on its own line behind a random per-run marker, so
//! output printed by the code under test cannot pass for verdict's own lines.

use std::collections::BTreeMap;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

pub use crate::grade::facts::{Guard, GuardKind};

use super::runner_config::{self, Action, ConfigPlan, Runner};
use crate::dataset::spec::{LanguageSpec, SpecEntry};
use crate::grade::{ApplyStep, ScriptFacts};
use crate::images::shell_quote;
use crate::parse::{ReportSource, TestArgs, TestFiles};
use crate::patch::changed_files;

/// Where inputs are copied in the container.
pub const IN_DIR: &str = "/verdict/in";
/// Where the script collects structured reports.
pub const OUT_DIR: &str = "/verdict/out";

/// What one evaluation needs to write its script.
#[derive(Debug, Clone)]
pub struct ScriptInput<'a> {
    pub title: String,
    /// The candidate patch, or `None` to run with the test patch alone.
    pub candidate: Option<&'a str>,
    pub test_patch: &'a str,
    pub entry: &'a SpecEntry,
    pub language: &'a LanguageSpec,
    pub env: &'a BTreeMap<String, String>,
    pub timeout_secs: u64,
    pub nonce: &'a str,
    /// Stop after the apply chain (which needs a candidate): no test patch, no tests.
    pub apply_only: bool,
    /// The runner-configuration resets for the candidate ([`runner_config::plan`]).
    pub config: &'a ConfigPlan,
    /// The pinned clock, as seconds since the epoch (`None`: the real clock).
    pub clock: Option<i64>,
}

/// A rendered eval script and the files it reads from [`IN_DIR`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalScript {
    pub script: String,
    pub inputs: Vec<(String, Vec<u8>)>,
    pub test_args: Vec<String>,
}

/// The test-file globs of a spec entry and its language, with the files that configure its
/// runner as a whole ([`runner_config::whole_file_globs`]).
pub fn test_globs(entry: &SpecEntry, language: &LanguageSpec) -> Vec<String> {
    let mut globs: Vec<String> = language.test_files.iter().chain(&entry.test_files).cloned().collect();
    if let Some(runner) = Runner::of(entry.log_parser) {
        for glob in runner_config::whole_file_globs(runner) {
            if !globs.iter().any(|g| g == glob) {
                globs.push(glob.to_string());
            }
        }
    }
    globs
}

/// Files of `patch` that match the test-file globs (candidate patches touching them are flagged).
pub fn touched_test_files(patch: &str, globs: &[String], test_patch: &str) -> Vec<String> {
    let set = glob_set(globs);
    let test_patch_files: Vec<String> = changed_files(test_patch).iter().map(|c| c.path().to_string()).collect();
    let mut touched: Vec<String> = Vec::new();
    for change in changed_files(patch) {
        for path in [change.old.as_deref(), change.new.as_deref()].into_iter().flatten() {
            let is_test = set.is_match(path) || test_patch_files.iter().any(|t| t == path);
            if is_test && !touched.iter().any(|t| t == path) {
                touched.push(path.to_string());
            }
        }
    }
    touched
}

/// The runnable-test globs of a spec entry and its language.
pub fn test_arg_globs(entry: &SpecEntry, language: &LanguageSpec) -> Vec<String> {
    language.test_arg_files.iter().chain(&entry.test_arg_files).cloned().collect()
}

/// A warning when the test patch has files but none becomes a test argument under `files` or a
/// runner mapping that passes runnable files (`jest`): the test command then runs without file
/// arguments, which is rarely what was meant.
pub fn no_test_argument_warning(entry: &SpecEntry, language: &LanguageSpec, test_patch: &str) -> Option<String> {
    let kind = match entry.test_args {
        TestArgs::Files => "files",
        TestArgs::Runner(runner) if runner.expects_runnable_files() => runner.name(),
        _ => return None,
    };
    let globs = test_arg_globs(entry, language);
    let files: Vec<String> = changed_files(test_patch).iter().filter_map(|c| c.new.clone()).collect();
    if files.is_empty() || !test_arguments(entry.test_args, test_patch, &globs).is_empty() {
        return None;
    }
    Some(format!(
        "no file of the test patch ({}) is a runnable test under test_args = \"{kind}\" (globs: {}), so the test command ran without test files; set test_arg_files in the spec entry",
        files.join(", "),
        globs.join(", ")
    ))
}

/// The test command's arguments from the files of the test patch, under the spec's
/// `test_args` (`globs`: the runnable-test globs, see [`test_arg_globs`]; the runners' own
/// mappings live in their modules, `crate::parse::*`).
pub fn test_arguments(kind: TestArgs, test_patch: &str, globs: &[String]) -> Vec<String> {
    let set = glob_set(globs);
    let live: Vec<String> = changed_files(test_patch).iter().filter_map(|c| c.new.clone()).collect();
    let runnable = |path: &str| set.is_match(path);
    kind.arguments(&TestFiles::new(&live, &runnable))
}

/// The command the script runs under `timeout`: the spec's, with the runner's arguments, and
/// the stream handling the runner's report source needs.
fn test_command(entry: &SpecEntry, runner_args: bool, test_args: &[String]) -> String {
    let runner = entry.log_parser;
    let mut base = entry.test_cmd.clone();
    if runner_args {
        base.push_str("${VERDICT_RUNNER_ARGS:+ $VERDICT_RUNNER_ARGS}");
    }
    let command = if test_args.is_empty() { base } else { runner.command(&base, &quoted(test_args.iter().cloned())) };
    match runner.report() {
        // The report is stdout: keep a copy, and the command's exit code rather than tee's.
        ReportSource::Stdout(name) => {
            format!("set -o pipefail\n{{ {command}\n}} | tee -- \"$VERDICT_OUT\"/{}", shell_quote(name))
        }
        ReportSource::Console => format!("{{ {command}\n}} 2>&1"),
        ReportSource::OutDir | ReportSource::Collect(_) => command,
    }
}

/// The globs of reports to collect: the spec's, else the runner's own.
fn collect_globs(entry: &SpecEntry) -> Vec<String> {
    match entry.log_parser.report() {
        ReportSource::Collect(globs) if entry.collect.is_empty() => globs.iter().map(|g| g.to_string()).collect(),
        _ => entry.collect.clone(),
    }
}

fn glob_set(globs: &[String]) -> GlobSet {
    let mut builder = GlobSetBuilder::new();
    for g in globs {
        // `*` must not cross `/`, as in git's pathspecs; `**` does.
        if let Ok(glob) = GlobBuilder::new(g).literal_separator(true).build() {
            builder.add(glob);
        }
    }
    builder.build().unwrap_or_else(|_| GlobSet::empty())
}

/// Git pathspecs for globs (`:(glob)tests/**`).
fn pathspecs(globs: &[String]) -> String {
    globs.iter().map(|g| shell_quote(&format!(":(glob){g}"))).collect::<Vec<_>>().join(" ")
}

fn quoted(paths: impl IntoIterator<Item = String>) -> String {
    paths.into_iter().map(|p| shell_quote(&p)).collect::<Vec<_>>().join(" ")
}

/// Renders the script.
pub fn render(input: &ScriptInput<'_>) -> EvalScript {
    let marker = format!("VERDICT-{}", input.nonce);
    let test_changes = changed_files(input.test_patch);
    let globs = test_globs(input.entry, input.language);
    let test_args =
        test_arguments(input.entry.test_args, input.test_patch, &test_arg_globs(input.entry, input.language));
    let mut inputs = vec![("test.diff".to_string(), input.test_patch.as_bytes().to_vec())];

    let mut s = String::new();
    s.push_str(&format!("#!/bin/bash\n# verdict eval script: {}\n", input.title.replace('\n', " ")));
    // The script removes itself: the code under test has no business reading the marker.
    s.push_str("rm -f \"$0\"\nset -u\n");
    s.push_str(&format!("M={marker}\n"));
    s.push_str(&format!("export VERDICT_OUT={OUT_DIR}\nmkdir -p \"$VERDICT_OUT\"\n"));
    for (k, v) in input.env {
        s.push_str(&format!("export {k}={}\n", shell_quote(v)));
    }
    s.push_str("cd /testbed || { echo \"$M FATAL no /testbed\"; exit 0; }\n");
    s.push_str("git config --global --add safe.directory /testbed 2>/dev/null\n");

    if let Some(candidate) = input.candidate {
        inputs.push(("candidate.diff".into(), candidate.as_bytes().to_vec()));
        let changes = changed_files(candidate);
        let created: Vec<String> = changes.iter().filter(|c| c.is_created()).map(|c| c.path().to_string()).collect();
        let mut paths: Vec<String> = Vec::new();
        for path in changes.iter().flat_map(|c| [c.old.clone(), c.new.clone()]).flatten() {
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
        // Paths git does not track here (what install wrote, ignored ones such as node_modules)
        // are kept as the image has them: saved before the apply chain, put back after it. The
        // check runs before the candidate can edit .gitignore.
        if !paths.is_empty() {
            s.push_str(&format!(
                "kept=()
                 for p in {}; do
                   if ! git ls-files --error-unmatch -- \"$p\" >/dev/null 2>&1 && {{ [ -e \"$p\" ] || [ -L \"$p\" ] || git check-ignore -q --no-index -- \"$p\"; }}; then
                     kept+=(\"$p\")
                     if [ -e \"$p\" ] || [ -L \"$p\" ]; then mkdir -p /tmp/verdict-kept && cp -a --parents -- \"$p\" /tmp/verdict-kept/; fi
                   fi
                 done
",
                quoted(paths.iter().cloned())
            ));
        }
        s.push_str("reset_tree() {\n  git reset -q --hard HEAD\n");
        if !created.is_empty() {
            s.push_str(&format!("  rm -rf -- {}\n", quoted(created)));
        }
        s.push_str("  git ls-files -z --others --exclude-standard -- '*.rej' '*.orig' | xargs -0 -r rm -f --\n}\n");
        s.push_str(&format!(
            "step={none}\n\
             if git apply --verbose {IN_DIR}/candidate.diff; then step={git_apply}\n\
             else reset_tree\n\
             \x20 if git apply --verbose --3way {IN_DIR}/candidate.diff; then step={three_way}\n\
             \x20 else reset_tree\n\
             \x20   if patch --batch --fuzz=5 --no-backup-if-mismatch -p1 -i {IN_DIR}/candidate.diff; then step={fuzz}\n\
             \x20   else reset_tree\n\
             \x20   fi\n\
             \x20 fi\n\
             fi\n\
             git reset -q 2>/dev/null\n\
             echo \"$M APPLY $step\"\n\
             [ \"$step\" = {none} ] && exit 0\n",
            none = ApplyStep::NotApplied,
            git_apply = ApplyStep::GitApply,
            three_way = ApplyStep::GitApply3way,
            fuzz = ApplyStep::PatchFuzz,
        ));
        if input.apply_only {
            s.push_str("echo \"$M END\"\n");
            inputs.retain(|(name, _)| name != "test.diff");
            return EvalScript { script: s, inputs, test_args: Vec::new() };
        }
        if !paths.is_empty() {
            s.push_str(
                "for p in \"${kept[@]}\"; do\n\
                 \x20 rm -rf -- \"$p\"\n\
                 \x20 if [ -e \"/tmp/verdict-kept/$p\" ] || [ -L \"/tmp/verdict-kept/$p\" ]; then mkdir -p -- \"$(dirname -- \"$p\")\" && cp -a -- \"/tmp/verdict-kept/$p\" \"$p\"; fi\n\
                 \x20 echo \"$M KEPT $p\"\n\
                 done\n",
            );
        }
        render_config(&mut s, &mut inputs, input.config);
    }

    // Restore the tests: every test-file glob and every file of the test patch goes back to the
    // base commit; files the candidate added there are removed; files the test patch creates
    // are deleted so it applies cleanly.
    if !globs.is_empty() {
        let specs = pathspecs(&globs);
        s.push_str(&format!("git ls-files -z -- {specs} | xargs -0 -r git checkout -q HEAD --\n"));
        s.push_str(&format!("git clean -fdq -- {specs}\n"));
    }
    for change in &test_changes {
        if let Some(old) = &change.old {
            s.push_str(&format!("git checkout -q HEAD -- {} 2>/dev/null\n", shell_quote(old)));
        }
        if change.is_created() {
            s.push_str(&format!("rm -rf -- {}\n", shell_quote(change.path())));
        }
    }
    if test_changes.is_empty() {
        s.push_str("echo \"$M TESTPATCH empty\"\n");
    } else {
        s.push_str(&format!(
            "if git apply --verbose {IN_DIR}/test.diff; then echo \"$M TESTPATCH ok\"; else echo \"$M TESTPATCH failed\"; exit 0; fi\n"
        ));
    }

    // Reports left over from the image build must not pass for this run's.
    let collect = collect_globs(input.entry);
    s.push_str("shopt -s globstar nullglob\n");
    if !collect.is_empty() {
        s.push_str(&format!("rm -f -- {}\n", collect.join(" ")));
    }
    // Set by the fallback when a reset was not safe: the runner's base configuration.
    let command = test_command(input.entry, !input.config.resets.is_empty(), &test_args);
    // A pinned clock: libfaketime under the test command only; `timeout` keeps the real clock.
    let mut clock = String::new();
    if let Some(epoch) = input.clock {
        s.push_str(&format!(
            "faketime_lib=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -n 1)\n\
             [ -n \"$faketime_lib\" ] || {{ echo \"$M CLOCK unavailable\"; exit 0; }}\n\
             clock_offset=$(( {epoch} - $(date +%s) ))\n\
             [ \"$clock_offset\" -ge 0 ] && clock_offset=\"+$clock_offset\"\n\
             echo \"$M CLOCK $clock_offset\"\n"
        ));
        clock = "env LD_PRELOAD=\"$faketime_lib${LD_PRELOAD:+:$LD_PRELOAD}\" FAKETIME=\"$clock_offset\" ".into();
    }
    s.push_str("echo \"$M TESTS START\"\n");
    s.push_str(&format!("timeout -k 10 {} {clock}bash -c {}\n", input.timeout_secs, shell_quote(&command)));
    s.push_str("code=$?\n");
    // Whatever the tests left running (a detached process waiting to rewrite a report) ends
    // here, before any report is collected.
    s.push_str("kill -KILL -1 2>/dev/null\n");
    s.push_str("echo\necho \"$M TESTS EXIT $code\"\n");
    for pattern in &collect {
        s.push_str(&format!(
            "for f in {pattern}; do mkdir -p \"$VERDICT_OUT/collected/$(dirname \"$f\")\"; cp -- \"$f\" \"$VERDICT_OUT/collected/$f\"; done\n"
        ));
    }
    s.push_str("echo \"$M TIMES\"\ntimes\necho \"$M END\"\n");
    EvalScript { script: s, inputs, test_args }
}

/// The runner-configuration resets ([`runner_config`]): each planned file gets its reset version
/// when the container's file is the predicted one and the image's is the base commit's;
/// otherwise the fallback runs once (the runner started with its base configuration).
fn render_config(s: &mut String, inputs: &mut Vec<(String, Vec<u8>)>, plan: &ConfigPlan) {
    if plan.resets.is_empty() {
        return;
    }
    s.push_str("verdict_fallback() {\n  [ -n \"${verdict_fell_back:-}\" ] && return\n  verdict_fell_back=1\n");
    for (i, (path, bytes)) in plan.fallback.files.iter().enumerate() {
        let name = format!("config/fallback-{i}");
        s.push_str(&format!("  cp -- {IN_DIR}/{name} {}\n", shell_quote(&format!("/testbed/{path}"))));
        inputs.push((name, bytes.clone()));
    }
    for line in &plan.fallback.lines {
        s.push_str(&format!("  {line}\n"));
    }
    s.push_str("  :\n}\n");
    for (i, planned) in plan.resets.iter().enumerate() {
        let path = shell_quote(&planned.path);
        let mut fallback = format!("echo \"$M CONFIG fallback {}\"; verdict_fallback", planned.path.replace('\n', " "));
        if planned.whole_on_fallback {
            fallback.push_str(&format!("; git checkout -q HEAD -- {path} 2>/dev/null || rm -f -- {path}"));
        }
        match &planned.action {
            Action::Fallback { .. } => s.push_str(&format!("{fallback}\n")),
            Action::Reset { base, predicted, reset } => {
                let head = shell_quote(&format!("HEAD:{}", planned.path));
                let base_check = match base {
                    Some(bytes) => {
                        inputs.push((format!("config/{i}.base"), bytes.clone()));
                        format!("git cat-file blob {head} 2>/dev/null | cmp -s - {IN_DIR}/config/{i}.base")
                    }
                    None => format!("! git cat-file -e {head} 2>/dev/null"),
                };
                let post_check = match predicted {
                    Some(bytes) => {
                        inputs.push((format!("config/{i}.expected"), bytes.clone()));
                        format!("cmp -s -- {path} {IN_DIR}/config/{i}.expected")
                    }
                    None => format!("[ ! -e {path} ]"),
                };
                inputs.push((format!("config/{i}.reset"), reset.clone()));
                s.push_str(&format!(
                    "if {base_check} && {post_check}; then cat {IN_DIR}/config/{i}.reset > {path} && echo \"$M CONFIG reset {}\"; else {fallback}; fi\n",
                    planned.path.replace('\n', " ")
                ));
            }
        }
    }
}

/// The guards of one run, from the plan and what the script said it did.
pub fn guards(plan: &ConfigPlan, seen: &ScriptOutcome) -> Vec<Guard> {
    let mut out = Vec::new();
    for planned in &plan.resets {
        let parts = planned.parts.join(", ");
        if seen.config_reset.contains(&planned.path) {
            out.push(Guard {
                path: planned.path.clone(),
                kind: GuardKind::ConfigReset,
                detail: format!("{parts} reset to the base commit"),
            });
        } else if seen.config_fallback.contains(&planned.path) {
            let why = match &planned.action {
                Action::Fallback { reason } => reason.clone(),
                Action::Reset { .. } => {
                    "the file in the container was not the one predicted from the base commit and the patch".into()
                }
            };
            let mut detail = format!("{parts} could not be reset ({why}); {}", plan.fallback.description);
            if planned.whole_on_fallback {
                detail.push_str(&format!("; {} went back to the base commit whole", planned.path));
            }
            out.push(Guard { path: planned.path.clone(), kind: GuardKind::ConfigFallback, detail });
        }
    }
    for path in &seen.kept {
        out.push(Guard {
            path: path.clone(),
            kind: GuardKind::Kept,
            detail: "not tracked by git in the image (an installed or ignored file): put back as the image had it"
                .into(),
        });
    }
    out
}

/// What the script's marker lines said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScriptOutcome {
    /// The apply step that succeeded, [`ApplyStep::NotApplied`], or `None` when no candidate was
    /// applied or the line is missing.
    pub apply_step: Option<ApplyStep>,
    /// `Some(true)` when the test patch applied, `Some(false)` when it did not.
    pub test_patch_applied: Option<bool>,
    pub tests_started: bool,
    pub exit_code: Option<i64>,
    /// The test command's output, between the start and exit markers.
    pub test_output: String,
    /// User + system CPU seconds of the test command and its children.
    pub cpu_secs: Option<f64>,
    pub finished: bool,
    /// Files whose runner configuration was reset, and those that fell back.
    pub config_reset: Vec<String>,
    pub config_fallback: Vec<String>,
    /// Untracked paths of the candidate put back as the image had them.
    pub kept: Vec<String>,
    /// The pinned clock's offset from the real one (`-123456`, `+60`), when pinned.
    pub clock_offset: Option<String>,
    /// A pinned clock was asked for but the image has no libfaketime.
    pub clock_unavailable: bool,
}

impl ScriptOutcome {
    /// The marker facts the decide stage reads.
    pub fn facts(&self) -> ScriptFacts {
        ScriptFacts {
            apply: self.apply_step,
            test_patch_applied: self.test_patch_applied,
            tests_started: self.tests_started,
            exit_code: self.exit_code,
            finished: self.finished,
            clock_unavailable: self.clock_unavailable,
        }
    }
}

/// Reads the marker lines out of a container's output.
pub fn read_output(output: &str, nonce: &str) -> ScriptOutcome {
    let marker = format!("VERDICT-{nonce} ");
    let mut out = ScriptOutcome::default();
    let mut test_start: Option<usize> = None;
    let mut test_end: Option<usize> = None;
    let mut times_at: Option<usize> = None;
    let mut offset = 0;
    for line in output.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let Some(rest) = line.trim_end().strip_prefix(&marker) else { continue };
        if test_start.is_none() {
            // Lines that name a path take the rest of the line.
            if let Some(path) = rest.strip_prefix("CONFIG reset ") {
                out.config_reset.push(path.to_string());
                continue;
            }
            if let Some(path) = rest.strip_prefix("CONFIG fallback ") {
                out.config_fallback.push(path.to_string());
                continue;
            }
            if let Some(path) = rest.strip_prefix("KEPT ") {
                out.kept.push(path.to_string());
                continue;
            }
        }
        let mut words = rest.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            // Lines printed before the tests start cannot come from the code under test.
            (Some("APPLY"), Some(step), _) if test_start.is_none() => out.apply_step = ApplyStep::from_name(step),
            (Some("TESTPATCH"), Some(state), _) if test_start.is_none() => {
                out.test_patch_applied = Some(state != "failed")
            }
            (Some("CLOCK"), Some("unavailable"), _) if test_start.is_none() => out.clock_unavailable = true,
            (Some("CLOCK"), Some(offset), _) if test_start.is_none() => out.clock_offset = Some(offset.to_string()),
            (Some("TESTS"), Some("START"), _) if test_start.is_none() => {
                out.tests_started = true;
                test_start = Some(offset);
            }
            (Some("TESTS"), Some("EXIT"), Some(code)) if test_start.is_some() => {
                out.exit_code = code.parse().ok();
                test_end = Some(start);
            }
            (Some("TIMES"), _, _) if test_end.is_some() => times_at = Some(offset),
            // An apply-only script ends without running tests.
            (Some("END"), _, _) if test_end.is_some() || test_start.is_none() => out.finished = true,
            _ => {}
        }
    }
    if let Some(begin) = test_start {
        let end = test_end.unwrap_or(output.len());
        out.test_output = output[begin..end.max(begin)].to_string();
    }
    if let Some(at) = times_at {
        out.cpu_secs = children_cpu(&output[at..]);
    }
    out
}

/// bash's `times` prints the shell's then the children's user and system time: `0m1.250s 0m0.110s`.
fn children_cpu(text: &str) -> Option<f64> {
    let line = text.lines().nth(1)?;
    let mut total = 0.0;
    for part in line.split_whitespace() {
        let (m, s) = part.strip_suffix('s')?.split_once('m')?;
        total += m.parse::<f64>().ok()? * 60.0 + s.parse::<f64>().ok()?;
    }
    Some(total)
}

#[cfg(test)]
mod tests;
