"""Sweeps: a folder of runs (or several sources) built into one site, run.json, ``reportgen index``."""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.model import Checkpoint, IterationRef, Run
from reportgen.resources import demo_dir
from reportgen.site import BuildOptions, build
from reportgen.sweep import downsample, flatten_config, natural_key, run_status, unique_names, varying_keys
from reportgen.views.text import FOLDER_NAME_BYTES, folder_name, safe_name

from .obs import Obs

FIXTURES = Path(__file__).parent / "fixtures"
RUNS = {
    "observe_examples": FIXTURES / "observe" / "examples",
    "arith_sync": FIXTURES / "tinker" / "arith_sync",
    "calc_agent_multiturn": FIXTURES / "tinker" / "calc_agent_multiturn",
    "grpo": demo_dir() / "grpo",
    "agent": demo_dir() / "agent",
}


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def title_of(path: Path) -> str:
    """The page's <title>, unescaped (without parsing the whole page)."""
    import html
    import re

    m = re.search(r"<title>(.*?)</title>", path.read_text(encoding="utf-8"), re.S)
    assert m, path
    return html.unescape(m.group(1))


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory) -> Path:
    """A mixed folder of runs: observe exports and tinker log_paths, plus things that are not runs."""
    root = tmp_path_factory.mktemp("sweep") / "runs"
    for name, src in RUNS.items():
        shutil.copytree(src, root / name)
    # an observe run in the runs/<name>/observe/observe.jsonl layout
    shutil.copytree(FIXTURES / "observe" / "examples", root / "nested" / "observe")
    (root / "notes").mkdir()
    (root / "notes" / "README.txt").write_text("not a run")
    shutil.copytree(FIXTURES / "tinker" / "arith_sync", root / ".hidden")
    shutil.copytree(FIXTURES / "tinker" / "arith_sync", root / "_scratch")
    return root


@pytest.fixture(scope="module")
def sweep(runs_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("out") / "site"
    r = invoke("build", str(runs_dir), "-o", str(out), "--jobs", "1")
    assert r.exit_code == 0, r.output
    assert "a sweep of 6 runs" in r.output.strip().splitlines()[-1]
    assert "not runs, left out: notes" in r.output
    return out


NAMES = sorted([*RUNS, "nested"], key=str.lower)


def test_sweep_writes_a_site_per_run_and_an_index(sweep):
    assert (sweep / "index.html").is_file() and (sweep / "sweep_data.js").is_file()
    assert (sweep / "assets" / "sweep.js").is_file() and (sweep / "assets" / "vendor" / "vega.min.js").is_file()
    assert (sweep / ".nojekyll").is_file()
    assert json.loads((sweep / ".reportgen-site").read_text())["format"] == "sweep"
    for name in NAMES:
        assert (sweep / name / "index.html").is_file(), name
        assert (sweep / name / "run.json").is_file(), name
        assert (sweep / name / "assets" / "reportgen.css").is_file(), name
    assert not (sweep / "notes").exists() and not (sweep / ".hidden").exists() and not (sweep / "_scratch").exists()
    assert (sweep / "arith_sync" / "train_iteration_000000.html").is_file()
    assert (sweep / "arith_sync" / "eval_test_iteration_000000.html").is_file()


def test_index_lists_every_run_with_its_columns(sweep):
    page = soup(sweep / "index.html")
    rows = page.select("#sw-table tbody tr")
    assert [r["data-run"] for r in rows] == NAMES
    heads = [th.get_text(strip=True) for th in page.select("#sw-table thead th")]
    for h in ("run", "status", "format", "algorithm / loss", "model", "iterations", "final reward", "best reward"):
        assert h in heads
    assert "last eval" in heads
    by_name = {r["data-run"]: r for r in rows}
    grpo = by_name["grpo"]
    assert grpo.select_one("a")["href"] == "grpo/index.html"
    assert grpo["data-status"] == "finished" and grpo["data-format"] == "observe"
    cells = [td.get_text(" ", strip=True) for td in grpo.find_all("td")]
    assert "grpo" in cells and "30" in cells and "0.9375" in cells
    arith = by_name["arith_sync"]
    eval_link = [a["href"] for a in arith.select("a") if "eval_" in a["href"]]
    assert eval_link == ["arith_sync/eval_test_iteration_000005.html"]
    assert (sweep / eval_link[0]).is_file()
    assert by_name["observe_examples"]["data-status"] == "live"
    # config keys that differ between runs of the same format are columns
    assert "learning_rate" in heads and "group_size" in heads
    lr = heads.index("learning_rate")
    assert arith.find_all("td")[lr].get_text(strip=True) == "4e-05"
    assert by_name["calc_agent_multiturn"].find_all("td")[lr].get_text(strip=True) == "2e-05"
    assert by_name["grpo"].find_all("td")[lr].get_text(strip=True) == "–"  # another format
    assert "log_path" not in heads  # names the run, is not a hyper-parameter


def test_index_is_csp_clean_and_titled(sweep):
    text = (sweep / "index.html").read_text()
    page = BeautifulSoup(text, "html.parser")
    assert page.title.get_text() == "runs · sweep of 6 runs"
    assert all(s.get("src") for s in page.find_all("script")), "no inline script"
    assert not page.select("[style]") and "<style" not in text
    srcs = [s["src"] for s in page.find_all("script")]
    assert srcs.index("sweep_data.js") < srcs.index("assets/sweep.js")
    assert srcs.index("assets/vendor/vega.min.js") < srcs.index("assets/vendor/vega-interpreter.min.js")
    for src in srcs:
        assert (sweep / src).is_file()
    assert page.select_one('link[href="assets/sweep.css"]')


def test_every_page_title_names_the_run_and_the_page(sweep):
    for name in NAMES:
        for p in (sweep / name).glob("*.html"):
            title = title_of(p)
            assert title.endswith(f" · {name}") or title.startswith(f"{name} · "), (p, title)
            assert title.strip() != name


def test_run_pages_link_up_to_the_sweep(sweep):
    for p in (sweep / "grpo").glob("*.html"):
        assert '<a class="brand" href="../index.html">runs</a>' in p.read_text(encoding="utf-8"), p


def test_curves_hold_every_run(sweep):
    js = (sweep / "sweep_data.js").read_text()
    data = json.loads(js[js.index("=") + 1 : js.rindex(";")])
    names = [r["name"] for r in data["runs"]]
    assert names == NAMES
    charts = {c["id"]: c for c in data["charts"]}
    assert {"reward", "kl", "entropy", "length", "correct", "eval"} <= set(charts)
    assert sorted(names[s["run"]] for s in charts["reward"]["series"]) == NAMES
    grpo = next(s for s in charts["reward"]["series"] if names[s["run"]] == "grpo")
    assert grpo["x"] == list(range(1, 31)) and grpo["metric"] == "reward/mean"
    assert data["runs"][names.index("grpo")]["train"] == list(range(2, 31, 2))
    assert charts["eval"]["series"][0]["label"] == "test"


def test_run_json(sweep):
    arith = json.loads((sweep / "arith_sync" / "run.json").read_text())
    assert arith["schema"] == "reportgen-run/1"
    assert arith["format"] == "tinker" and arith["algorithm"] == "importance_sampling"
    assert (
        arith["model"] == "Qwen/Qwen3-8B" and arith["iterations"] == 5
    )  # steps 0-4; step 5 holds the final evaluation and totals
    assert arith["status"] == "finished" and "final checkpoint" in arith["status_reason"]
    assert arith["reward"]["metric"] == "env/all/reward/total"
    assert arith["reward"]["final_step"] == 4 and arith["reward"]["best"] >= arith["reward"]["final"]
    assert arith["eval"]["label"] == "test" and arith["eval"]["step"] == 5
    assert arith["config"]["learning_rate"] == 4e-05 and arith["config"]["dataset_builder.batch_size"] == 6
    assert "evaluator_builders" not in arith["config"]  # a list of objects
    assert arith["pages"]["train"] == [0, 1, 2]
    assert arith["pages"]["eval"]["test"] == [0, 2, 5]
    for series in arith["series"].values():
        assert len(series["x"]) == len(series["y"]) == series["n"] <= 2000
    grpo = json.loads((sweep / "grpo" / "run.json").read_text())
    assert grpo["config"] == {
        "epochs": 1,
        "group_size": 4,
        "max_new_tokens": 256,
        "prompts_per_update": 4,
        "updates": 30,
    }
    assert grpo["status"] == "finished" and grpo["eval"] is None


def test_single_run_site_has_run_json(tmp_path):
    build(str(RUNS["grpo"]), tmp_path / "s")
    assert json.loads((tmp_path / "s" / "run.json").read_text())["title"] == "grpo"


def test_jobs_output_identical_to_serial(runs_dir, sweep, tmp_path):
    r = invoke("build", str(runs_dir), "-o", str(tmp_path / "par"), "--jobs", "3", "-q")
    assert r.exit_code == 0, r.output
    serial, parallel = files(sweep), files(tmp_path / "par")
    assert serial.keys() == parallel.keys()
    differ = [k for k in serial if serial[k] != parallel[k]]
    assert differ == []


def test_index_regenerates_the_same_index(sweep, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(sweep, copy)
    (copy / "index.html").unlink()
    (copy / "sweep_data.js").unlink()
    r = invoke("index", str(copy))
    assert r.exit_code == 0, r.output
    assert "an index of 6 runs" in r.output
    assert files(copy) == files(sweep)
    r = invoke("index", str(copy), "--title", "lr sweep")
    assert r.exit_code == 0, r.output
    assert soup(copy / "index.html").title.get_text() == "lr sweep · sweep of 6 runs"
    assert json.loads((copy / ".reportgen-site").read_text())["title"] == "lr sweep"
    invoke("index", str(copy))  # the title recorded is kept
    assert soup(copy / "index.html").title.get_text() == "lr sweep · sweep of 6 runs"


def test_index_does_not_replace_a_hand_written_page_without_force(tmp_path):
    site = tmp_path / "site"
    for name in ("arith_sync", "agent"):
        assert invoke("build", str(RUNS[name]), "-o", str(site / name), "-q").exit_code == 0
    (site / "index.html").write_text("<h1>my page</h1>")
    r = invoke("index", str(site))
    assert r.exit_code == 1 and "was not written by reportgen" in r.output and "--force" in r.output
    assert (site / "index.html").read_text() == "<h1>my page</h1>" and not (site / ".reportgen-site").exists()
    r = invoke("index", str(site), "--force")
    assert r.exit_code == 0 and "an index of 2 runs" in r.output, r.output
    r = invoke("index", str(site))  # its own page now: no --force needed
    assert r.exit_code == 0, r.output
    (site / ".reportgen-site").unlink()  # as a CI artifact without hidden files: the page says it is ours
    r = invoke("index", str(site))
    assert r.exit_code == 0, r.output
    # a site of ours (its marker back) whose index.html was then written by hand: refused too
    (site / "index.html").write_text("<h1>my page again</h1>")
    r = invoke("index", str(site))
    assert r.exit_code == 1 and "was not written by reportgen" in r.output


def test_index_assembles_sites_built_separately(tmp_path):
    site = tmp_path / "site"
    for name in ("arith_sync", "agent"):
        assert invoke("build", str(RUNS[name]), "-o", str(site / name), "-q").exit_code == 0
        (site / name / ".reportgen-site").unlink()  # as after upload-artifact without hidden files
    r = invoke("index", str(site))
    assert r.exit_code == 0, r.output
    rows = soup(site / "index.html").select("#sw-table tbody tr")
    assert [r["data-run"] for r in rows] == ["agent", "arith_sync"]
    assert soup(site / "index.html").title.get_text() == "site · sweep of 2 runs"
    assert (site / "assets" / "sweep.js").is_file()


def test_index_refuses_a_single_run_site_and_an_empty_folder(tmp_path):
    build(str(RUNS["agent"]), tmp_path / "one")
    r = invoke("index", str(tmp_path / "one"))
    assert r.exit_code == 1 and "single run" in r.output
    (tmp_path / "empty").mkdir()
    r = invoke("index", str(tmp_path / "empty"))
    assert r.exit_code == 1 and "run.json" in r.output


def test_several_sources_make_a_sweep_with_unique_names(tmp_path):
    for parent in ("a", "b"):
        shutil.copytree(RUNS["agent"], tmp_path / parent / "run")
    shutil.copytree(RUNS["observe_examples"], tmp_path / "assets")
    out = tmp_path / "site"
    r = invoke(
        "build",
        str(tmp_path / "a" / "run"),
        str(tmp_path / "b" / "run" / "observe.jsonl"),
        str(tmp_path / "assets"),
        "-o",
        str(out),
        "--title",
        "three",
        "-q",
    )
    assert r.exit_code == 0, r.output
    rows = soup(out / "index.html").select("#sw-table tbody tr")
    assert sorted(r["data-run"] for r in rows) == ["assets_run", "run", "run-2"]
    assert (out / "assets" / "sweep.js").is_file() and (out / "assets_run" / "index.html").is_file()
    assert soup(out / "run-2" / "index.html").title.get_text() == "run-2 · run summary"


def test_a_broken_run_is_left_out_with_a_warning(tmp_path):
    runs = tmp_path / "runs"
    shutil.copytree(RUNS["agent"], runs / "good")
    (runs / "bad").mkdir()
    (runs / "bad" / "observe.jsonl").write_text(
        '{"v":3,"type":"run","segment":0,"batch_id":0,"batch_index":0,"batch_len":1}\n'
    )
    r = invoke("build", str(runs), "-o", str(tmp_path / "site"))
    assert r.exit_code == 0, r.output
    assert "run bad left out of the sweep" in r.output and "observe.jsonl:1:" in r.output
    assert [r["data-run"] for r in soup(tmp_path / "site" / "index.html").select("#sw-table tbody tr")] == ["good"]
    shutil.rmtree(runs / "good")
    r = invoke("build", str(runs), "-o", str(tmp_path / "site2"))
    assert r.exit_code == 1 and "no run of the sweep could be built" in r.output


def test_a_folder_without_runs_is_still_an_error(tmp_path):
    (tmp_path / "runs" / "notes").mkdir(parents=True)
    r = invoke("build", str(tmp_path / "runs"), "-o", str(tmp_path / "site"))
    assert r.exit_code == 1 and "looked for observe.jsonl" in r.output


def test_a_sweep_does_not_read_its_own_output(runs_dir, tmp_path):
    runs = tmp_path / "runs"
    shutil.copytree(RUNS["agent"], runs / "agent")
    for _ in range(2):
        r = invoke("build", str(runs), "-o", str(runs / "site"), "-q")
        assert r.exit_code == 0, r.output
    assert [r["data-run"] for r in soup(runs / "site" / "index.html").select("#sw-table tbody tr")] == ["agent"]


def test_single_run_title_option(tmp_path):
    r = invoke("build", str(RUNS["arith_sync"]), "-o", str(tmp_path / "s"), "--title", "Arith <42>", "-q")
    assert r.exit_code == 0, r.output
    for p in (tmp_path / "s").glob("*.html"):
        title = title_of(p)
        assert "Arith <42>" in title and title != "Arith <42>", p


def test_demo_is_a_sweep(tmp_path):
    r = invoke("demo", "-o", str(tmp_path / "d"))
    assert r.exit_code == 0, r.output
    rows = soup(tmp_path / "d" / "index.html").select("#sw-table tbody tr")
    assert [r["data-run"] for r in rows] == ["agent", "grpo"]
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "mine.txt").write_text("keep")
    assert invoke("demo", "-o", str(tmp_path / "e")).exit_code == 1  # never replaces a folder it did not write
    assert (tmp_path / "e" / "mine.txt").read_text() == "keep"


# ---------------------------------------------------------------- units


def _tinker(**kw) -> Run:
    run = Run(format="tinker", source="x", title="x")
    run.metrics.row_for(0)
    run.metrics.row_for(1)
    for k, v in kw.items():
        setattr(run, k, v)
    return run


def test_status_tinker():
    final = Checkpoint("final", 2, None, None, False, True, {})
    assert run_status(_tinker(checkpoints=[final]))[0] == "finished"
    crashed = IterationRef("train", 2, status="crashed")
    assert run_status(_tinker(iterations=[IterationRef("train", 1), crashed]))[0] == "crashed"
    early = IterationRef("train", 0, status="crashed")
    assert run_status(_tinker(iterations=[early, IterationRef("train", 1)]))[0] == "live"  # resumed after it
    live = IterationRef("train", 2, status="incomplete")
    assert run_status(_tinker(iterations=[IterationRef("train", 1), live]))[0] == "live"


def test_status_observe(tmp_path):
    from reportgen.sources.detect import open_source

    def status(obs: Obs) -> str:
        d = tmp_path / f"r{len(list(tmp_path.iterdir()))}"
        obs.write(d)
        return run_status(open_source(str(d)).scan())[0]

    done = Obs().run(updates=2)
    done.batch(done.rollout(1, 0, 0)).batch(done.update(1)).batch(done.rollout(2, 0, 0)).batch(done.update(2))
    assert status(done) == "finished"
    going = Obs().run(updates=5)
    going.batch(going.rollout(1, 0, 0)).batch(going.update(1))
    assert status(going) == "live"
    broken = Obs().run(updates=5)
    broken.batch(broken.rollout(1, 0, 0)).batch(broken.update(1)).batch(broken.rollout(2, 0, 0))
    assert status(broken) == "crashed"
    assert status(Obs().run(updates=5)) == "live"


def test_downsample_keeps_ends_and_extremes():
    xs = list(range(10_000))
    ys = [float(x % 97) for x in xs]
    ys[5000] = 1e6
    ys[7000] = -1e6
    dx, dy = downsample(xs, ys, 2000)
    assert len(dx) <= 2000 and dx[0] == 0 and dx[-1] == 9999 and dx == sorted(dx)
    assert 1e6 in dy and -1e6 in dy
    assert downsample([1, 2], [1.0, 2.0], 2000) == ([1, 2], [1.0, 2.0])


def test_flatten_config_and_varying_keys():
    cfg = {"lr": 1e-5, "ds": {"bs": 4, "name": "x"}, "evals": [{"a": 1}], "tags": ["a", "b"], "nan": float("nan")}
    flat = flatten_config(cfg)
    assert flat == {"lr": 1e-5, "ds.bs": 4, "ds.name": "x", "tags": '["a","b"]', "nan": None}
    summaries = [
        ("a", {"format": "tinker", "config": {"lr": 1, "log_path": "/a", "same": 1}}),
        ("b", {"format": "tinker", "config": {"lr": 2, "log_path": "/b", "same": 1, "extra": True}}),
        ("c", {"format": "observe", "config": {"updates": 3}}),
    ]
    assert varying_keys(summaries) == [("tinker", "lr"), ("tinker", "extra")]


def test_a_runs_own_safe_name_stays_its_folder_when_another_run_joins():
    """runs/run_1 kept its folder only while no "run 1" sorted before it: adding one moved
    run_1 to run_1-2, and every link shared to it opened the other run."""
    assert unique_names(["r/run_1"]) == ["run_1"]
    assert unique_names(["r/run 1", "r/run_1"]) == ["run_1-2", "run_1"]
    assert unique_names(["r/a b", "r/a:b", "r/a_b"]) == ["a_b-2", "a_b-3", "a_b"]


def test_hyperparameters_come_first_among_the_varying_config_keys():
    """Sixteen paths and names that differ between runs, seen first, pushed the learning rate
    out of the table's config columns: keys named as hyperparameters, with short values,
    come first; the rest keep their first-seen order."""
    configs = [
        {
            **{f"paths.out_{i}": f"/runs/{r}/a/very/long/path/to/somewhere/{i}/x" for i in range(16)},
            "note": f"n{r}",
            "optim.learning_rate": 10.0**-r,
            "group_size": 4 * r,
        }
        for r in range(1, 4)
    ]
    summaries = [(f"r{i}", {"format": "tinker", "config": c}) for i, c in enumerate(configs)]
    keys = [k for _f, k in varying_keys(summaries)]
    assert keys[:2] == ["optim.learning_rate", "group_size"]
    assert keys[2] == "note" and keys[3:] == [f"paths.out_{i}" for i in range(16)]


def test_unique_names():
    assert unique_names(["r/x", "s/x", "s/X", "t/assets", "u/42/observe", "v/43/observe/observe.jsonl"]) == [
        "x",
        "x-2",
        "X-3",
        "assets_run",
        "42",
        "43",
    ]


def test_folder_names_keep_every_script_and_stay_safe():
    """A run's folder keeps the letters and digits of its name in any script ("实验-1" and
    "试验-1" both became "_1"-like names, or "unnamed"), in NFC, with their combining marks;
    what a path, Windows or a reader's eyes cannot take goes."""
    cases = {
        "实验-1": "实验-1",
        "试验-1": "试验-1",
        "Re\u0301sume\u0301 2": "Résumé_2",  # composed: NFC
        "प्रयोग": "प्रयोग",  # the virama and vowel signs are marks: kept with their letters
        "Ｘ²": "Ｘ²",
        'a/b\\c:d*e?f"g<h>i|j': "a_b_c_d_e_f_g_h_i_j",
        "..": "unnamed",
        ".hidden": "hidden",
        "a..b": "a.b",
        "\u0301abc": "abc",  # never a mark first
        "e\u202eab\u200b": "eab",  # bidi and format characters dropped
        "\u3164\ufe0f": "unnamed",  # invisible letters and variation selectors too
        "run\x00\x1f\t1": "run_1",
        "😀 run": "run",
        "CON": "CON_run",
        "nul.txt": "nul_run.txt",
        "": "unnamed",
    }
    assert {k: folder_name(k) for k in cases} == cases
    assert folder_name("é" * 80) == "é" * 50  # 100 bytes of UTF-8, cut between characters
    assert folder_name("a" * 99 + "é") == "a" * 99  # not half of its two bytes
    assert folder_name("a" * 98 + "e\u0301\u0302") == "a" * 98  # not a letter without its marks
    hostile = [chr(c) for c in range(0x2100)] + ["\ud800", "\U0001f600", "\u202e", "\u0301" * 300, "x" * 300]
    for text in [*hostile, "".join(hostile)]:
        name = folder_name(text)
        assert name not in (".", "..") and not name.startswith((".", "_")) and ".." not in name
        assert len(name.encode("utf-8")) <= FOLDER_NAME_BYTES
        assert not any(c in '<>:"/\\|?*' or unicodedata.category(c)[0] in "CZ" for c in name), repr(name)
        assert unicodedata.normalize("NFC", name) == name and unicodedata.category(name[0])[0] != "M"
    # tinker's own rule, for the files it names, stays as it was
    assert safe_name("实验-1") == "-1" and safe_name("run 1") == "run_1"


def test_unique_names_of_any_script():
    long = "长" * 40  # 120 bytes: 33 characters, then 32 and "-2"
    assert unique_names(["a/实验-1", "b/试验-1", "c/实验-1", f"d/{long}", f"e/{long}", "f/Straße", "g/STRASSE"]) == [
        "实验-1",
        "试验-1",
        "实验-1-2",
        "长" * 33,
        "长" * 32 + "-2",
        "Straße",
        "STRASSE-2",  # casefolded alike: one folder on a case-insensitive disk
    ]
    assert natural_key("²") == [(1, 0, "²")]  # int("²") raised
    assert natural_key("run٣") == [(1, 0, "run"), (0, 3, "")]


def test_a_sweep_of_runs_named_in_any_script_links_their_folders(tmp_path):
    """Runs named "实验-1", "试验-1" and "Résumé" (decomposed, as macOS writes it) get folders of
    those names, and the index's links, percent-encoded UTF-8, reach each folder's files."""
    from urllib.parse import unquote

    runs = tmp_path / "runs"
    shutil.copytree(RUNS["agent"], runs / "实验-1")
    shutil.copytree(RUNS["observe_examples"], runs / "试验-1")
    shutil.copytree(RUNS["agent"], runs / "Re\u0301sume\u0301")
    out = tmp_path / "site"
    assert invoke("build", str(runs), "-o", str(out), "-q").exit_code == 0
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["Résumé", "assets", "实验-1", "试验-1"]
    doc = soup(out / "index.html")
    rows = {r["data-run"]: r for r in doc.select("#sw-table tbody tr")}
    assert sorted(rows) == ["Résumé", "实验-1", "试验-1"]
    assert rows["实验-1"].select_one("a")["href"] == "%E5%AE%9E%E9%AA%8C-1/index.html"
    hrefs = [a["href"] for a in doc.select("a[href]") if "://" not in a["href"] and not a["href"].startswith("#")]
    assert len(hrefs) >= 3
    for href in hrefs:
        assert href.isascii(), href
        assert (out / unquote(href.split("#", 1)[0])).is_file(), href
    data = (out / "sweep_data.js").read_text(encoding="utf-8")
    assert '"name":"实验-1"' in data  # sweep.js encodes it (encodeURIComponent) for its links
    assert invoke("index", str(out)).exit_code == 0  # the same index from the folders alone
    assert soup(out / "index.html").select_one("tr[data-run='实验-1'] a")["href"] == "%E5%AE%9E%E9%AA%8C-1/index.html"


def test_build_options_up_link(tmp_path):
    build(str(RUNS["agent"]), tmp_path / "s", BuildOptions(up=("../index.html", "my sweep")))
    a = soup(tmp_path / "s" / "train_iteration_000001.html").select_one("header nav a")
    assert a["href"] == "../index.html" and a.get_text() == "my sweep"


def test_names_that_files_cannot_carry_keep_their_titles(tmp_path):
    runs = tmp_path / "runs"
    shutil.copytree(RUNS["agent"], runs / "run 1")
    shutil.copytree(RUNS["observe_examples"], runs / "実験")
    out = tmp_path / "site"
    assert invoke("build", str(runs), "-o", str(out), "-q").exit_code == 0
    rows = {r["data-run"]: r for r in soup(out / "index.html").select("#sw-table tbody tr")}
    assert sorted(rows) == ["run_1", "実験"]
    assert title_of(out / "実験" / "index.html") == "実験 · run summary"
    assert rows["実験"].select_one("a")["href"] == "%E5%AE%9F%E9%A8%93/index.html"
    # a folder assembled by hand may have any name: links quote it
    shutil.move(str(out / "run_1"), str(out / "my run#1"))
    assert invoke("index", str(out)).exit_code == 0
    link = soup(out / "index.html").select_one("tr[data-run='my run#1'] a")["href"]
    assert link == "my%20run%231/index.html"


def test_config_values_are_shown_exactly():
    from reportgen.sweep import sweep_context

    summaries = [
        (f"r{i}", {"format": "tinker", "config": {"lr": lr, "flag": i == 0, "opt": None if i else "adam"}})
        for i, lr in enumerate((1e-4, 1.1e-4, 3e-5))
    ]
    ctx, _data = sweep_context(summaries, "t")
    cells = [[c["text"] for c in r["config"]] for r in ctx["runs"]]
    assert cells == [["0.0001", "true", "adam"], ["0.00011", "false", "null"], ["3e-05", "false", "null"]]


def test_sweep_rebuild_reuses_unchanged_pages_and_equals_a_fresh_build(tmp_path):
    """A sweep built again after one run grew: the other runs' pages are linked from the
    previous sweep (same inode), the grown run's old pages too, and the result is the
    same as a sweep built from scratch."""
    from .test_live import _split_demo

    runs = tmp_path / "runs"
    runs.mkdir()
    grown, rest = _split_demo(runs)  # runs/run: the first half of the demo export
    shutil.copytree(FIXTURES / "tinker" / "arith_sync", runs / "tk")
    out = tmp_path / "site"
    r = invoke("build", str(runs), "-o", str(out), "--jobs", "1", "-q")
    assert r.exit_code == 0, r.output
    before = {p.relative_to(out).as_posix(): p.stat().st_ino for p in out.rglob("*.html")}
    with open(grown / "observe.jsonl", "ab") as f:
        f.write(rest)
    r = invoke("build", str(runs), "-o", str(out), "--jobs", "1", "-q")
    assert r.exit_code == 0, r.output
    after = {p.relative_to(out).as_posix(): p.stat().st_ino for p in out.rglob("*.html")}
    tk_pages = [k for k in before if k.startswith("tk/") and "_iteration_" in k]
    assert tk_pages and all(after[k] == before[k] for k in tk_pages)
    run_pages = [k for k in before if k.startswith("run/train_iteration_")]
    reused = [k for k in run_pages if after.get(k) == before[k]]
    assert reused, "no page of the grown run was reused"
    assert len(after) > len(before)  # the new updates' pages
    fresh = tmp_path / "fresh"
    r = invoke("build", str(runs), "-o", str(fresh), "--jobs", "1", "-q")
    assert r.exit_code == 0, r.output
    a, b = files(out), files(fresh)
    assert a.keys() == b.keys()
    differ = [k for k in a if a[k] != b[k] and not k.endswith(".reportgen-state")]
    assert differ == []


def test_markdown_option_reaches_every_run(tmp_path):
    runs = tmp_path / "runs"
    shutil.copytree(FIXTURES / "observe" / "examples", runs / "a")
    for flag, expect in (("off", False), ("on", True)):
        out = tmp_path / f"site-{flag}"
        r = invoke("build", str(runs), "-o", str(out), "--markdown", flag, "-q")
        assert r.exit_code == 0, r.output
        pages = list((out / "a").glob("train_iteration_*.html"))
        assert pages
        assert any("has-md" in p.read_text(encoding="utf-8") for p in pages) is expect, flag


@pytest.mark.parametrize("jobs", [1, 3])
def test_sweep_progress_counts_the_runs_built(runs_dir, tmp_path, jobs):
    """A sweep of large runs takes minutes: the bar counts the runs as they are built."""
    from reportgen.sweep import build_sweep, plan_sweep

    plan = plan_sweep([str(runs_dir)], tmp_path / "site")
    assert plan is not None
    seen: list[tuple[int, int, str]] = []
    named: list[str] = []
    result = build_sweep(
        plan,
        tmp_path / "site",
        BuildOptions(jobs=jobs),
        jobs=jobs,
        on_run=lambda name, ok, message: named.append(name),
        progress=lambda d, t, unit: seen.append((d, t, unit)),
    )
    n = len(plan.runs)
    assert result.runs == n == 6
    assert seen == [(i, n, "runs") for i in range(n + 1)]
    assert named == [name for name, _src in plan.runs]


def test_the_index_says_which_runs_were_left_out_and_index_keeps_saying_it(tmp_path):
    """A run the sweep could not read, and a folder that is no run, were said on stderr only:
    the index lists every run, so it names those left out, and `reportgen index` again."""
    from bs4 import BeautifulSoup

    from reportgen.sweep import write_sweep_index

    from .obs import Obs

    runs = tmp_path / "runs"
    for name in ("good1", "good2"):
        o = Obs().run()
        o.batch(o.prompt("p:0", "q"), o.rollout(1, 0, 0))
        o.batch(o.update(1))
        o.write(runs / name)
    (runs / "corrupt").mkdir()
    (runs / "corrupt" / "observe.jsonl").write_text("not json at all\n")
    (runs / "notes").mkdir()
    (runs / "notes" / "readme.txt").write_text("x")
    site = tmp_path / "site"
    r = invoke("build", str(runs), "-o", str(site))
    assert r.exit_code == 0, r.output

    def said() -> str:
        page = BeautifulSoup((site / "index.html").read_text(), "html.parser")
        box = page.select_one(".warnings")
        return box.get_text(" ") if box else ""

    for _ in range(2):
        text = said()
        assert "corrupt" in text and "left out" in text and "notes: not a run" in text, text
        write_sweep_index(site)  # what `reportgen index` does: the marker keeps the list
    # a new title (`reportgen index SITE --title T`) keeps the list too, for the next index
    write_sweep_index(site, title="T")
    write_sweep_index(site)
    assert "corrupt" in said() and "notes: not a run" in said()
    # the run mended and built into the sweep on its own: in the table, no longer left out
    (runs / "corrupt" / "observe.jsonl").write_text((runs / "good1" / "observe.jsonl").read_text())
    assert invoke("build", str(runs / "corrupt"), "-o", str(site / "corrupt")).exit_code == 0
    for _ in range(2):
        write_sweep_index(site)
        text = said()
        assert "corrupt" not in text and "notes: not a run" in text, text
        page = BeautifulSoup((site / "index.html").read_text(), "html.parser")
        assert any("corrupt" in a.get("href", "") for a in page.select("a"))


def test_index_refuses_a_run_site_named_like_the_sweeps_own_files(tmp_path):
    """`reportgen index` copied the sweep's assets into a run site called assets, and failed
    halfway (files written) on one called index.html: refused before anything is written."""
    from .obs import Obs

    o = Obs().run()
    o.batch(o.prompt("p:0", "q"), o.rollout(1, 0, 0))
    o.batch(o.update(1))
    src = o.write(tmp_path / "src")
    for own in ("assets", "index.html", "sweep_data.js"):
        site = tmp_path / f"site-{own}"
        assert invoke("build", str(src), "-o", str(site / own)).exit_code == 0
        assert invoke("build", str(src), "-o", str(site / "r2")).exit_code == 0
        before = sorted(p.relative_to(site).as_posix() for p in site.rglob("*"))
        r = invoke("index", str(site))
        assert r.exit_code == 1 and f"{own} here is a run site or a folder" in r.output, r.output
        assert sorted(p.relative_to(site).as_posix() for p in site.rglob("*")) == before


def test_a_metric_series_is_its_finite_values_by_step():
    """metric_series (in C where it can) gives what a sort of (step, value) pairs of the
    finite values gives, steps in order or not (a resume's redone updates)."""
    import math
    import random

    from reportgen.sweep import metric_series

    rnd = random.Random(7)
    for _ in range(200):
        run = Run(format="observe", source="m", title="t")
        steps = list(range(rnd.randrange(0, 40)))
        if rnd.random() < 0.5:
            rnd.shuffle(steps)
        for st in steps:
            i = run.metrics.row_for(st)
            v = rnd.choice([0.5, -1.25, math.nan, math.inf, -math.inf, None, float(st)])
            if v is not None:
                run.metrics.set(i, "m", v)
        if "m" not in run.metrics.columns:
            assert metric_series(run, "m") == ([], [])
            continue
        col = run.metrics.columns["m"]
        pairs = sorted((run.metrics.steps[i], v) for i, v in enumerate(col) if math.isfinite(v))
        assert metric_series(run, "m") == ([p[0] for p in pairs], [p[1] for p in pairs])


def test_downsampling_keeps_each_buckets_first_lowest_and_highest_point():
    """downsample (min and index of slices, in C) keeps what a min and a max by key over
    each bucket keep: the first lowest and the first highest, ties included."""
    import random

    from reportgen.sweep import downsample

    def by_key(xs, ys, limit):
        n = len(xs)
        if n <= limit:
            return list(xs), list(ys)
        buckets = max(1, (limit - 2) // 2)
        keep = {0, n - 1}
        for b in range(buckets):
            lo = 1 + (n - 2) * b // buckets
            hi = 1 + (n - 2) * (b + 1) // buckets
            if lo < hi:
                keep.add(min(range(lo, hi), key=ys.__getitem__))
                keep.add(max(range(lo, hi), key=ys.__getitem__))
        order = sorted(keep)
        return [xs[i] for i in order], [ys[i] for i in order]

    rnd = random.Random(3)
    for _ in range(300):
        n = rnd.randrange(0, 400)
        ys = [rnd.choice([0.0, 1.0, -1.0, 0.5, rnd.random()]) for _ in range(n)]
        xs = list(range(n))
        limit = rnd.randrange(2, 60)
        assert downsample(xs, ys, limit) == by_key(xs, ys, limit)


def test_index_leaves_out_a_run_json_of_another_shape_and_says_which_field(tmp_path):
    """run.json is read back by ``reportgen index``: one edited by hand (or by someone else)
    with a field of another shape is left out with a warning naming its file and field,
    where it raised AttributeError or a template's UndefinedError."""
    site = tmp_path / "site"
    for name in ("arith_sync", "agent", "observe_examples"):
        assert invoke("build", str(RUNS[name]), "-o", str(site / name), "-q").exit_code == 0
    good = json.loads((site / "agent" / "run.json").read_text())
    for field, value in (
        ("series", "x"),
        ("series", {"reward": [1, 2]}),
        ("eval", {"metric": "x"}),
        ("reward", {"final": "x"}),
        ("reward", {**(good["reward"] or {}), "final_step": "7"}),
        ("iterations", "many"),
        ("pages", []),
        ("title", ["t"]),
    ):
        (site / "agent" / "run.json").write_text(json.dumps({**good, field: value}))
        r = invoke("index", str(site))
        assert r.exit_code == 0, (field, value, r.output)
        assert f"its '{field}' field is not what reportgen writes there; left out" in r.output, (field, r.output)
        rows = soup(site / "index.html").select("#sw-table tbody tr")
        assert [x["data-run"] for x in rows] == ["arith_sync", "observe_examples"]
    (site / "agent" / "run.json").write_text(json.dumps(good))
    assert invoke("index", str(site)).exit_code == 0
    assert len(soup(site / "index.html").select("#sw-table tbody tr")) == 3


def test_run_names_sort_by_the_numbers_in_them_decimals_and_exponents_too():
    """A learning-rate sweep's folders sort by value (lr_0.0005 before lr_0.001, which
    digit runs put after 0.003), as run2 sorts before run10; sweep.js sorts the table alike."""
    from reportgen.sweep import natural_key

    lrs = ["lr_0.003", "lr_0.0005", "lr_0.001", "lr_0.01", "lr_0.0003"]
    assert sorted(lrs, key=natural_key) == ["lr_0.0003", "lr_0.0005", "lr_0.001", "lr_0.003", "lr_0.01"]
    assert sorted(["lr_1e-4", "lr_3e-5", "lr_2E-4"], key=natural_key) == ["lr_3e-5", "lr_1e-4", "lr_2E-4"]
    assert sorted(["run10", "run2", "Run1"], key=natural_key) == ["Run1", "run2", "run10"]
    assert sorted(["x²", "x3"], key=natural_key) == ["x3", "x²"]  # "²" is no number here
    js = (Path(__file__).parent.parent / "assets" / "sweep.js").read_text()
    assert "function naturalCompare" in js and "return naturalCompare(a, b);" in js


def test_a_hand_edited_eval_label_links_one_file_of_its_run(tmp_path):
    """The evaluator link of a run's row quoted its label keeping "/": a hand-edited run.json
    with "a/../../x" made a link out of the run's folder. The label is one file name's part."""
    from bs4 import BeautifulSoup

    from reportgen.sweep import write_sweep_index

    from .obs import Obs

    runs = tmp_path / "runs"
    for name in ("one", "two"):
        o = Obs().run()
        o.batch(o.prompt("p:0", "q"), o.rollout(1, 0, 0))
        o.batch(o.update(1))
        o.write(runs / name)
    site = tmp_path / "site"
    assert invoke("build", str(runs), "-o", str(site)).exit_code == 0
    summary = json.loads((site / "one" / "run.json").read_text())
    label = "a/../../x"
    summary["eval"] = {"label": label, "metric": f"{label}/env/all/reward/total", "step": 1, "value": 0.5}
    summary["evals"] = [summary["eval"]]
    summary["pages"]["eval"] = {label: [1]}
    (site / "one" / "run.json").write_text(json.dumps(summary))
    write_sweep_index(site)
    page = BeautifulSoup((site / "index.html").read_text(), "html.parser")
    hrefs = [a["href"] for a in page.select("a[href]") if "eval_" in a["href"]]
    assert hrefs and all(h.startswith("one/") and h.count("/") == 1 for h in hrefs), hrefs
