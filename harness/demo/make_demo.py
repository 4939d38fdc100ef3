#!/usr/bin/env python3
"""Builds verdict's bundled demo from the fixture sources in harness/demo/src/.

Deterministic: the same sources give byte-identical outputs (fixed author, committer and dates,
an isolated git configuration, single-threaded packing, sorted output, no randomness).
Needs Python 3.11+ (tomllib) and git; nothing else.

Input, one folder per repository, harness/demo/src/<owner>__<name>/:
  repo.toml                          repo = "<owner>/<name>"
  base/                              the whole tree of the base commit (one commit on `main`)
  instances/<instance_id>/
    instance.toml                    problem_statement, version, created_at, FAIL_TO_PASS,
                                     PASS_TO_PASS; optional: deleted = { gold = [..], test = [..],
                                     candidate = [..] } (paths an overlay deletes), cost (dollars,
                                     copied to the prediction), expected* (documentation only)
    gold/                            files as they are after the gold fix (overlay on base)
    test/                            files as they are after the test patch (overlay on base)
    candidate/ | candidate.diff | candidate.empty
                                     the bundled prediction: an overlay, a verbatim patch, or an
                                     empty patch; with none of them the instance has no prediction

Output (committed):
  repos/<owner>__<name>.bundle       git bundle of `main` (and HEAD, so a clone checks it out)
  dataset.jsonl                      one SWE-bench instance per line, sorted by instance id
  predictions.jsonl                  one prediction per line (model "demo-model"), sorted

Usage: make_demo.py            rewrite the outputs
       make_demo.py --check    exit 1 when the committed outputs differ from the sources
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODEL = "demo-model"
BASE_DATE = "2024-01-15T12:00:00+00:00"
INSTANCE_KEYS = {
    "problem_statement", "version", "created_at", "FAIL_TO_PASS", "PASS_TO_PASS",
    "deleted", "cost", "expected", "expected_apply", "expected_flagged",
}
OVERLAYS = ("gold", "test", "candidate")


class DemoError(Exception):
    pass


def git_env(home):
    """An environment where no user or system git configuration leaks in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "verdict demo",
        "GIT_AUTHOR_EMAIL": "demo@verdict.invalid",
        "GIT_AUTHOR_DATE": BASE_DATE,
        "GIT_COMMITTER_NAME": "verdict demo",
        "GIT_COMMITTER_EMAIL": "demo@verdict.invalid",
        "GIT_COMMITTER_DATE": BASE_DATE,
        "TZ": "UTC",
        "LC_ALL": "C",
    })
    return env


class Repo:
    """A scratch git repository holding one fixture's base commit."""

    CONFIG = ["-c", "core.autocrlf=false", "-c", "core.abbrev=7", "-c", "pack.threads=1",
              "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false"]

    def __init__(self, path, env):
        self.path = path
        self.env = env

    def git(self, *args, binary=False):
        done = subprocess.run(["git", *self.CONFIG, *args], cwd=self.path, env=self.env,
                              capture_output=True)
        if done.returncode != 0:
            raise DemoError(f"git {' '.join(args)} failed in {self.path}: "
                            f"{done.stderr.decode(errors='replace').strip()}")
        return done.stdout if binary else done.stdout.decode("utf-8")

    def reset(self):
        self.git("reset", "-q", "--hard", "main")
        self.git("clean", "-q", "-f", "-d", "-x")

    def overlay_diff(self, overlay, deleted, where):
        """The `git diff` from the base commit to base + overlay - deleted."""
        self.reset()
        if overlay is not None:
            copy_tree(overlay, self.path)
        for rel in deleted:
            target = self.path / rel
            if not target.is_file():
                raise DemoError(f"{where}: `deleted` names {rel}, which is not a file of the base")
            target.unlink()
        self.git("add", "-A")
        diff = self.git("diff", "--cached", "--no-color", "--no-ext-diff", "--no-renames",
                        "--src-prefix=a/", "--dst-prefix=b/", "main")
        self.reset()
        if not diff:
            raise DemoError(f"{where}: the overlay changes nothing")
        return diff


# Litter a local test run leaves in a fixture source; never part of a fixture.
LITTER = {"__pycache__", ".pytest_cache", "node_modules", "target"}


def copy_tree(src, dst):
    for path in sorted(src.rglob("*")):
        if path.is_file() and not LITTER.intersection(path.relative_to(src).parts):
            target = dst / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            shutil.copymode(path, target)


def natural_key(text):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def read_toml(path):
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise DemoError(f"{path}: {e}") from e


def string_list(value, where):
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DemoError(f"{where}: expected a list of strings")
    return value


def candidate_patch(repo, inst_dir, deleted):
    """The bundled prediction's patch, or None when the instance has none."""
    forms = [name for name in ("candidate", "candidate.diff", "candidate.empty")
             if (inst_dir / name).exists()]
    if len(forms) > 1:
        raise DemoError(f"{inst_dir}: has {' and '.join(forms)}; keep one")
    if not forms:
        return None
    if forms[0] == "candidate":
        return repo.overlay_diff(inst_dir / "candidate", deleted, f"{inst_dir}/candidate")
    if forms[0] == "candidate.diff":
        return (inst_dir / "candidate.diff").read_bytes().decode("utf-8")
    if (inst_dir / "candidate.empty").stat().st_size:
        raise DemoError(f"{inst_dir}/candidate.empty: must be an empty file")
    return ""


def build_repo(src_dir, repos_out, scratch):
    """Commits one fixture, bundles it, and returns its (instances, predictions)."""
    meta = read_toml(src_dir / "repo.toml")
    repo_name = meta.get("repo")
    if not isinstance(repo_name, str) or repo_name.count("/") != 1:
        raise DemoError(f"{src_dir}/repo.toml: `repo` must be \"owner/name\"")
    slug = repo_name.replace("/", "__")
    if src_dir.name != slug:
        raise DemoError(f"{src_dir}: folder must be named {slug} for repo {repo_name}")
    base = src_dir / "base"
    if not base.is_dir():
        raise DemoError(f"{src_dir}: has no base/ folder")

    env = git_env(scratch)
    work = scratch / slug
    work.mkdir()
    repo = Repo(work, env)
    repo.git("init", "-q", "-b", "main")
    copy_tree(base, work)
    # --force: a fixture may track a file its own .gitignore matches (real repositories do).
    repo.git("add", "-A", "--force")
    repo.git("commit", "-q", "--no-verify", "-m", f"{repo_name}: base")
    base_commit = repo.git("rev-parse", "HEAD").strip()
    bundle = scratch / f"{slug}.bundle"
    repo.git("bundle", "create", "-q", str(bundle), "HEAD", "main")
    shutil.copyfile(bundle, repos_out / f"{slug}.bundle")

    instances, predictions = [], []
    inst_root = src_dir / "instances"
    inst_dirs = sorted((p for p in inst_root.iterdir() if p.is_dir()), key=lambda p: natural_key(p.name)) \
        if inst_root.is_dir() else []
    for inst_dir in inst_dirs:
        iid = inst_dir.name
        if not iid.startswith(slug + "-"):
            raise DemoError(f"{inst_dir}: instance ids of {repo_name} must start with {slug}-")
        spec = read_toml(inst_dir / "instance.toml")
        unknown = sorted(set(spec) - INSTANCE_KEYS)
        if unknown:
            raise DemoError(f"{inst_dir}/instance.toml: unknown keys {unknown}")
        for key in ("problem_statement", "version", "created_at"):
            if not isinstance(spec.get(key), str):
                raise DemoError(f"{inst_dir}/instance.toml: `{key}` must be a string")
        deleted = spec.get("deleted", {})
        if not isinstance(deleted, dict) or set(deleted) - set(OVERLAYS):
            raise DemoError(f"{inst_dir}/instance.toml: `deleted` takes the keys {list(OVERLAYS)}")
        dels = {k: string_list(deleted.get(k, []), f"{inst_dir}/instance.toml: deleted.{k}")
                for k in OVERLAYS}
        for kind in ("gold", "test"):
            if not (inst_dir / kind).is_dir() and not dels[kind]:
                raise DemoError(f"{inst_dir}: has no {kind}/ overlay")
        overlay = lambda kind: inst_dir / kind if (inst_dir / kind).is_dir() else None
        instances.append({
            "instance_id": iid,
            "repo": repo_name,
            "base_commit": base_commit,
            "patch": repo.overlay_diff(overlay("gold"), dels["gold"], f"{inst_dir}/gold"),
            "test_patch": repo.overlay_diff(overlay("test"), dels["test"], f"{inst_dir}/test"),
            "problem_statement": spec["problem_statement"],
            "version": spec["version"],
            "FAIL_TO_PASS": string_list(spec.get("FAIL_TO_PASS"), f"{inst_dir}: FAIL_TO_PASS"),
            "PASS_TO_PASS": string_list(spec.get("PASS_TO_PASS"), f"{inst_dir}: PASS_TO_PASS"),
            "created_at": spec["created_at"],
        })
        patch = candidate_patch(repo, inst_dir, dels["candidate"])
        if patch is not None:
            prediction = {"instance_id": iid, "model_name_or_path": MODEL, "model_patch": patch}
            if "cost" in spec:
                if not isinstance(spec["cost"], (int, float)) or isinstance(spec["cost"], bool):
                    raise DemoError(f"{inst_dir}/instance.toml: `cost` must be a number")
                prediction["cost"] = spec["cost"]
            predictions.append(prediction)
    return instances, predictions


def write_jsonl(path, records):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")


def build(out):
    """Writes every output under `out` (repos/, dataset.jsonl, predictions.jsonl)."""
    src = HERE / "src"
    repos_out = out / "repos"
    if repos_out.exists():
        shutil.rmtree(repos_out)
    repos_out.mkdir(parents=True)
    instances, predictions = [], []
    with tempfile.TemporaryDirectory(prefix="verdict-demo-") as scratch:
        for src_dir in sorted((p for p in src.iterdir() if p.is_dir()), key=lambda p: p.name):
            got_instances, got_predictions = build_repo(src_dir, repos_out, Path(scratch))
            instances += got_instances
            predictions += got_predictions
    ids = [i["instance_id"] for i in instances]
    if len(set(ids)) != len(ids):
        raise DemoError("two fixtures define the same instance id")
    instances.sort(key=lambda i: natural_key(i["instance_id"]))
    predictions.sort(key=lambda p: natural_key(p["instance_id"]))
    write_jsonl(out / "dataset.jsonl", instances)
    write_jsonl(out / "predictions.jsonl", predictions)
    return len(instances), len(predictions)


def outputs(root):
    files = {"dataset.jsonl", "predictions.jsonl"}
    if (root / "repos").is_dir():
        files |= {f"repos/{p.name}" for p in (root / "repos").iterdir()}
    return files


def main(argv):
    check = argv[1:] == ["--check"]
    if argv[1:] and not check:
        print(__doc__.split("Usage:")[1].strip(), file=sys.stderr)
        return 2
    try:
        if not check:
            n_inst, n_pred = build(HERE)
            print(f"make_demo: wrote {n_inst} instances and {n_pred} predictions to {HERE}")
            return 0
        with tempfile.TemporaryDirectory(prefix="verdict-demo-check-") as tmp:
            fresh = Path(tmp)
            build(fresh)
            stale = sorted(rel for rel in outputs(fresh) | outputs(HERE)
                           if not (HERE / rel).is_file() or not (fresh / rel).is_file()
                           or (HERE / rel).read_bytes() != (fresh / rel).read_bytes())
        if stale:
            print("make_demo: outputs out of date (rerun harness/demo/make_demo.py): "
                  + ", ".join(stale), file=sys.stderr)
            return 1
        print("make_demo: outputs are up to date")
        return 0
    except DemoError as e:
        print(f"make_demo: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
