"""The publishing recipes in examples/: valid YAML, commands that exist, paths that match what build writes.

Each workflow is run for real, step by step, in a temporary folder: ``run`` scripts go
through bash with a ``reportgen`` that is this checkout (and a ``pip`` that does nothing),
GitHub expressions are filled in, and the artifact actions are imitated (upload-artifact
leaves hidden files out unless told otherwise, as v4.4+ does).
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from reportgen.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "fixtures"
GITHUB = ["github-pages.yml", "github-artifact.yml", "github-sweep-matrix.yml"]
GITLAB = ["gitlab-pages.yml"]
RUN_FIXTURES = [
    FIXTURES / "tinker" / "arith_sync",
    FIXTURES / "observe" / "examples",
    FIXTURES / "tinker" / "calc_agent_multiturn",
]
needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((EXAMPLES / name).read_text())
    assert isinstance(data, dict)
    return data


def test_every_example_is_listed_here():
    assert sorted(p.name for p in EXAMPLES.glob("*.yml")) == sorted(GITHUB + GITLAB)


@pytest.mark.parametrize("name", GITHUB)
def test_github_workflows_are_valid(name):
    wf = load(name)
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as true
    assert on and wf.get("name") and isinstance(wf.get("jobs"), dict)
    for job_id, job in wf["jobs"].items():
        assert job.get("runs-on") == "ubuntu-latest", job_id
        assert isinstance(job.get("steps"), list) and job["steps"], job_id
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step), (job_id, step)
            if "uses" in step:
                assert re.fullmatch(r"actions/[a-z-]+@v\d+", step["uses"]), step["uses"]
        for need in [job["needs"]] if isinstance(job.get("needs"), str) else job.get("needs", []):
            assert need in wf["jobs"]


def test_gitlab_pages_job_is_valid():
    ci = load("gitlab-pages.yml")
    job = ci["pages"]
    assert isinstance(job["script"], list) and job["artifacts"]["paths"] == ["public"]
    assert any("-o public" in line for line in job["script"])


def _commands(script: str) -> list[list[str]]:
    """The reportgen command lines of a shell script, split like the shell would (roughly)."""
    out = []
    for line in script.replace("\\\n", " ").splitlines():
        line = line.strip()
        if line.startswith("reportgen "):
            out.append(shlex.split(re.sub(r"\$\{\{[^}]*\}\}", "X", line)))
    return out


def _scripts(name: str) -> list[str]:
    data = load(name)
    if name in GITLAB:
        return [line for job in data.values() if isinstance(job, dict) for line in job.get("script", [])]
    return [s["run"] for job in data["jobs"].values() for s in job["steps"] if "run" in s]


@pytest.mark.parametrize("name", GITHUB + GITLAB)
def test_commands_exist_in_the_cli(name):
    commands = [c for s in _scripts(name) for c in _commands(s)]
    assert commands, name
    for argv in commands:
        assert argv[1] in main.commands, argv
        cmd = main.commands[argv[1]]
        known = {o for p in cmd.params for o in getattr(p, "opts", [])}
        for arg in argv[2:]:
            if arg.startswith("-"):
                assert arg in known, (argv, arg)


def test_the_docs_carry_every_recipe_verbatim():
    doc = (ROOT / "docs" / "publishing.md").read_text()
    for p in EXAMPLES.glob("*.yml"):
        assert p.read_text() in doc, f"docs/publishing.md is out of date with {p.name}"
        assert f"examples/{p.name}" in doc


# ---------------------------------------------------------------- running the workflows


@pytest.fixture
def shims(tmp_path: Path) -> Path:
    """A bin folder: ``reportgen`` is this checkout, ``pip`` does nothing."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "reportgen").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m reportgen "$@"\n')
    (bin_dir / "pip").write_text('#!/bin/sh\necho pip: skipped in the test "$@"\n')
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    return bin_dir


def _expr(text: str, matrix: dict[str, str]) -> str:
    values = {"github.event.repository.name": "repo", "github.run_number": "7", "github.repository": "me/repo"}
    values.update({f"matrix.{k}": v for k, v in matrix.items()})

    def sub(m: re.Match[str]) -> str:
        key = m.group(1).strip()
        assert key in values, f"unknown expression {key}"
        return values[key]

    return re.sub(r"\$\{\{(.*?)\}\}", sub, text)


def _bash(script: str, cwd: Path, env: dict[str, str], bin_dir: Path) -> None:
    full = dict(os.environ)
    full.update(env)
    full["PATH"] = f"{bin_dir}{os.pathsep}{full['PATH']}"
    full["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), full.get("PYTHONPATH", "")) if p)
    r = subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=full, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{script}\n{r.stdout}\n{r.stderr}"


def _copy_visible(src: Path, dest: Path, hidden: bool) -> None:
    for p in sorted(src.rglob("*")):
        rel = p.relative_to(src)
        if not hidden and any(part.startswith(".") for part in rel.parts):
            continue
        target = dest / rel
        if p.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, target)


def _place_runs(work: Path, env: dict[str, str], matrix_runs: list[str]) -> None:
    """Put fixture runs where the workflow looks for them."""
    if "RUN_DIR" in env:
        shutil.copytree(RUN_FIXTURES[0], work / env["RUN_DIR"])
    if "SWEEP_DIR" in env:
        for name, src in zip(matrix_runs, RUN_FIXTURES * 3):
            shutil.copytree(src, work / env["SWEEP_DIR"] / name)


def _run_github(name: str, tmp_path: Path, bin_dir: Path) -> dict[str, Path]:
    wf = load(name)
    env = {k: str(v) for k, v in wf.get("env", {}).items()}
    artifacts: dict[str, Path] = {}
    pages: list[Path] = []
    for job_id, job in wf["jobs"].items():
        matrix = (job.get("strategy") or {}).get("matrix") or {}
        combos = [{k: str(v) for k, v in zip(matrix, vals)} for vals in zip(*matrix.values())] if matrix else [{}]
        for i, combo in enumerate(combos):
            work = tmp_path / f"{job_id}-{i}"
            work.mkdir()
            job_env = {**env, **{k: str(v) for k, v in job.get("env", {}).items()}}
            _place_runs(work, job_env, [str(v) for v in matrix.get("run", [])])
            for step in job["steps"]:
                uses = step.get("uses", "")
                with_ = {k: _expr(str(v), combo) for k, v in (step.get("with") or {}).items()}
                if "run" in step:
                    _bash(_expr(step["run"], combo), work, job_env, bin_dir)
                elif uses.startswith("actions/upload-pages-artifact@"):
                    path = work / with_["path"]
                    assert (path / "index.html").is_file(), f"{name}: {with_['path']}/index.html was not built"
                    pages.append(path)
                    artifacts["github-pages"] = path
                elif uses.startswith("actions/upload-artifact@"):
                    path = work / with_["path"]
                    assert path.is_dir(), f"{name}: {with_['path']} was not built"
                    assert list(path.glob("index.html")) or list(path.glob("*/index.html")), path
                    store = tmp_path / "artifacts" / with_["name"]
                    assert not store.exists(), f"two artifacts named {with_['name']}"
                    _copy_visible(path, store, with_.get("include-hidden-files") == "True")
                    artifacts[with_["name"]] = store
                elif uses.startswith("actions/download-artifact@"):
                    dest = work / with_.get("path", ".")
                    chosen = [n for n in sorted(artifacts) if fnmatch.fnmatch(n, with_.get("pattern", "*"))]
                    assert chosen, f"{name}: no artifact matches {with_.get('pattern')}"
                    for n in chosen:
                        target = dest if with_.get("merge-multiple") == "True" else dest / n
                        _copy_visible(artifacts[n], target, True)
    return artifacts


@needs_bash
def test_github_pages_workflow_builds_what_it_uploads(tmp_path, shims):
    artifacts = _run_github("github-pages.yml", tmp_path, shims)
    site = artifacts["github-pages"]
    assert (site / "index.html").is_file() and (site / "train_iteration_000000.html").is_file()
    assert "<title>repo: 42 · run summary</title>" in (site / "index.html").read_text()


@needs_bash
def test_github_artifact_workflow(tmp_path, shims):
    artifacts = _run_github("github-artifact.yml", tmp_path, shims)
    site = artifacts["reportgen-site"]
    assert (site / "index.html").is_file() and (site / ".reportgen-site").is_file()  # include-hidden-files


@needs_bash
def test_github_sweep_matrix_assembles_the_index(tmp_path, shims):
    artifacts = _run_github("github-sweep-matrix.yml", tmp_path, shims)
    site = artifacts["reportgen-sweep"]
    runs = load("github-sweep-matrix.yml")["jobs"]["run"]["strategy"]["matrix"]["run"]
    text = (site / "index.html").read_text()
    assert "<title>sweep 7 · sweep of 3 runs</title>" in text
    for run in runs:
        assert (site / run / "run.json").is_file()
        assert f'data-run="{run}"' in text


@needs_bash
def test_gitlab_pages_job_builds_public(tmp_path, shims):
    ci = load("gitlab-pages.yml")
    env = {k: str(v) for k, v in ci["variables"].items()}
    env["CI_PROJECT_NAME"] = "project"
    work = tmp_path / "work"
    work.mkdir()
    _place_runs(work, env, [])
    _bash("\n".join(ci["pages"]["script"]), work, env, shims)
    for path in ci["pages"]["artifacts"]["paths"]:
        assert (work / path / "index.html").is_file()
    assert "<title>project: 42 · run summary</title>" in (work / "public" / "index.html").read_text()


def test_a_rebuild_keeps_the_files_a_host_reads_and_drops_others(tmp_path):
    """CNAME (GitHub Pages' custom domain), robots.txt, _headers and _redirects added to a
    published site stay through a rebuild that renders nothing and through a full one; any
    other file the build did not write goes, as the docs say."""
    from reportgen.site import PUBLISH_KEEP, BuildOptions, build

    src, site = FIXTURES / "observe" / "examples", tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    for name in PUBLISH_KEEP:
        (site / name).write_text(f"{name} of the user\n")
    (site / "notes.txt").write_text("not the site's\n")
    res = build(str(src), site, BuildOptions(jobs=1))  # in place: nothing rendered
    assert res.reused and res.rendered == 0
    assert all((site / n).read_text() == f"{n} of the user\n" for n in PUBLISH_KEEP)
    assert not (site / "notes.txt").exists()
    res = build(str(src), site, BuildOptions(jobs=1, title="another title"))  # a full build, swapped in
    assert not res.reused
    assert all((site / n).read_text() == f"{n} of the user\n" for n in PUBLISH_KEEP)
