"""A tinker step's timing section (timing_spans.jsonl, spec §8) on its train page."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from bs4 import BeautifulSoup

from reportgen.site import BuildOptions, build
from reportgen.sources.tinker import TinkerReader
from reportgen.storage import Storage
from reportgen.views.timing import LANE_BARS, timing_view

FIX = Path(__file__).parent / "fixtures" / "tinker"


def _run(tmp_path: Path, lines: list[dict] | None = None) -> Path:
    run_dir = tmp_path / "run"
    shutil.copytree(FIX / "arith_sync", run_dir)
    if lines is not None:
        (run_dir / "timing_spans.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return run_dir


def _timing(page: Path) -> BeautifulSoup | None:
    soup = BeautifulSoup(page.read_text(), "html.parser")
    return soup.select_one("section.timing")


def test_a_train_page_shows_its_steps_spans_in_order_of_first_start(tmp_path):
    spans = [
        {"name": "train_step", "duration": 0.5, "wall_start": 2.0, "wall_end": 2.5},
        {"name": "sampling", "duration": 1.5, "wall_start": 0.0, "wall_end": 1.5},
        {"name": "env_step", "duration": 0.25, "wall_start": 0.5, "wall_end": 0.75},
        {"name": "env_step", "duration": 0.5, "wall_start": 0.5, "wall_end": 1.0},
        {"name": "no_times", "duration": 0.1},
        {"name": 7, "duration": 1.0},  # not a name: left out
    ]
    run_dir = _run(tmp_path, [{"step": 1, "spans": spans}])
    build(str(run_dir), tmp_path / "site", BuildOptions(jobs=1))
    section = _timing(tmp_path / "site" / "train_iteration_000001.html")
    assert section is not None
    assert section.h2.get_text() == "Timing: 2.50 s, 5 spans"
    rows = [[c.get_text() for c in tr.find_all(["th", "td"])][:6] for tr in section.select("tbody tr")]
    assert rows == [
        ["sampling", "1", "1.50", "1.50", "1.50", "0"],
        ["env_step", "2", "0.750", "0.375", "0.500", "0.500"],
        ["train_step", "1", "0.500", "0.500", "0.500", "2.00"],
        ["no_times", "1", "0.100", "0.100", "0.100", "–"],
    ]
    lanes = section.select("tbody tr")
    assert len(lanes[1].select("svg.tlane rect")) == 2  # a bar per span
    first = lanes[0].select_one("svg.tlane rect")
    assert (first["x"], first["width"]) == ("0.00", "600.00")  # 1.5 s of 2.5 on a lane 1000 wide
    assert lanes[3].select("svg") == []  # no times: listed, not drawn
    # without a timing line, or on an eval page: no section
    assert _timing(tmp_path / "site" / "train_iteration_000000.html") is None
    assert _timing(tmp_path / "site" / "eval_test_iteration_000000.html") is None


def test_the_last_line_of_a_step_wins_and_only_its_page_is_rendered_again(tmp_path):
    one = {"name": "sampling", "duration": 1.0, "wall_start": 0.0, "wall_end": 1.0}
    run_dir = _run(tmp_path, [{"step": 0, "spans": [one]}, {"step": 1, "spans": [one]}])
    site = tmp_path / "site"
    build(str(run_dir), site, BuildOptions(jobs=1))
    before = {p.name: p.stat().st_ino for p in site.glob("*.html")}
    again = {"name": "sampling", "duration": 3.0, "wall_start": 0.0, "wall_end": 3.0}
    with open(run_dir / "timing_spans.jsonl", "a") as f:  # a resume writes step 1 again
        f.write(json.dumps({"step": 1, "spans": [again]}) + "\n")
    res = build(str(run_dir), site, BuildOptions(jobs=1))
    assert res.rendered == 1
    section = _timing(site / "train_iteration_000001.html")
    assert section is not None and section.h2.get_text() == "Timing: 3.00 s, 1 span"
    after = {p.name: p.stat().st_ino for p in site.glob("*.html")}
    assert after["train_iteration_000000.html"] == before["train_iteration_000000.html"]  # reused


def test_span_names_are_escaped_and_a_crowded_lane_draws_the_union(tmp_path):
    hostile = '</title><script>alert(1)</script>"'
    spans = [{"name": hostile, "duration": 0.1, "wall_start": 0.0, "wall_end": 0.1}]
    # more spans of one name than a lane draws one by one: overlapping pairs, drawn merged
    spans += [
        {"name": "env_step", "duration": 0.002, "wall_start": 0.01 + i * 0.001, "wall_end": 0.012 + i * 0.001}
        for i in range(LANE_BARS + 1)
    ]
    run_dir = _run(tmp_path, [{"step": 1, "spans": spans}])
    build(str(run_dir), tmp_path / "site", BuildOptions(jobs=1))
    html = (tmp_path / "site" / "train_iteration_000001.html").read_text()
    assert "<script>alert(1)" not in html
    section = _timing(tmp_path / "site" / "train_iteration_000001.html")
    assert section is not None
    rows = section.select("tbody tr")
    assert rows[0].th.get_text() == hostile
    assert hostile in rows[0].select_one("rect title").get_text()
    env = rows[1].select("rect")
    assert len(env) == 1 and "shown as the time covered" in rows[1].svg["aria-label"]


def test_a_timing_line_changed_after_the_scan_is_said_not_shown(tmp_path):
    one = {"name": "sampling", "duration": 1.0, "wall_start": 0.0, "wall_end": 1.0}
    run_dir = _run(tmp_path, [{"step": 1, "spans": [one]}])
    reader = TinkerReader(Storage(str(run_dir)))
    run = reader.scan()
    ref = next(r for r in run.iterations if r.number == 1)
    with open(run_dir / "timing_spans.jsonl", "r+b") as f:
        f.truncate(10)
        f.flush()
        os.fsync(f.fileno())
    it = reader.load(ref)
    assert it.timing is None
    assert any("timing_spans.jsonl" in w and "timing is not shown" in w for w in it.warnings)


def test_timing_view_ignores_what_is_not_a_time():
    view = timing_view(
        [
            {"name": "a", "duration": float("nan"), "wall_start": -1.0, "wall_end": 2.0},
            {"name": "a", "duration": True, "wall_start": 3.0, "wall_end": 1.0},
            {"name": "b", "duration": 0.5, "wall_start": 0.0, "wall_end": 0.5},
        ]
    )
    assert view is not None
    assert [(r["name"], r["count"], r["total"]) for r in view["rows"]] == [("b", 1, "500"), ("a", 2, "0")]
    assert view["unit"] == "ms" and view["wall"] == "500"
    assert timing_view([{"duration": 1.0}]) is None


def test_a_line_rewritten_at_the_same_length_renders_its_page_again(tmp_path):
    """A step's line changed in place, same offset and length (3.0 -> 4.0): its page's key
    changes (the line's checksum is in it), so the rebuild equals a fresh build."""
    run_dir = _run(
        tmp_path, [{"step": 1, "spans": [{"name": "sampling", "duration": 3.0, "wall_start": 0, "wall_end": 3.0}]}]
    )
    site = tmp_path / "site"
    build(str(run_dir), site, BuildOptions(jobs=1))
    f = run_dir / "timing_spans.jsonl"
    before = f.read_bytes()
    f.write_bytes(before.replace(b"3.0", b"4.0"))
    assert len(f.read_bytes()) == len(before)
    res = build(str(run_dir), site, BuildOptions(jobs=1))
    assert res.rendered == 1
    section = _timing(site / "train_iteration_000001.html")
    assert section is not None and section.h2.get_text() == "Timing: 4.00 s, 1 span"


def test_spans_without_wall_times_get_no_lanes_and_a_unit_from_their_durations(tmp_path):
    spans = [{"name": "sampling", "duration": 12.5}, {"name": "train", "duration": 30.5}]
    run_dir = _run(tmp_path, [{"step": 1, "spans": spans}])
    build(str(run_dir), tmp_path / "site", BuildOptions(jobs=1))
    section = _timing(tmp_path / "site" / "train_iteration_000001.html")
    assert section is not None
    assert section.h2.get_text() == "Timing: 2 spans"  # no wall time to give
    assert section.select("svg") == [] and section.select("th.tl") == []
    rows = {tr.th.get_text(): [td.get_text() for td in tr.find_all("td")] for tr in section.select("tbody tr")}
    assert rows["train"][1] == "30.5" and rows["sampling"][1] == "12.5"  # seconds, not 30,500 ms


def test_absurd_times_and_names_stay_bounded():
    huge = 1e308
    view = timing_view(
        [
            {"name": "huge", "duration": huge, "wall_start": 0.0, "wall_end": huge},
            {"name": "huge", "duration": huge, "wall_start": 0.0, "wall_end": huge},
            {"name": "x" * 5000 + "\u202e", "duration": 1.0, "wall_start": 0.0, "wall_end": 1.0},
        ]
    )
    assert view is not None
    assert view["wall"] == "1e+308"
    first = view["rows"][0]
    assert first["total"] == "–" and first["max"] == "1e+308"  # the sum overflowed: no "inf"
    long = view["rows"][1]
    assert len(long["name"]) == 201 and long["full_name"].endswith("\u202e")
    assert "\u202e" not in str(long["lane"])  # no override in a tooltip or a label
