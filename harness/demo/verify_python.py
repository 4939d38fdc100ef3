#!/usr/bin/env python3
"""Checks the demo's Python fixtures on the host, without Docker and without verdict.

For every instance of a repository whose harness spec says `language = "python"`, in a fresh
clone of its bundle:
  1. test patch alone        -> every FAIL_TO_PASS test fails, every PASS_TO_PASS test passes;
  2. gold + test patch       -> every listed test passes;
  3. bundled candidate, then the test files reset and the test patch applied
                             -> the outcome (and apply step, and flag) instance.toml expects.
Steps 1-2 also derive FAIL_TO_PASS / PASS_TO_PASS from the transitions, the way
`verdict validate` does; `--print-lists` prints them as TOML to paste into instance.toml.

Test ids come from the JUnit XML (xunit1: file + classname + name) and are cross-checked
against pytest's own node ids (collected with --collect-only -q).

Usage: verify_python.py --pytest /tmp/pv/bin/pytest [--print-lists] [instance_id ...]
The pytest given must be importable with the fixture (the script puts the checkout on
PYTHONPATH instead of running the spec's install step). Needs Python 3.11+, git and patch.
"""

import argparse
import fnmatch
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import tomllib
import json
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
HARNESS = HERE.parent
PASS = {"PASSED", "XFAIL"}


def sh(args, cwd, check=True, **kw):
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, **kw)
    if check and done.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, args))} failed in {cwd}:\n{done.stdout}{done.stderr}")
    return done


def patch_paths(patch):
    """(path, created) for every file of a git-style patch."""
    out = []
    for m in re.finditer(r"^diff --git a/(\S+) b/(\S+)\n((?:(?!diff --git).*\n)*)", patch, re.M):
        out.append((m.group(2), "\nnew file mode" in "\n" + m.group(3)))
    return out


def glob_match(path, globs):
    # globset-like: "**/x" also matches "x" at the root.
    for g in globs:
        if fnmatch.fnmatch(path, g) or (g.startswith("**/") and fnmatch.fnmatch(path, g[3:])):
            return True
    return False


def apply_chain(repo, patch_file):
    """The field's chain, resetting the tree between attempts. Returns the step or None."""
    steps = [
        ("git_apply", ["git", "apply", "--verbose", patch_file]),
        ("git_apply_reject", ["git", "apply", "--verbose", "--reject", patch_file]),
        ("patch_fuzz", ["patch", "--batch", "--fuzz=5", "-p1", "-i", patch_file]),
    ]
    for name, cmd in steps:
        if sh(cmd, repo, check=False).returncode == 0:
            return name
        sh(["git", "reset", "-q", "--hard"], repo)
        sh(["git", "clean", "-q", "-fd"], repo)
    return None


def run_pytest(repo, pytest, spec, args, out_dir):
    """Runs the spec's test command on `args`; returns (statuses, exit code or 'timeout')."""
    junit = out_dir / "junit.xml"
    if junit.exists():
        junit.unlink()
    cmd = spec["test_cmd"].replace("$VERDICT_OUT", str(out_dir)).split()
    cmd[0] = pytest
    env = dict(os.environ, PYTHONPATH=str(repo), PYTHONDONTWRITEBYTECODE="1",
               PYTHONHASHSEED="0", TZ="UTC")
    proc = subprocess.Popen(cmd + args, cwd=repo, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        proc.communicate(timeout=spec.get("timeout", 1800))
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {}, "timeout"
    return junit_statuses(junit), proc.returncode


def junit_statuses(path):
    statuses = {}
    for case in ET.parse(path).iter("testcase"):
        file, classname, name = case.get("file"), case.get("classname"), case.get("name")
        module = file[:-3].replace("/", ".")
        classes = classname[len(module) + 1:].split(".") if classname != module else []
        nodeid = "::".join([file, *[c for c in classes if c], name])
        status = "PASSED"
        for child in case:
            if child.tag == "skipped":
                status = "XFAIL" if child.get("type") == "pytest.xfail" else "SKIPPED"
            elif child.tag == "failure":
                status = "FAILED"
            elif child.tag == "error":
                status = "ERROR"
        statuses[nodeid] = status
    return statuses


def grade(statuses, f2p, p2p):
    f2p_ok = [t for t in f2p if statuses.get(t) in PASS]
    p2p_ok = all(statuses.get(t) in PASS for t in p2p)
    if p2p_ok and len(f2p_ok) == len(f2p):
        return "resolved_full"
    if p2p_ok and f2p_ok:
        return "resolved_partial"
    return "unresolved"


def check_instance(inst, prediction, spec, lang, inst_toml, pytest, print_lists):
    problems = []
    test_args = [p for p, _ in patch_paths(inst["test_patch"]) if glob_match(p, lang["test_arg_files"])]
    with tempfile.TemporaryDirectory(prefix="verify-") as tmp:
        tmp = Path(tmp)
        bundle = HERE / "repos" / (inst["repo"].replace("/", "__") + ".bundle")
        repo = tmp / "repo"
        out = tmp / "out"
        out.mkdir()
        for name in ("patch", "test_patch"):
            (tmp / name).write_text(inst[name])

        def fresh():
            if repo.exists():
                shutil.rmtree(repo)
            sh(["git", "clone", "-q", str(bundle), str(repo)], tmp)
            sh(["git", "checkout", "-q", inst["base_commit"]], repo)

        fresh()
        sh(["git", "apply", str(tmp / "test_patch")], repo)
        ids = sh([pytest, "--collect-only", "-q", "-p", "no:cacheprovider", *test_args], repo,
                 check=False, env=dict(os.environ, PYTHONPATH=str(repo))).stdout
        collected = {l for l in ids.splitlines() if "::" in l}
        before, _ = run_pytest(repo, pytest, spec, test_args, out)
        if set(before) != collected:
            problems.append(f"JUnit ids differ from pytest's node ids: {sorted(set(before) ^ collected)}")
        fresh()
        sh(["git", "apply", str(tmp / "patch")], repo)
        sh(["git", "apply", str(tmp / "test_patch")], repo)
        after, _ = run_pytest(repo, pytest, spec, test_args, out)
        f2p = sorted(t for t in after if after[t] in PASS and before.get(t) not in PASS)
        p2p = sorted(t for t in after if after[t] in PASS and before.get(t) in PASS)
        if print_lists:
            print(f"# {inst['instance_id']}\nFAIL_TO_PASS = {json.dumps(f2p, indent=2, ensure_ascii=False)}"
                  f"\nPASS_TO_PASS = {json.dumps(p2p, indent=2, ensure_ascii=False)}\n")
        if (f2p, p2p) != (sorted(inst["FAIL_TO_PASS"]), sorted(inst["PASS_TO_PASS"])):
            problems.append("FAIL_TO_PASS / PASS_TO_PASS differ from what validation derives")
        for t in inst["FAIL_TO_PASS"]:
            if before.get(t) in PASS or after.get(t) not in PASS:
                problems.append(f"F2P {t}: {before.get(t)} -> {after.get(t)}")
        for t in inst["PASS_TO_PASS"]:
            if before.get(t) not in PASS or after.get(t) not in PASS:
                problems.append(f"P2P {t}: {before.get(t)} -> {after.get(t)}")

        outcome, step, flagged = None, None, False
        if prediction is None:
            return problems, ("no prediction", None, False, before, after)
        model_patch = prediction["model_patch"] or ""
        if not model_patch.strip():
            outcome = "empty_patch"
        else:
            fresh()
            (tmp / "model.diff").write_text(model_patch)
            touched = patch_paths(model_patch)
            flagged = any(glob_match(p, lang["test_files"] + spec.get("test_files", [])) for p, _ in touched)
            step = apply_chain(repo, str(tmp / "model.diff"))
            if step is None:
                outcome = "patch_apply_failed"
            else:
                # Reset every test-patch file and every test file the candidate touched.
                restore = {p for p, _ in patch_paths(inst["test_patch"])}
                restore |= {p for p, _ in touched if glob_match(p, lang["test_files"])}
                for p in sorted(restore):
                    in_base = sh(["git", "cat-file", "-e", f"HEAD:{p}"], repo, check=False).returncode == 0
                    if in_base:
                        sh(["git", "checkout", "HEAD", "--", p], repo)
                    elif (repo / p).exists():
                        (repo / p).unlink()
                sh(["git", "apply", str(tmp / "test_patch")], repo)
                statuses, code = run_pytest(repo, pytest, spec, test_args, out)
                outcome = "timeout" if code == "timeout" else grade(
                    statuses, inst["FAIL_TO_PASS"], inst["PASS_TO_PASS"])
        want = (inst_toml.get("expected"), inst_toml.get("expected_apply"), inst_toml.get("expected_flagged", False))
        got_apply = step if inst_toml.get("expected_apply") else None
        if (outcome, got_apply, flagged) != want:
            problems.append(f"candidate: got {outcome} (apply {step}, flagged {flagged}), expected {want}")
        return problems, (outcome, step, flagged, before, after)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pytest", required=True)
    ap.add_argument("--print-lists", action="store_true")
    ap.add_argument("ids", nargs="*")
    args = ap.parse_args()
    load = lambda p: tomllib.loads(p.read_text())
    lang = load(HARNESS / "languages" / "python.toml")
    dataset = [json.loads(l) for l in (HERE / "dataset.jsonl").read_text().splitlines()]
    predictions = {p["instance_id"]: p for p in map(json.loads, (HERE / "predictions.jsonl").read_text().splitlines())}
    failed = 0
    for inst in dataset:
        slug = inst["repo"].replace("/", "__")
        spec_file = load(HARNESS / "specs" / f"{slug}.toml")
        spec = spec_file["versions"].get(inst["version"]) or spec_file["versions"].get("*")
        if spec["language"] != "python" or (args.ids and inst["instance_id"] not in args.ids):
            continue
        inst_toml = load(HERE / "src" / slug / "instances" / inst["instance_id"] / "instance.toml")
        problems, (outcome, step, flagged, _, _) = check_instance(
            inst, predictions.get(inst["instance_id"]), spec, lang, inst_toml, args.pytest, args.print_lists)
        mark = "ok  " if not problems else "FAIL"
        print(f"{mark} {inst['instance_id']}: {outcome} (apply {step}, flagged {flagged}), "
              f"{len(inst['FAIL_TO_PASS'])} F2P, {len(inst['PASS_TO_PASS'])} P2P", flush=True)
        for p in problems:
            print(f"     {p}")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
