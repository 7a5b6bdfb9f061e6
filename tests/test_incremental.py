"""Incremental rebuilds and parallel rendering give the same site as a fresh serial build."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup

from reportgen.resources import demo_dir
from reportgen.site import STATE, BuildOptions, build

from .obs import Obs
from .test_live import _split_demo


def write_state(site: Path, state: dict[str, Any] | bytes) -> None:
    """A state file changed by a test, signed as a build of this user's signs it (``trust``):
    what the rebuild then makes of its content is what is tested. An unsigned one is not read
    at all (test_output_safety)."""
    import orjson

    from reportgen import site as site_mod

    if isinstance(state, dict):
        state.pop("mac", None)
        raw = orjson.dumps(state)
    else:
        raw = state[: -site_mod._MAC_TAIL] + b"}"
    (site / STATE).write_bytes(b"".join(site_mod._signed([raw])))


def snapshot(site: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file() and p.name != STATE
    }


def test_append_then_rebuild_equals_full_build(tmp_path):
    src, rest = _split_demo(tmp_path)
    inc = tmp_path / "inc"
    first = build(str(src), inc, BuildOptions(jobs=1))
    assert first.reused == 0
    with open(src / "observe.jsonl", "ab") as f:
        f.write(rest)
    second = build(str(src), inc, BuildOptions(jobs=1))
    assert second.reused > 0, "unchanged updates must be reused"
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert snapshot(inc) == snapshot(full)


def test_shrunk_file_is_read_again(tmp_path):
    src, rest = _split_demo(tmp_path)
    whole = (src / "observe.jsonl").read_bytes() + rest
    (src / "observe.jsonl").write_bytes(whole)
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    # a resume cut the tail: the file is shorter than what was read
    (src / "observe.jsonl").write_bytes(whole[: len(whole) // 3].rsplit(b"\n", 1)[0] + b"\n")
    build(str(src), site, BuildOptions(jobs=1))
    fresh = tmp_path / "fresh"
    build(str(src), fresh, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(fresh)


def test_new_option_forces_full_build(tmp_path):
    src = demo_dir() / "grpo"
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    assert build(str(src), site, BuildOptions(jobs=1)).reused > 0
    assert build(str(src), site, BuildOptions(jobs=1, groups_per_page=2)).reused == 0


def small_main_process(monkeypatch) -> list[int]:
    """The main process as small as a fresh command's (pytest's grows with the suite, and
    past the memory goal no render worker is started); returns the list of pools started."""
    from reportgen import site as site_mod

    monkeypatch.setattr(site_mod, "_rss", lambda: 60 << 20)
    pools: list[int] = []
    real = site_mod.ProcessPoolExecutor
    monkeypatch.setattr(
        site_mod, "ProcessPoolExecutor", lambda *a, **k: pools.append(k["max_workers"]) or real(*a, **k)
    )
    return pools


def test_parallel_output_identical_to_serial(tmp_path, monkeypatch):
    pools = small_main_process(monkeypatch)
    src = demo_dir() / "agent"
    a, b = tmp_path / "serial", tmp_path / "parallel"
    build(str(src), a, BuildOptions(jobs=1, incremental=False))
    build(str(src), b, BuildOptions(jobs=2, incremental=False))
    assert pools == [2]
    assert snapshot(a) == snapshot(b)


def test_parallel_output_identical_to_serial_with_updates_sent_in_chunks(tmp_path, monkeypatch):
    """Thousands of small updates go to the workers several at a time (a round trip through
    the pool costs 0.3 ms of CPU a task): the site is still the serial build's, and the
    progress counts every update."""
    from reportgen import site as site_mod

    small_main_process(monkeypatch)
    monkeypatch.setattr(site_mod, "_CHUNKS_PER_WORKER", 1)  # chunks with a demo run's few updates
    used = []
    real = site_mod.tasks_per_chunk
    monkeypatch.setattr(site_mod, "tasks_per_chunk", lambda n, w: used.append(real(n, w)) or used[-1])
    src = demo_dir() / "grpo"
    a, b = tmp_path / "serial", tmp_path / "parallel"
    build(str(src), a, BuildOptions(jobs=1, incremental=False))
    seen: list[tuple[int, int]] = []
    build(
        str(src),
        b,
        BuildOptions(jobs=2, incremental=False),
        progress=lambda d, t, unit: seen.append((d, t)) if unit == "updates" else None,
    )
    assert used and used[0] > 1
    assert snapshot(a) == snapshot(b)
    total = seen[-1][1]
    assert [d for d, _ in seen] == list(range(1, total + 1))


def test_default_jobs_follow_the_cgroup_quota(monkeypatch):
    """A container limited to 1.5 CPUs gets 2 workers, whatever the host has."""
    import io

    from reportgen import site

    real_open = open

    def fake_open(path, *a, **k):
        if str(path) == "/sys/fs/cgroup/cpu.max":
            return io.StringIO("150000 100000\n")
        return real_open(path, *a, **k)

    monkeypatch.setattr(site.os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    monkeypatch.setattr(site, "open", fake_open, raising=False)
    assert site.usable_cpus() == 2
    assert site.default_jobs() == 2
    monkeypatch.setattr(site, "open", real_open, raising=False)
    monkeypatch.setattr(site.os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    if not Path("/sys/fs/cgroup/cpu.max").exists():
        assert site.usable_cpus() == 64
        assert site.default_jobs() == site.MAX_JOBS == 8


def _linked_run(directory: Path, first: str) -> Path:
    """Three updates; update 3 samples p:1, which update 1 samples too unless ``first`` is p:3
    (same length: the file keeps its size and every span its offsets)."""
    o = Obs().run("grpo", group_size=2)
    for n, key in ((1, first), (2, "p:2"), (3, "p:1")):
        o.batch(
            o.prompt(key, f"Question {key[-1]}"), *[o.rollout(n, 0, m, f"answer {m}", prompt=key) for m in range(2)]
        )
        o.batch(o.outcome(n, (0, 0, True), (0, 1, True)))
        o.batch(o.update(n, reward__mean=0.5))
    return o.write(directory)


def test_changed_links_to_earlier_updates_are_rendered_again(tmp_path):
    """A page whose own records did not change, but whose "same prompt in updates" links did
    (an earlier update no longer samples its prompt), is rendered again, not reused."""
    src = tmp_path / "src"
    site = tmp_path / "site"
    _linked_run(src, "p:1")
    build(str(src), site, BuildOptions(jobs=1))
    page = BeautifulSoup((site / "train_iteration_000003.html").read_text(), "html.parser")
    assert [a.get_text() for a in page.select("p.others a.xlink")] == ["1"]
    size = (src / "observe.jsonl").stat().st_size
    _linked_run(src, "p:3")
    assert (src / "observe.jsonl").stat().st_size == size
    build(str(src), site, BuildOptions(jobs=1))
    page = BeautifulSoup((site / "train_iteration_000003.html").read_text(), "html.parser")
    assert page.select("p.others a.xlink") == []
    fresh = tmp_path / "fresh"
    build(str(src), fresh, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(fresh)


def test_parallel_rebuild_of_changed_pages_only_equals_a_full_build(tmp_path, monkeypatch):
    """Workers start on a rebuild's new pages before the keys of the old ones are known, or,
    with no new page, once the changed old pages are known: both give the full build's site."""
    import reportgen.site as site_mod

    monkeypatch.setattr(site_mod, "_rss", lambda: 60 << 20)  # as small as a fresh command's
    maps: list[int] = []
    real_map = site_mod.ProcessPoolExecutor.map

    def counted(self, fn, *iterables, **kw):
        todo = list(iterables[0])
        maps.append(len(todo))
        return real_map(self, fn, todo, **kw)

    monkeypatch.setattr(site_mod.ProcessPoolExecutor, "map", counted)

    def export(directory: Path, updates: int, text: str) -> Path:
        o = Obs().run("grpo", group_size=2)
        for n in range(1, updates + 1):
            o.batch(
                o.prompt(f"p:{n}", f"question {n}"),
                *[o.rollout(n, 0, m, f"{text} {n}.{m}", prompt=f"p:{n}") for m in range(2)],
            )
            o.batch(o.update(n))
        return o.write(directory)

    src, site = tmp_path / "src", tmp_path / "site"
    export(src, 4, "answer")
    build(str(src), site, BuildOptions(jobs=2))
    assert maps == [4]  # a first build: every page, before any key
    export(src, 4, "other answer")  # the same updates, every page changed: none new
    maps.clear()
    build(str(src), site, BuildOptions(jobs=2))
    assert maps == [4]
    export(src, 9, "other answer")  # five new pages: started before the old pages' keys
    maps.clear()
    again = build(str(src), site, BuildOptions(jobs=2))
    assert maps == [5] and again.reused == 3  # the fourth page gets its "next" link in its old HTML
    fresh = tmp_path / "fresh"
    build(str(src), fresh, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(fresh)


def test_state_with_a_bad_prompt_key_id_is_read_again(tmp_path):
    """A state file whose prompt key ids point nowhere is not trusted: the export is read again."""
    import orjson

    src, rest = _split_demo(tmp_path)
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    state = orjson.loads((site / STATE).read_bytes())
    reader = state["reader"]
    assert reader["prompt_keys"] and reader["updates"]["keys"]
    for entry in reader["updates"]["keys"]:
        entry[1] = [len(reader["prompt_keys"]) + 5 for _ in entry[1]]
    write_state(site, state)
    with open(src / "observe.jsonl", "ab") as f:
        f.write(rest)
    build(str(src), site, BuildOptions(jobs=1))
    fresh = tmp_path / "fresh"
    build(str(src), fresh, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(fresh)


def test_ppo_prompts_stay_out_of_the_prompt_index_but_in_page_keys(tmp_path):
    """PPO members have no group, so their prompts get no "same prompt in" links: the run's
    prompt index (and prompts.js) leaves them out. A page still shows each member's prompt,
    so a prompt record written again later (the last one wins) renders that page again."""
    from .obs import Obs

    def write(again: bool) -> Path:
        o = Obs().run("ppo")
        for n in (1, 2):
            o.batch(
                *[o.prompt(f"p:{n}{i}", f"question {n}.{i}") for i in range(2)],
                *[o.rollout(n, None, i, f"answer {n}.{i}", prompt=f"p:{n}{i}") for i in range(2)],
            )
            o.batch(o.update(n))
        if again:
            o.batch(o.prompt("p:10", "question 1.0, written again"))
        return o.write(tmp_path / "src")

    site = tmp_path / "site"
    write(False)
    first = build(str(tmp_path / "src"), site, BuildOptions(jobs=1))
    assert not (site / "prompts.js").exists()
    write(True)
    second = build(str(tmp_path / "src"), site, BuildOptions(jobs=1))
    assert second.reused == first.reused + 1  # update 2 reused, update 1 rendered again
    text = (site / "train_iteration_000001.html").read_text()
    assert "question 1.0, written again" in text
    fresh = tmp_path / "fresh"
    build(str(tmp_path / "src"), fresh, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(fresh)


def test_rebuild_after_an_append_cut_anywhere_equals_a_full_build(tmp_path):
    """A live run is read at any moment: mid-line, mid-batch, between an update's rollouts and
    its update record. Whatever the first build saw, the rebuild after the rest arrived gives
    the full build's site, and renders the pages the first one could not have."""
    from .test_benchmarks import _gen

    _gen().generate(tmp_path / "ppo", 0.15, 2, 8, 1, 40, 0.0, 0, "ppo")
    exports = {name: demo_dir() / name / "observe.jsonl" for name in ("grpo", "agent")}
    exports["ppo"] = tmp_path / "ppo" / "observe.jsonl"
    # segments: a resume, then a fresh start that hides every earlier update
    exports["examples"] = Path(__file__).parent / "fixtures" / "observe" / "examples" / "observe.jsonl"
    for name, export in exports.items():
        whole = export.read_bytes()
        for frac in (0.37, 0.5, 0.81, 0.95):
            cut = int(len(whole) * frac)
            src = tmp_path / f"{name}-{frac}"
            src.mkdir()
            (src / "observe.jsonl").write_bytes(whole[:cut])
            site = tmp_path / f"{name}-{frac}-site"
            build(str(src), site, BuildOptions(jobs=1))
            before = set(snapshot(site))
            with open(src / "observe.jsonl", "ab") as f:
                f.write(whole[cut:])
            again = build(str(src), site, BuildOptions(jobs=2))
            # (in the examples, a fresh start hides the updates the first build showed)
            assert again.reused > 0 or name == "examples", (name, frac)
            full = tmp_path / f"{name}-{frac}-full"
            build(str(src), full, BuildOptions(jobs=1, incremental=False))
            expected, got = snapshot(full), snapshot(site)
            assert got == expected, (name, frac, sorted(k for k in expected if got.get(k) != expected[k])[:5])
            assert set(got) - before or name == "examples", (name, frac)  # the rebuild added pages


def test_unchanged_page_whose_files_are_gone_is_rendered_again(tmp_path):
    """Unchanged pages are linked from the previous site while the workers render the new
    ones; a page whose old files were deleted is rendered after all, and the site is the
    full build's."""
    src, rest = _split_demo(tmp_path)
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=2))
    (site / "train_iteration_000002.html").unlink()
    (site / "train_iteration_000006_logtree.json").unlink()
    with open(src / "observe.jsonl", "ab") as f:
        f.write(rest)
    again = build(str(src), site, BuildOptions(jobs=2))
    assert again.reused > 0
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(full)


def test_previous_last_page_gets_its_next_link_without_being_rendered(tmp_path, monkeypatch):
    """When the run grows, the old last page changes only by its "next" links: its HTML is
    taken from the previous site with the links the template writes, not rendered again;
    an old page that is not what our template wrote is rendered instead."""
    import reportgen.site as site_mod

    rendered: list[int] = []
    real = site_mod._render_iteration

    def spy(job, env, ref, prev_ref, next_ref):
        rendered.append(ref.number)
        return real(job, env, ref, prev_ref, next_ref)

    monkeypatch.setattr(site_mod, "_render_iteration", spy)
    lines = (demo_dir() / "grpo" / "observe.jsonl").read_bytes().splitlines(keepends=True)
    # the run wrote its update 16 (its page complete), then goes on
    cut = next(k for k, line in enumerate(lines) if b'"type":"update"' in line and b'"update":16,' in line) + 1
    for tamper in (False, True):
        src = tmp_path / str(tamper) / "run"
        src.mkdir(parents=True)
        (src / "observe.jsonl").write_bytes(b"".join(lines[:cut]))
        rest = b"".join(lines[cut:])
        site = tmp_path / str(tamper) / "site"
        build(str(src), site, BuildOptions(jobs=1))
        last = max(int(p.stem.split("_")[2]) for p in site.glob("train_iteration_*.html"))
        page = site / f"train_iteration_{last:06d}.html"
        assert "last →" in page.read_text() and 'rel="next"' not in page.read_text()
        if tamper:
            page.write_text(page.read_text().replace("last →", "last"))
        with open(src / "observe.jsonl", "ab") as f:
            f.write(rest)
        rendered.clear()
        build(str(src), site, BuildOptions(jobs=1))
        assert rendered and (last in rendered) == tamper, rendered
        assert all(n > last for n in rendered if n != last)
        full = tmp_path / str(tamper) / "full"
        build(str(src), full, BuildOptions(jobs=1, incremental=False))
        assert snapshot(site) == snapshot(full)
        text = page.read_text()
        assert text.count('rel="next"') == 2 and "last →" not in text


def test_workers_fit_the_memory_budget(monkeypatch):
    """A worker holds its iteration: an export of a few huge updates gets fewer workers,
    so that the build's processes stay within MEMORY_BUDGET; readers that cannot say how
    much an iteration reads, and small iterations, keep the workers asked for."""
    import reportgen.site as site_mod
    from reportgen.model import IterationRef

    class Sized:
        def __init__(self, n: int) -> None:
            self.n = n

        def input_bytes(self, ref: IterationRef) -> int:
            return self.n if ref.number == 2 else 1000

    refs = [IterationRef("train", k) for k in (1, 2, 3)]
    monkeypatch.setattr(site_mod, "_rss", lambda: 60 << 20)
    # (400 - 60) // (60 + 10 + 5 * 14): a worker counts the main process's pages again
    assert site_mod.workers_for_memory(Sized(14 << 20), refs, 4) == 2
    assert site_mod.workers_for_memory(Sized(1 << 20), refs, 4) == 4  # 340 // 75
    assert site_mod.workers_for_memory(Sized(1 << 20), refs, 8) == 4
    assert site_mod.workers_for_memory(Sized(1000), refs, 8) == 4  # 340 // 70
    # what the main process adds while the workers run (the chart files) counts too
    assert site_mod.workers_for_memory(Sized(1000), refs, 8, 120 << 20) == 3  # 220 // 70
    monkeypatch.setattr(site_mod, "_rss", lambda: 20 << 20)
    assert site_mod.workers_for_memory(Sized(1000), refs, 16) == 9  # 380 // 40, the floor
    monkeypatch.setattr(site_mod, "_rss", lambda: 60 << 20)
    assert site_mod.workers_for_memory(Sized(1 << 30), refs, 4) == 0  # none fits: rendered in the main process
    assert site_mod.workers_for_memory(object(), refs, 4) == 4
    assert site_mod.workers_for_memory(Sized(14 << 20), [], 4) == 4


def test_observe_input_bytes_cover_what_load_reads(tmp_path):
    from reportgen.sources.detect import open_source

    src = demo_dir() / "grpo" / "observe.jsonl"
    reader = open_source(str(src))
    run = reader.scan()
    sizes = [reader.input_bytes(ref) for ref in run.iterations]
    # the updates without texts (the demo logs texts every other update) read nothing
    assert [s > 0 for s in sizes] == [ref.has_texts for ref in run.iterations]
    assert sum(sizes) < src.stat().st_size
    # an iteration's rollout batches are most of what it reads
    texts = sum(len(g.members) for g in reader.load(run.iterations[-1]).groups)
    assert texts and sizes[-1] > 100 * texts


def test_rebuild_moves_only_its_new_files_into_the_site(tmp_path, monkeypatch):
    """A rebuild into its own folder stages the new and changed files only and moves them in:
    the folder and the unchanged files stay as they were (same inode, same mtime), what the
    new site lacks (a stray file, folder or link) goes, and the site is the full build's."""
    import os

    import reportgen.site as site_mod

    src, rest = _split_demo(tmp_path)
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    first = sorted(site.glob("train_iteration_*.html"))[0]
    before = (site.stat().st_ino, first.stat().st_ino, first.stat().st_mtime_ns)
    old_pages = {p.name for p in site.glob("train_iteration_*")}
    last = sorted(site.glob("train_iteration_*.html"))[-1].name
    (site / "stray.html").write_text("<p>not ours</p>")
    (site / "stray-folder").mkdir()
    (site / "stray-folder" / "x.txt").write_text("x")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    (site / "stray-link").symlink_to(outside)
    staged: list[list[str]] = []
    real = site_mod._commit_in_place

    def spy(staging, out, state, reused):
        # the staging folder's owner file (trust) stays behind: it is no file of the site
        staged.append(sorted(n for n in os.listdir(staging) if n != site_mod.OWNER))
        return real(staging, out, state, reused)

    monkeypatch.setattr(site_mod, "_commit_in_place", spy)
    moved: list[str] = []
    real_replace = os.replace

    def replace(a, b):
        real_replace(a, b)
        if ".reportgen-tmp-" in str(a) and ".reportgen-trash" not in str(b):
            moved.append(os.path.basename(b))

    monkeypatch.setattr(os, "replace", replace)
    with open(src / "observe.jsonl", "ab") as f:
        f.write(rest)
    again = build(str(src), site, BuildOptions(jobs=2))
    monkeypatch.setattr(os, "replace", real_replace)
    # the new pages first, the index after them (it links them), the state file last
    assert moved[-2:] == ["index.html", STATE] and sorted(moved) == staged[0]
    assert again.reused > 0 and len(staged) == 1
    assert first.name not in staged[0] and "index.html" in staged[0] and STATE in staged[0]
    # of the old pages, only the previous last one is staged (its "next" link, or its
    # update was still arriving)
    assert set(staged[0]) & old_pages and set(staged[0]) & old_pages <= {
        last,
        last[:-5] + "_logtree.json",
        last[:-5] + "_search.js",
    }
    assert {p.name for p in site.glob("train_iteration_*")} - old_pages <= set(staged[0])
    assert (site.stat().st_ino, first.stat().st_ino, first.stat().st_mtime_ns) == before
    assert not any(p.name.startswith("stray") for p in site.iterdir())
    assert outside.read_text() == "keep me"
    assert not [p for p in tmp_path.iterdir() if "reportgen-" in p.name]
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(full)
    # a full build still replaces the folder whole
    build(str(src), site, BuildOptions(jobs=1, incremental=False))
    assert site.stat().st_ino != before[0] and snapshot(site) == snapshot(full)


def test_rebuild_starts_again_when_another_build_changed_the_site(tmp_path, monkeypatch):
    """Between reading OUT's state and moving its files in, another build put its site in
    place: this build moves nothing, reads the new state and builds again."""
    import os
    import subprocess
    import sys

    import reportgen.site as site_mod

    src, rest = _split_demo(tmp_path)
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    with open(src / "observe.jsonl", "ab") as f:
        f.write(rest)
    calls: list[int] = []
    real = site_mod._commit_in_place

    def racing(staging, out, state, reused):
        calls.append(len(calls))
        if len(calls) == 1:  # another process's build finishes first
            cmd = [sys.executable, "-m", "reportgen", "build", str(src), "-o", str(site), "-q", "--jobs", "1"]
            subprocess.run(cmd, check=True, env=dict(os.environ, PYTHONPATH=str(Path(__file__).parent.parent)))
        return real(staging, out, state, reused)

    monkeypatch.setattr(site_mod, "_commit_in_place", racing)
    again = build(str(src), site, BuildOptions(jobs=1))
    assert calls == [0, 1]  # the second attempt found the other build's site
    assert again.reused == build(str(src), site, BuildOptions(jobs=1)).reused  # all in place already
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(full)
    assert not [p for p in tmp_path.iterdir() if "reportgen-" in p.name]


def test_rebuild_keeps_the_site_assets_unless_they_were_changed(tmp_path):
    """A rebuild in place keeps OUT's assets/ folder (the fingerprint it matched hashes the
    assets) rather than copying it again and swapping it in; an asset deleted, cut, or
    replaced by a link since is written again."""
    import os

    from reportgen.resources import assets_dir

    src, rest = _split_demo(tmp_path)
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    folder = os.stat(site / "assets").st_ino
    css = os.stat(site / "assets" / "reportgen.css").st_ino
    with open(src / "observe.jsonl", "ab") as f:
        f.write(rest)
    assert build(str(src), site, BuildOptions(jobs=1)).reused > 0
    assert os.stat(site / "assets").st_ino == folder and os.stat(site / "assets" / "reportgen.css").st_ino == css
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(full)

    ours = sorted(p.relative_to(assets_dir()) for p in assets_dir().rglob("*") if p.is_file())
    damages = [
        lambda a: (a / "reportgen.js").unlink(),
        lambda a: (a / "reportgen.css").write_bytes(b"x"),
        lambda a: ((a / "charts.js").unlink(), (a / "charts.js").symlink_to(a / "reportgen.js")),
        lambda a: (a / "extra.js").write_bytes(b"alert(1)"),
    ]
    for damage in damages:
        damage(site / "assets")
        assert build(str(src), site, BuildOptions(jobs=1)).reused > 0
        got = sorted(p.relative_to(site / "assets") for p in (site / "assets").rglob("*") if p.is_file())
        assert got == ours
        assert not any(p.is_symlink() for p in (site / "assets").rglob("*"))
        assert snapshot(site) == snapshot(full)


def test_run_params_of_any_value_survive_the_state_file(tmp_path):
    """A run record's params with a null, an integer past 64 bits and 300 levels of nesting
    (the integer sends the line to the stdlib parser): the build and the rebuild from its state
    file both work and show the same index, the params as JSON (null, true), not Python's repr."""
    import re

    lines = (demo_dir() / "grpo" / "observe.jsonl").read_text("utf-8").splitlines()
    deep = '{"a":' * 300 + "1" + "}" * 300
    odd = f'"params":{{"nan":null,"huge":{10**30},"flag":true,"deep":{deep},'
    src = tmp_path / "run"
    src.mkdir()
    (src / "observe.jsonl").write_text(
        "\n".join(re.sub(r'"params":\{', odd, x, count=1) if '"type":"run"' in x else x for x in lines) + "\n", "utf-8"
    )
    build(str(src), tmp_path / "site", BuildOptions(jobs=1))
    r = build(str(src), tmp_path / "site", BuildOptions(jobs=1))
    assert r.rendered == 0  # the state file was read back: nothing to render again
    build(str(src), tmp_path / "full", BuildOptions(jobs=1, incremental=False))
    assert snapshot(tmp_path / "site") == snapshot(tmp_path / "full")
    shown = {
        dt.get_text(): dd.get_text()
        for dt, dd in (
            (d.find("dt"), d.find("dd"))
            for d in BeautifulSoup((tmp_path / "site" / "index.html").read_text("utf-8"), "html.parser").select(
                "dl.params div"
            )
        )
    }
    assert shown["nan"] == "null" and shown["huge"] == "1e+30" and shown["flag"] == "true"
    assert shown["deep"].startswith('{"a":{"a":') and shown["deep"].count("{") == 300
    assert shown["group_size"] == "4"


def test_a_tinker_site_inside_its_log_path_is_not_read_as_the_run(tmp_path):
    """A site written into the log_path under a name tinker's layouts read (an ``eval_*``
    folder, walked for tinker 0.1.0's nested evaluator reports, or ``iteration_NNNNNN``)
    was read by the next build as evaluations of the run: it grew with every rebuild."""
    import shutil

    src = tmp_path / "run"
    shutil.copytree(Path(__file__).parent / "fixtures" / "tinker" / "arith_sync", src)
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1))
    for name in ("eval_site", "iteration_999999"):
        inside = src / name
        for _ in range(2):
            r = build(str(src), inside, BuildOptions(jobs=1))
            assert r.warnings == [] or not any("site" in w for w in r.warnings), r.warnings
        assert snapshot(inside) == snapshot(full), name


def test_tinker_resume_then_rebuild_equals_full_build(tmp_path):
    """A tinker 0.6 resume (metrics.jsonl cut at the checkpoint's step, the rest kept in
    metrics.jsonl.pre_resume_NNNNNN) numbers the attempts: every page then says its segment.
    A rebuild reused the earlier pages, which did not, and no rebuild ever mended them."""
    import json
    import shutil

    src = tmp_path / "run"
    shutil.copytree(Path(__file__).parent / "fixtures" / "tinker" / "arith_sync", src)
    inc = tmp_path / "inc"
    build(str(src), inc, BuildOptions(jobs=1))
    metrics = src / "metrics.jsonl"
    rows = metrics.read_text().splitlines()
    (src / "metrics.jsonl.pre_resume_000003").write_text("\n".join(rows) + "\n")
    metrics.write_text("\n".join(r for r in rows if json.loads(r.replace("NaN", "null")).get("step", 0) < 3) + "\n")
    second = build(str(src), inc, BuildOptions(jobs=1))
    assert second.rendered > 0
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert snapshot(inc) == snapshot(full)
    page = (inc / "train_iteration_000001.html").read_text()
    assert "segment 0" in page


def test_a_file_rewritten_with_the_same_layout_is_built_again(tmp_path):
    """The state's page keys name byte offsets: a file rewritten with other bytes at the same
    offsets (one letter of a completion changed) is no longer what they name, and once the
    scan has seen the rewrite (its fingerprint) nothing of the old site is reused."""
    src = tmp_path / "src"

    def write(text: str) -> None:
        o = Obs().run()
        o.batch(o.prompt("p:0", "q"), o.rollout(1, 0, 0, text))
        o.batch(o.update(1))
        o.write(src)

    write("answer")
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    write("answXr")
    again = build(str(src), site, BuildOptions(jobs=1))
    assert again.reused == 0
    assert "answXr" in (site / "train_iteration_000001.html").read_text()
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1))
    assert snapshot(site) == snapshot(full)


def test_a_status_the_load_finds_is_the_same_whoever_renders_the_page(tmp_path):
    """tinker: an iteration with rollout summaries whose logtree ends with an exception is
    "crashed" once loaded; a worker's page and a reused page say so too, in the index and in
    the charts' data."""
    import json
    import shutil

    log = tmp_path / "log"
    shutil.copytree(Path(__file__).parent / "fixtures" / "tinker" / "arith_sync", log)
    lt = log / "iteration_000001" / "train_logtree.json"
    doc = json.loads(lt.read_text())
    doc["root"]["children"].append(
        {"tag": "details", "attrs": {"class": "lt-exc"}, "children": [{"tag": "summary", "children": ["Exception: X"]}]}
    )
    lt.write_text(json.dumps(doc))
    sites = {}
    for name, jobs in (("serial", 1), ("workers", 2)):
        sites[name] = tmp_path / name
        build(str(log), sites[name], BuildOptions(jobs=jobs))
    again = build(str(log), sites["serial"], BuildOptions(jobs=1))
    assert again.rendered == 0
    assert snapshot(sites["serial"]) == snapshot(sites["workers"])
    index = BeautifulSoup((sites["workers"] / "index.html").read_text(), "html.parser")
    assert "status-crashed" in index.select_one("tr#u1")["class"]
    assert '"crashed":[1]' in (sites["workers"] / "metrics_data.js").read_text()


def test_no_worker_fits_then_pages_are_rendered_in_the_main_process(tmp_path, monkeypatch):
    """When not even one render worker fits the memory goal (a main process made large by
    the index of a long run), no pool is forked: the main process renders every page, the
    site is the serial build's, and so is a rebuild after an append."""
    from reportgen import site as site_mod

    monkeypatch.setattr(site_mod, "workers_for_memory", lambda *a, **k: 0)
    pools = []
    real = site_mod.ProcessPoolExecutor
    monkeypatch.setattr(site_mod, "ProcessPoolExecutor", lambda *a, **k: pools.append(1) or real(*a, **k))
    src = demo_dir() / "agent"
    a, b = tmp_path / "serial", tmp_path / "asked-for-two"
    build(str(src), a, BuildOptions(jobs=1, incremental=False))
    build(str(src), b, BuildOptions(jobs=2, incremental=False))
    assert not pools
    assert snapshot(a) == snapshot(b)
    part, rest = _split_demo(tmp_path)
    inc, full = tmp_path / "inc", tmp_path / "full"
    build(str(part), inc, BuildOptions(jobs=2))
    with open(part / "observe.jsonl", "ab") as f:
        f.write(rest)
    assert build(str(part), inc, BuildOptions(jobs=2)).reused > 0
    build(str(part), full, BuildOptions(jobs=1, incremental=False))
    assert not pools
    assert snapshot(inc) == snapshot(full)


def test_state_file_written_in_pieces_is_the_whole_json():
    """state_parts() writes a reader's iterators (an observe scan's updates) a few hundred
    items at a time; the file reads back as the JSON of the whole state."""
    from collections.abc import Iterator

    import orjson

    from reportgen.site import state_parts

    rows = [[k, "x" * (k % 7), None, [k, k + 1]] for k in range(700)]
    for reader in (None, {}, {"a": 1}, {"u": iter([])}, {"a": [1], "u": iter(rows), "v": iter([2])}, {"u": iter(rows)}):
        want = None if reader is None else {k: list(v) if isinstance(v, Iterator) else v for k, v in reader.items()}
        again = (
            None
            if want is None
            else {k: iter(want[k]) if isinstance(reader[k], Iterator) else v for k, v in want.items()}
        )
        data = b"".join(state_parts({"format": 3, "version": "t"}, again, {"p.html": {"key": "k"}}))
        assert orjson.loads(data) == {"format": 3, "version": "t", "reader": want, "pages": {"p.html": {"key": "k"}}}


def test_observe_state_written_by_a_build_is_the_readers_state(tmp_path):
    import orjson

    from reportgen.sources.detect import open_source

    src = demo_dir() / "grpo"
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    reader = open_source(str(src))
    reader.scan()
    saved = orjson.loads((site / STATE).read_bytes())["reader"]
    assert saved == orjson.loads(orjson.dumps(reader.state()))
    assert isinstance(saved["updates"], dict) and saved["updates"]["update"]


def test_a_state_file_changed_during_a_rebuild_makes_it_start_again(tmp_path, monkeypatch):
    """A rebuild into its own folder checks, before moving its files in, that the state file
    is still the one it read (compared by its SHA-256): another build's site is not mixed
    with this one's, and the build starts again from that site."""
    import reportgen.site as site_mod

    src, rest = _split_demo(tmp_path)
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    with open(src / "observe.jsonl", "ab") as f:
        f.write(rest)
    real = site_mod.render_run
    meddled: list[int] = []

    def meddle(*a, **k):
        out = real(*a, **k)
        if not meddled:  # another build replaced the state file meanwhile
            raw = (site / STATE).read_bytes()
            write_state(site, raw.replace(b'"format":', b'"format" :', 1))
            meddled.append(1)
        return out

    monkeypatch.setattr(site_mod, "render_run", meddle)
    commits: list[bytes] = []
    real_commit = site_mod._commit_in_place
    monkeypatch.setattr(
        site_mod,
        "_commit_in_place",
        lambda staging, out, state, reused: commits.append(state) or real_commit(staging, out, state, reused),
    )
    build(str(src), site, BuildOptions(jobs=1))
    assert meddled and len(commits) == 2 and commits[0] != commits[1]
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(full)


def _metrics_run(o: Obs, first: int, last: int, count: Any = None, segment: int | None = None) -> None:
    for n in range(first, last + 1):
        o.batch(
            o.prompt(f"p:{n}", f"question {n}"),
            *[o.rollout(n, 0, m, f"answer {n}.{m}", prompt=f"p:{n}") for m in range(2)],
            segment=segment,
        )
        o.batch(o.update(n, reward__mean=n / 10, count=n if count is None else count(n)), segment=segment)


def _built_metrics_site(tmp_path: Path) -> tuple[Path, Path, Path, Obs]:
    """A run of 4 updates with metrics built into ``site``: (src, site, full, the Obs to go on with)."""
    src, site, full = tmp_path / "src", tmp_path / "site", tmp_path / "full"
    src.mkdir()
    o = Obs().run("grpo", group_size=2)
    _metrics_run(o, 1, 4)
    (src / "observe.jsonl").write_text(o.text())
    build(str(src), site, BuildOptions(jobs=1))
    return src, site, full, o


def test_metric_downloads_get_the_new_rows_added_when_the_table_only_grew(tmp_path, monkeypatch):
    """A rebuild whose metric table only grew at its end adds the new lines to the previous
    downloads; one where an old row changed (a resume redid an update) or a column changed
    how it is written (an integer column met a fraction) writes them whole. Every time the
    downloads are the full build's."""
    import reportgen.views.charts as charts_mod

    starts: list[int] = []
    for name in ("metrics_jsonl_parts", "metrics_csv_parts"):
        real = getattr(charts_mod, name)
        monkeypatch.setattr(
            charts_mod, name, lambda run, cols=None, start=0, real=real: starts.append(start) or real(run, cols, start)
        )

    def check(o: Obs, want_starts: list[int]) -> None:
        (src / "observe.jsonl").write_text(o.text())
        starts.clear()
        build(str(src), site, BuildOptions(jobs=1))
        assert starts == want_starts
        full = tmp_path / f"full{len(o.lines)}"
        build(str(src), full, BuildOptions(jobs=1, incremental=False))
        for name in ("metrics.jsonl", "metrics.csv", "index.html"):
            assert (site / name).read_bytes() == (full / name).read_bytes(), name

    src, site = tmp_path / "src", tmp_path / "site"
    src.mkdir()
    o = Obs().run("grpo", group_size=2)
    _metrics_run(o, 1, 6)
    check(o, [0, 0])  # a first build
    _metrics_run(o, 7, 9)
    check(o, [6, 6])  # 3 updates appended: lines 7 to 9 added
    check(o, [9, 9])  # nothing new: the files again, as they were
    o.run("grpo", resumed=7, group_size=2)  # a resume redoes updates 8 and 9, other values
    _metrics_run(o, 8, 10, count=lambda n: n * 2)
    check(o, [0, 0])
    _metrics_run(o, 11, 11, count=lambda n: n + 0.5)  # count is no longer an integer column
    check(o, [0, 0])
    (site / "metrics.csv").write_bytes(b"step\n")  # a file that is not the one the state describes
    _metrics_run(o, 12, 12, count=lambda n: n + 0.5)
    check(o, [0, 0])
    _metrics_run(o, 13, 13, count=lambda n: n + 0.5)
    check(o, [12, 12])


def test_a_state_without_the_downloads_digest_writes_them_whole(tmp_path):
    """A state file whose downloads entry lost its digest (or names rows the table has not)
    is no evidence that the old files start the new ones: they are written whole."""
    import orjson

    src, site, full, o = _built_metrics_site(tmp_path)
    _metrics_run(o, 5, 6)  # the run goes on
    (src / "observe.jsonl").write_text(o.text())
    state = orjson.loads((site / STATE).read_bytes())
    del state["downloads"]["digest"]
    state["downloads"]["rows"] = 1000  # more rows than the table has: no digest is made for them
    write_state(site, state)
    build(str(src), site, BuildOptions(jobs=1))
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    for name in ("metrics.jsonl", "metrics.csv"):
        assert (site / name).read_bytes() == (full / name).read_bytes(), name


def test_a_tables_digest_does_not_depend_on_the_other_counts_asked(tmp_path):
    """A count's digest is the same whichever other counts one pass also gives (a rebuild
    asks for the old count and the new one, the build before asked for its own only), and
    differs from another count's or another table's."""
    from reportgen.sources.detect import open_source
    from reportgen.views.charts import Columns, table_digests

    def cols_of(count: Any = None) -> Columns:
        o = Obs().run("grpo", group_size=2)
        _metrics_run(o, 1, 9, count=count)
        (tmp_path / "observe.jsonl").write_text(o.text())
        reader = open_source(str(tmp_path))
        return Columns(reader.scan())

    cols = cols_of()
    alone = {n: table_digests(cols, [n])[n] for n in range(1, 10)}
    assert len(set(alone.values())) == 9
    for cut in range(1, 9):
        both = table_digests(cols, [9, cut, 0, 99])  # unsorted; 0 and past the end left out
        assert both == {cut: alone[cut], 9: alone[9]}
    assert table_digests(cols, range(1, 10)) == alone
    other = cols_of(count=lambda n: n if n < 5 else n + 1)
    assert table_digests(other, [4])[4] == alone[4]
    assert table_digests(other, [5])[5] != alone[5]


def test_old_downloads_are_copied_whatever_the_kernel_copies(tmp_path, monkeypatch):
    """The previous downloads' bytes come to the new files by the kernel's copy, or by reads
    where it copies none or stops halfway (another file system, an older kernel): the files
    are the full build's every time."""
    import os

    src, site, full, o = _built_metrics_site(tmp_path)
    real = getattr(os, "copy_file_range", None)

    def halfway(src_fd: int, dst_fd: int, count: int) -> int:
        if os.lseek(src_fd, 0, os.SEEK_CUR) == 0 and real is not None:
            return real(src_fd, dst_fd, 7)  # a first piece, then a refusal
        raise OSError(18, "Invalid cross-device link")

    def refuses(src_fd: int, dst_fd: int, count: int) -> int:
        raise OSError(38, "Function not implemented")

    for n, copy in enumerate((halfway, refuses, None, real), start=5):
        if copy is None:
            monkeypatch.delattr(os, "copy_file_range", raising=False)
        else:
            monkeypatch.setattr(os, "copy_file_range", copy, raising=False)
        _metrics_run(o, n, n)
        (src / "observe.jsonl").write_text(o.text())
        build(str(src), site, BuildOptions(jobs=1))
        build(str(src), full, BuildOptions(jobs=1, incremental=False))
        for name in ("metrics.jsonl", "metrics.csv"):
            assert (site / name).read_bytes() == (full / name).read_bytes(), (n, name)
        assert b'"step":%d' % n in (site / "metrics.jsonl").read_bytes()


def test_a_rebuild_after_a_resume_writes_the_full_builds_state(tmp_path):
    """The state file of a rebuild that took up the previous scan is the full build's, a
    resumed segment included (its updates' bound stayed an integer, not 54.0 for 54)."""
    import orjson

    src, inc, full = tmp_path / "src", tmp_path / "inc", tmp_path / "full"
    src.mkdir()
    o = Obs().run("grpo", group_size=2)
    _metrics_run(o, 1, 5)
    o.run("grpo", resumed=3, group_size=2)
    _metrics_run(o, 4, 6)
    (src / "observe.jsonl").write_text(o.text())
    build(str(src), inc, BuildOptions(jobs=1))
    _metrics_run(o, 7, 8)  # the resumed segment goes on: the first one's bound is taken up
    (src / "observe.jsonl").write_text(o.text())
    assert build(str(src), inc, BuildOptions(jobs=1)).reused > 0
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    a, b = (orjson.loads((site / STATE).read_bytes()) for site in (inc, full))
    assert a["reader"] == b["reader"] and a["downloads"] == b["downloads"]
    assert (inc / STATE).read_bytes() == (full / STATE).read_bytes()


def test_old_downloads_unlike_the_state_are_written_whole_without_blocking_or_leaking(tmp_path):
    """A FIFO in place of an old download does not block the rebuild (opened without
    blocking, then refused), and a download that is gone closes the one already opened."""
    import os
    import sys
    import threading

    src, site, full, o = _built_metrics_site(tmp_path)

    def fds() -> int:
        return len(os.listdir("/proc/self/fd")) if sys.platform.startswith("linux") else 0

    os.unlink(site / "metrics.csv")  # metrics.jsonl is opened, then metrics.csv is missing
    _metrics_run(o, 5, 5)
    (src / "observe.jsonl").write_text(o.text())
    before = fds()
    build(str(src), site, BuildOptions(jobs=1))
    assert fds() == before
    if hasattr(os, "mkfifo"):
        os.unlink(site / "metrics.jsonl")
        os.mkfifo(site / "metrics.jsonl")
        _metrics_run(o, 6, 6)
        (src / "observe.jsonl").write_text(o.text())
        done: list[object] = []
        t = threading.Thread(target=lambda: done.append(build(str(src), site, BuildOptions(jobs=1))), daemon=True)
        t.start()
        t.join(60)
        if not done:  # blocked in open(): unblock it so that the thread ends, then fail
            with open(site / "metrics.jsonl", "wb"):
                pass
            raise AssertionError("the rebuild blocked on a FIFO in place of metrics.jsonl")
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    for name in ("metrics.jsonl", "metrics.csv"):
        assert (site / name).read_bytes() == (full / name).read_bytes()


def test_a_state_refused_halfway_leaves_the_scan_as_a_fresh_one(tmp_path):
    """restore() takes up a state whole or not at all: one whose metric names read well but
    whose updates do not (a hand edit, a bug of another version) gives the full build's site,
    not one whose metric table starts with the state's names."""
    import orjson

    src, site, full, o = _built_metrics_site(tmp_path)
    state = orjson.loads((site / STATE).read_bytes())
    state["reader"]["metric_names"] = ["zz/stale"] + state["reader"]["metric_names"]
    state["reader"]["updates"]["keys"][0][1] = [10**6]  # a prompt key id out of range: refused there
    write_state(site, state)
    _metrics_run(o, 5, 5)
    (src / "observe.jsonl").write_text(o.text())
    build(str(src), site, BuildOptions(jobs=1))
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(full)
    assert b"zz/stale" not in (site / STATE).read_bytes()


def test_a_prompt_record_of_key_empty_reaches_rollouts_without_a_key_after_a_rebuild(tmp_path):
    """A rollout without a string ``prompt`` is read with the key "" (reader.rs:
    ``unwrap_or_default``). A prompt record of that key arriving later reached a full build's
    page but not a rebuild's, which kept the page: the scan now puts "" in the page's key."""
    o = Obs().run()
    o.batch(*(Obs.rollout(1, 0, m, f"answer {m}", prompt=None) for m in range(2)))
    o.batch(o.update(1))
    src = o.write(tmp_path / "src")
    inc = tmp_path / "inc"
    first = build(str(src), inc, BuildOptions(jobs=1))
    assert any('"" (rollouts without a prompt key)' in w for w in first.warnings)
    with open(src / "observe.jsonl", "a") as f:
        f.write(
            '{"v":1,"type":"prompt","segment":0,"batch_id":90,"batch_index":0,"batch_len":1,"key":"",'
            '"messages":[{"role":"user","content":"EMPTY KEY PROMPT"}]}\n'
        )
    build(str(src), inc, BuildOptions(jobs=1))
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert "EMPTY KEY PROMPT" in (full / "train_iteration_000001.html").read_text()
    assert snapshot(inc) == snapshot(full)


def test_a_rows_file_not_the_one_its_state_names_is_not_taken_up(tmp_path):
    """The metric rows of the state live in ROWS, bound to the state by size and CRC-32: a
    rows file changed by one byte, cut, gone, a link or a folder makes the next build a full
    one (nothing reused), whose site is the full build's; the intact file is taken up."""
    import os
    import shutil
    import zlib

    import orjson

    from reportgen.site import ROWS

    src, site, full, o = _built_metrics_site(tmp_path)
    _metrics_run(o, 5, 6)
    (src / "observe.jsonl").write_text(o.text())
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    good = (site / ROWS).read_bytes()
    named = orjson.loads((site / STATE).read_bytes())["rows"]
    assert named == {"bytes": len(good), "crc32": zlib.crc32(good)} and len(good) >= 4 * 8
    lengths = orjson.loads((site / STATE).read_bytes())["reader"]["updates"]["row"]
    assert all(type(n) is int for n in lengths) and 8 * sum(lengths) == len(good)  # the values are in ROWS
    keep = tmp_path / "rows-copy"
    keep.write_bytes(good)
    base = tmp_path / "base"
    shutil.copytree(site, base)

    def flip(p: Path) -> None:
        data = bytearray(good)
        data[len(data) // 2] ^= 0x40
        p.write_bytes(bytes(data))

    tampers = {
        "flipped": flip,
        "cut": lambda p: p.write_bytes(good[:-8]),
        "gone": lambda p: p.unlink(),
        "link": lambda p: (p.unlink(), p.symlink_to(keep)),
        "folder": lambda p: (p.unlink(), p.mkdir()),
        "fifo": lambda p: (p.unlink(), os.mkfifo(p)),
    }
    for name, tamper in tampers.items():
        shutil.rmtree(site)
        shutil.copytree(base, site, symlinks=True)
        tamper(site / ROWS)
        assert build(str(src), site, BuildOptions(jobs=1)).reused == 0, name
        assert snapshot(site) == snapshot(full), name
        assert (site / ROWS).is_file() and not (site / ROWS).is_symlink()
    shutil.rmtree(site)
    shutil.copytree(base, site)
    assert build(str(src), site, BuildOptions(jobs=1)).reused > 0
    assert snapshot(site) == snapshot(full)


def test_a_big_data_file_is_set_aside_before_its_new_one_moves_in(tmp_path, monkeypatch):
    """A rebuild never renames a big file other than a page over its old one (ext4 then
    writes the new file back first: 110 ms for 150 MiB, seconds behind a build's writeback):
    the old one is set aside, then the new one moves in. Pages and small files are still
    renamed over theirs in one step, and the site is the full build's."""
    import os

    import reportgen.site as site_mod

    src, rest = _split_demo(tmp_path)
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    monkeypatch.setattr(site_mod, "_BIG_FILE", 2048)
    over: list[str] = []
    real_replace = os.replace

    def replace(a, b):
        if ".reportgen-tmp-" in str(a) and ".reportgen-trash" not in str(b) and os.path.lexists(b):
            over.append(os.path.basename(b))
        real_replace(a, b)

    monkeypatch.setattr(os, "replace", replace)
    with open(src / "observe.jsonl", "ab") as f:
        f.write(rest)
    build(str(src), site, BuildOptions(jobs=1))
    monkeypatch.setattr(os, "replace", real_replace)
    big = {"metrics.jsonl", "metrics.csv", "metrics_data.js"}
    assert all((site / n).stat().st_size >= 2048 for n in big)
    assert not big & set(over), over
    # (the state file is removed before the move, and put back last)
    assert "index.html" in over and "prompts.js" in over and any(n.startswith("train_iteration_") for n in over)
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(full)
    assert not [p for p in tmp_path.iterdir() if "reportgen-" in p.name]


def _wide_metrics_run(o: Obs, first: int, last: int, frac_at: int | None = None) -> None:
    for n in range(first, last + 1):
        o.batch(o.rollout(n, 0, 0, f"answer {n}"), o.prompt(f"p:{n}", "q"))
        extra = {f"x__m{k}": (n * k) / 7 for k in range(6)}
        extra["x__count"] = n + (0.5 if frac_at is not None and n >= frac_at else 0)
        o.batch(o.update(n, reward__mean=n / 10, **extra))


def test_a_rebuild_writes_only_the_new_rows_of_each_metric_column(tmp_path, monkeypatch):
    """When the metric table only grew, each column of metrics_data.js and of the explorer's
    chunk files is the previous build's text of its old rows (read where the state says it
    went) and the new rows: equal to a full build, whichever file a column lands in. A
    data file of another size, a column that stops being an integer one, or a state naming
    a place out of the site makes the columns written whole."""
    import orjson

    import reportgen.site as site_mod
    import reportgen.views.charts as charts_mod

    monkeypatch.setattr(charts_mod, "INLINE_BYTES", 0)  # all but the charted columns in chunk files
    monkeypatch.setattr(charts_mod, "CHUNK_BYTES", 40)  # a few columns a chunk
    served: list[tuple[str, bool]] = []
    real_previous = site_mod._previous_columns

    def counted(root, old):
        got = real_previous(root, old)
        if got is None:
            return None

        def previous(name):
            text = got(name)
            served.append((name, text is not None))
            return text

        return previous

    monkeypatch.setattr(site_mod, "_previous_columns", counted)

    def run_case(tag: str, last: int, more: int, frac_at: int | None = None, meddle=None) -> list[tuple[str, bool]]:
        src, site, full = tmp_path / f"src-{tag}", tmp_path / f"site-{tag}", tmp_path / f"full-{tag}"
        src.mkdir()
        o = Obs().run("grpo", group_size=1)
        _wide_metrics_run(o, 1, last)
        (src / "observe.jsonl").write_text(o.text())
        build(str(src), site, BuildOptions(jobs=1))
        if meddle is not None:
            meddle(site)
        _wide_metrics_run(o, last + 1, more, frac_at)
        (src / "observe.jsonl").write_text(o.text())
        served.clear()
        build(str(src), site, BuildOptions(jobs=1))
        build(str(src), full, BuildOptions(jobs=1, incremental=False))
        assert snapshot(site) == snapshot(full), tag
        state = orjson.loads((site / STATE).read_bytes())["downloads"]["columns"]
        for name, (file, offset, length) in state["at"].items():
            text = (site / file).read_bytes()[offset : offset + length]
            assert text[:1] == b"[" and text[-1:] == b"]" and text.count(b",") == more - 1, (tag, name)
        assert len(list((site / "metrics_data").glob("*.js"))) >= 2, tag
        return list(served)

    got = run_case("grew", 5, 8)
    # every column (6 metrics, count, reward/mean; some asked twice: a short column's size
    # is its text's) from the old text
    assert {n for n, _ok in got} == {"reward/mean", "x/count", *(f"x/m{k}" for k in range(6))}
    assert all(ok for _n, ok in got)
    got = run_case("integer-to-fraction", 5, 8, frac_at=7)
    assert got == []  # the old table is no start of the new one: nothing asked
    got = run_case("resized", 5, 8, meddle=lambda site: (site / "metrics_data" / "000.js").write_bytes(b"x"))
    assert got and not all(ok for _n, ok in got) and any(ok for _n, ok in got)

    def outside(site):
        state = orjson.loads((site / STATE).read_bytes())
        at = state["downloads"]["columns"]["at"]
        for k in at:
            at[k][0] = "../" + at[k][0]
        write_state(site, state)

    got = run_case("outside", 5, 8, meddle=outside)
    assert got and not any(ok for _n, ok in got)


def test_a_rebuild_takes_the_index_rows_that_did_not_change_from_the_previous_index(tmp_path, monkeypatch):
    """The index's rows of updates whose row shows the same (``row_keys``), over a metric
    table that only grew, are the previous index's text: all old rows after an append, the
    rows before a resumed segment's first redone update, none of an index of another size.
    Rows of any text (a status not ASCII, a segment change) keep their places, and the site
    is the full build's every time."""
    import reportgen.site as site_mod

    taken: list[int | None] = []
    real = site_mod._previous_rows

    def spy(root, old, keys, columns, fmt):
        got = real(root, old, keys, columns, fmt)
        taken.append(None if got is None else got[2])
        return got

    monkeypatch.setattr(site_mod, "_previous_rows", spy)

    def case(tag: str, grow, meddle=None) -> int | None:
        src, site, full = tmp_path / f"src-{tag}", tmp_path / f"site-{tag}", tmp_path / f"full-{tag}"
        src.mkdir()
        o = Obs().run("grpo", group_size=2)
        _metrics_run(o, 1, 3)
        o.batch(o.update(4, status="sauté ⟨π⟩ <b>", reward__mean=0.4, count=4))  # textless, not ASCII
        o.batch(o.update(5, reward__mean=0.5, count=5))
        (src / "observe.jsonl").write_text(o.text())
        build(str(src), site, BuildOptions(jobs=1))
        if meddle is not None:
            meddle(site)
        grow(o)
        (src / "observe.jsonl").write_text(o.text())
        taken.clear()
        build(str(src), site, BuildOptions(jobs=1))
        build(str(src), full, BuildOptions(jobs=1, incremental=False))
        assert snapshot(site) == snapshot(full), tag
        assert len(taken) == 1, tag
        return taken[0]

    assert case("append", lambda o: _metrics_run(o, 6, 8)) == 5

    def resume(o: Obs) -> None:
        o.run("grpo", resumed=3, group_size=2)
        _metrics_run(o, 4, 7)

    # the old segment's updates 4 and 5 give way to the resumed segment's (a segment change
    # at 4): its rows are made again, the three before it are taken
    assert case("resume", resume) == 3

    def bigger(site: Path) -> None:
        with open(site / "index.html", "ab") as f:
            f.write(b" ")

    assert case("resized", lambda o: _metrics_run(o, 6, 7), bigger) is None

    def other_format(site: Path) -> None:
        import orjson

        state = orjson.loads((site / STATE).read_bytes())
        state["downloads"]["index"]["format"] = "tinker"
        write_state(site, state)

    assert case("format", lambda o: _metrics_run(o, 6, 7), other_format) is None

    def shifted_ends(site: Path) -> None:
        import orjson

        state = orjson.loads((site / STATE).read_bytes())
        ends = state["downloads"]["index"]["ends"]
        state["downloads"]["index"]["ends"] = [*ends[:-1], ends[-1] - 1]  # the last row cut short
        write_state(site, state)

    assert case("ends", lambda o: _metrics_run(o, 6, 7), shifted_ends) is None


def test_an_index_row_shows_nothing_its_row_key_does_not_hold():
    """Two runs' rows of equal row_keys, over the same metric table, are the same text:
    every field of an IterationRef of each row is changed in turn, and each row's key
    changes or its text does not (a field added to the rows but not to row_keys fails)."""
    import dataclasses

    from reportgen.model import DUE_NOTE, IterationRef, Run
    from reportgen.views.index import iteration_rows_parts, row_keys

    def make(refs: list[IterationRef]) -> Run:
        run = Run(format="observe", source="m", title="t")
        for st in (1, 2, 3, 5):
            run.metrics.set(run.metrics.row_for(st), "reward/mean", st / 4)
        run.iterations = refs
        return run

    base = [
        IterationRef(kind="train", number=n, segment=0, has_texts=n % 2 == 1, rollouts=4 * (n % 2), time="t")
        for n in (1, 2, 3, 4, 5)
    ]
    values: dict[str, list[Any]] = {
        "kind": ["eval"],
        "number": [9, 6],
        "label": ["test"],
        "segment": [1, None],
        "status": ["skipped", "incomplete", "crashed", "<b>é"],
        "has_texts": [True, False],
        "rollouts": [7, 0, "x"],
        "groups": [3],
        "trained": [2],
        "unknown": [1],
        "reward_mean": [0.5],
        "time": ["2026", None],
        "headline": [{"reward/mean": 9.0}],
        "notes": [[DUE_NOTE.format(every=2)], ["other"]],
        "locator": [(1, 2)],
    }
    assert set(values) == {f.name for f in dataclasses.fields(IterationRef)}
    columns = ("reward/mean",)
    for name, options in values.items():
        for value in options:
            for at in range(len(base)):
                changed = [dataclasses.replace(r) for r in base]
                for r in changed:
                    r.notes = list(r.notes)
                setattr(changed[at], name, value)
                a, b = make([dataclasses.replace(r) for r in base]), make(changed)
                rows = []
                for run in (a, b):
                    ends: list[int] = []
                    text = "".join(iteration_rows_parts(run, columns, ends))
                    rows.append([text[x:y] for x, y in zip([0, *ends], ends)])
                # row by row: a row of an equal key is the same text (its neighbour's change
                # included: a segment change is drawn on the row after it)
                for j, (ka, kb) in enumerate(zip(row_keys(a), row_keys(b))):
                    assert ka != kb or rows[0][j] == rows[1][j], (name, value, at, j)


def test_a_folder_in_place_of_an_old_download_or_index_is_not_read(tmp_path):
    """A folder where the previous site had a download or its index (a user's mistake, a
    sync tool's) makes those files written whole: os.open opens a folder, and open() of its
    descriptor raised IsADirectoryError out of the rebuild."""
    import shutil

    src, site, full, o = _built_metrics_site(tmp_path)
    _metrics_run(o, 5, 6)
    (src / "observe.jsonl").write_text(o.text())
    for name in ("metrics.jsonl", "metrics.csv", "index.html", "metrics_data.js"):
        (site / name).unlink()
        (site / name).mkdir()
    build(str(src), site, BuildOptions(jobs=1))
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(full)
    shutil.rmtree(full)


def test_the_first_skipped_line_is_named_alike_by_a_rebuild(tmp_path):
    """The skipped-lines warning (on the index) names the first line skipped: the state keeps
    it, so a rebuild that reads only the new lines writes the full build's index; a second
    bad line among the new ones is counted, not named."""
    src, rest = _split_demo(tmp_path)
    lines = (src / "observe.jsonl").read_bytes().splitlines(keepends=True)
    (src / "observe.jsonl").write_bytes(lines[0] + b"\xef\xbb\xbf{}\n" + b"".join(lines[1:]))
    inc = tmp_path / "inc"
    first = build(str(src), inc, BuildOptions(jobs=1))
    assert any("1 unreadable or stray line(s) were skipped. The first: line 2" in w for w in first.warnings)
    cut = rest.index(b"\n") + 1
    with open(src / "observe.jsonl", "ab") as f:
        f.write(rest[:cut] + b"not json\n" + rest[cut:])
    second = build(str(src), inc, BuildOptions(jobs=1))
    assert second.reused > 0
    assert any("2 unreadable or stray line(s) were skipped. The first: line 2" in w for w in second.warnings)
    full = tmp_path / "full"
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert snapshot(inc) == snapshot(full)


def test_the_state_file_is_the_same_whatever_the_hash_seed(tmp_path):
    """Two builds of the same export give the same bytes, the state file included: the sizes of
    the explorer's chunk files were written in the order of a set of names, which follows
    Python's string hash seed (so a rebuild and a fresh build differed in .reportgen-state)."""
    import os
    import subprocess
    import sys

    o = Obs().run()
    for n in range(1, 30):
        o.batch(o.update(n, **{f"m__{k:03d}": n * 0.123456789 + k for k in range(40)}))
    src = o.write(tmp_path / "src")
    script = (
        "import sys; from reportgen.views import charts; charts.INLINE_BYTES = 200; charts.CHUNK_BYTES = 400; "
        "from reportgen.site import build, BuildOptions; build(sys.argv[1], sys.argv[2], BuildOptions(jobs=1))"
    )
    states = []
    for seed in ("1", "2", "3"):
        out = tmp_path / f"site{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", script, str(src), str(out)], check=True, env=env)
        assert len(list((out / "metrics_data").glob("*.js"))) >= 3  # chunk files, whose sizes the state lists
        states.append((out / STATE).read_bytes())
    assert states[0] == states[1] == states[2]


def test_an_edit_of_the_same_length_in_the_middle_is_seen(tmp_path):
    """A same-length edit between the first 64 KiB and the last 64 KiB read (a key masked with
    ``sed -i``) was never read again: the rebuild kept the old texts and metrics. The state
    now holds the CRC-32 of every byte read, so the rebuild reads the file again and equals
    a fresh build; then an append after the edit is still taken up incrementally."""
    o = Obs().run()
    for n in range(1, 121):
        o.batch(
            o.prompt(f"p:{n}", f"question {n} " + "x" * 900),
            *[o.rollout(n, 0, m, f"SECRET-{n:03d}-{m} " + "y" * 900, prompt=f"p:{n}") for m in range(2)],
        )
        o.batch(o.update(n, reward__mean=0.5))
    src = o.write(tmp_path / "src")
    path = src / "observe.jsonl"
    raw = path.read_bytes()
    assert len(raw) > 3 * 65536
    site = tmp_path / "site"
    build(str(src), site, BuildOptions(jobs=1))
    at = raw.index(b"SECRET-060-0")
    assert 65536 < at < len(raw) - 65536
    metric = raw.index(b'"reward/mean":0.5}', at)  # update 60's
    edited = raw[:metric] + b'"reward/mean":0.7}' + raw[metric + len(b'"reward/mean":0.5}') :]
    path.write_bytes(edited.replace(b"SECRET-060-0", b"XXXXXX-060-0"))
    again = build(str(src), site, BuildOptions(jobs=1))
    assert again.rendered > 0
    assert b"SECRET-060-0" not in (site / "train_iteration_000060.html").read_bytes()
    fresh = tmp_path / "fresh"
    build(str(src), fresh, BuildOptions(jobs=1, incremental=False))
    assert snapshot(site) == snapshot(fresh)
    o.batch(o.prompt("p:121", "q"), o.rollout(121, 0, 0, "a", prompt="p:121"))
    o.batch(o.update(121, reward__mean=0.5))
    path.write_bytes(path.read_bytes() + "".join(line + "\n" for line in o.lines[-2:]).encode())
    third = build(str(src), site, BuildOptions(jobs=1))
    assert third.reused >= 119, (third.reused, third.rendered)


def test_a_remote_export_is_not_read_whole_for_its_crc(tmp_path):
    """The CRC-32 of every byte read (a same-length edit in the middle) is a local export's:
    for a remote one (s3://, gs://) a rebuild would download the whole file again, so its
    state keeps the head and tail hashes only, and a rebuild after an append still reuses."""
    import orjson
    import pytest

    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    base = "/reportgen-test/remote-crc"
    if fs.exists(base):
        fs.rm(base, recursive=True)
    src, rest = _split_demo(tmp_path)
    fs.pipe(f"{base}/observe.jsonl", (src / "observe.jsonl").read_bytes())
    try:
        site = tmp_path / "site"
        build(f"memory://{base}", site, BuildOptions(jobs=1))
        assert len(orjson.loads((site / STATE).read_bytes())["reader"]["fingerprint"]) == 2
        fs.pipe(f"{base}/observe.jsonl", (src / "observe.jsonl").read_bytes() + rest)
        again = build(f"memory://{base}", site, BuildOptions(jobs=1))
        assert again.reused > 0
        local = tmp_path / "local"
        build(str(src), local, BuildOptions(jobs=1))
        assert len(orjson.loads((local / STATE).read_bytes())["reader"]["fingerprint"]) == 3
    finally:
        fs.rm(base, recursive=True)
