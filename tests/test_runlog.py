"""A tinker run's own log (logs.log): the reader's records, the bounded page, the index's link."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from reportgen.model import LogRecord
from reportgen.site import BuildOptions, build
from reportgen.sources.tinker import LOG_LINE_MAX, LOG_RECORD_MAX, TinkerReader
from reportgen.storage import Storage
from reportgen.views import runlog

FIX = Path(__file__).parent / "fixtures" / "tinker"


def _records(path: Path) -> list[LogRecord]:
    reader = TinkerReader(Storage(str(path)))
    reader.scan()
    records = reader.log_records()
    assert records is not None
    return list(records)


def _run_with_log(tmp_path: Path, log: bytes, name: str = "run", fixture: str = "arith_resumed") -> Path:
    src = tmp_path / name
    shutil.copytree(FIX / fixture, src)
    (src / "logs.log").write_bytes(log)
    return src


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def test_the_real_log_reads_as_records_with_their_starts_and_levels():
    """tinker-cookbook's logs.log of a resumed run: a record a ``name:lineno [LEVEL]`` line,
    the trajectory dumps and Rich tables that follow it as its lines, two starts."""
    recs = _records(FIX / "arith_resumed")
    text = (FIX / "arith_resumed" / "logs.log").read_text(encoding="utf-8")
    assert sum(len(r.lines) for r in recs) == len(text.splitlines())
    assert [r.line for r in recs if r.starts_run] == [1, 692]
    first = recs[0]
    assert (first.level, first.source) == ("INFO", "root:791")
    assert first.lines == [text.splitlines()[0].split("[INFO] ", 1)[1]]
    warnings = [r for r in recs if r.level == "WARNING"]
    assert [r.line for r in warnings] == [5, 698]
    assert warnings[0].source == "tinker_cookbook.utils.cost_estimation:190"
    dump = next(r for r in recs if "====== Trajectory Group ======" in r.lines)
    assert dump.lines[0] == "" and dump.lines[-1] == "====== End Trajectory Group ======"
    assert all(r.line + len(r.lines) == n.line for r, n in zip(recs, recs[1:]))  # no line lost


def test_odd_lines_are_kept_cut_or_replaced_and_said(tmp_path):
    """Text before the first record is a record of no level; CR LF ends a line; invalid
    UTF-8 is replaced and marked; a line past the bound is cut (and never held whole), a
    record past its bound keeps its start; a cut inside a character drops its bytes, not
    into U+FFFD."""
    endless = b"x" * (LOG_LINE_MAX * 3 + 5)
    wide = "é" * LOG_LINE_MAX  # 2 bytes a character: the bound falls inside one or not
    log = b"".join(
        [
            b"preamble without a header\r\n",
            b"root:1 [INFO] Command line invocation: train.py --seed 1\r\n",
            b"mod.sub:22 [WARNING] bad byte \xff here\n",
            b"mod:3 [ERROR] " + endless + b"\n",
            b"mod:4 [CUSTOM] " + wide.encode() + b"\n",
            b"mod:5 [INFO] many lines\n",
            b"".join(b"y" * 1000 + b"\n" for _ in range(LOG_RECORD_MAX // 1000 + 5)),
            b"mod:6 [INFO] no newline at the end",
        ]
    )
    src = _run_with_log(tmp_path, log)
    recs = _records(src)
    assert [(r.line, r.level) for r in recs] == [
        (1, None),
        (2, "INFO"),
        (3, "WARNING"),
        (4, "ERROR"),
        (5, "CUSTOM"),
        (6, "INFO"),
        (6 + LOG_RECORD_MAX // 1000 + 6, "INFO"),
    ]
    assert recs[0].lines == ["preamble without a header"] and recs[1].starts_run
    assert recs[2].replaced and "\ufffd" in recs[2].lines[0] and not recs[3].replaced
    assert (
        len(recs[3].lines[0].encode()) < LOG_LINE_MAX
        and recs[3].cut == len(endless) + len(b"mod:3 [ERROR] ") - LOG_LINE_MAX
    )
    assert not recs[4].replaced and set(recs[4].lines[0]) == {"é"}
    assert sum(map(len, recs[5].lines)) <= LOG_RECORD_MAX and recs[5].cut > 0
    assert recs[6].lines == ["no newline at the end"]

    out = tmp_path / "site"
    result = build(str(src), out, BuildOptions(jobs=1))
    assert any(w.endswith("logs.log:3: invalid UTF-8 replaced by U+FFFD") for w in result.warnings)
    soup = _soup(out / "logs.html")
    assert soup.select_one("#L1.lv-other") is not None
    assert soup.select_one("#L5.lv-other .lvl").get_text() == "CUSTOM"
    assert "more characters in logs.log" in soup.select_one("#L4").get_text()
    assert [i["id"] for i in soup.select(".lfilter input")] == ["lvf-info", "lvf-warning", "lvf-error", "lvf-other"]


def test_hostile_log_text_is_text(tmp_path):
    """Markup, a closing pre and script tags in a log line, a logger name or a level are
    shown as written, never parsed."""
    log = (
        b"root:1 [INFO] Command line invocation: x.py --name '<script>alert(1)</script>'\n"
        b"<img/src=x/onerror=alert(2)>:7 [WARNING] </pre><b>bold</b>\n"
        b"mod:8 [INFO] line one\n</pre></div><script>alert(3)</script>\n"
    )
    out = tmp_path / "site"
    build(str(_run_with_log(tmp_path, log)), out, BuildOptions(jobs=1))
    soup = _soup(out / "logs.html")
    assert not soup.select("main script, main img, main b")
    assert "</pre><b>bold</b>" in soup.select_one("#L2").get_text()
    assert "<script>alert(3)</script>" in soup.select_one("#L3 pre").get_text()
    assert "<script>alert(1)</script>" in soup.select_one(".lsummary").parent.get_text()


def _long_log(n: int, every_warning: int, every_start: int = 0) -> bytes:
    lines = [b"root:1 [INFO] Command line invocation: train.py\n"]
    for i in range(1, n):
        if every_start and i % every_start == 0:
            lines.append(b"root:1 [INFO] Command line invocation: train.py --resume %d\n" % i)
            continue
        level = b"WARNING" if i % every_warning == 0 else b"INFO"
        lines.append(b"mod:%d [%b] record %d " % (i, level, i) + b"z" * 200 + b"\n")
    return b"".join(lines)


# the page's bound: its rooms, and the summary and the page around the records
_BOUND = (
    runlog.HEAD_BYTES + runlog.ERROR_BYTES + runlog.WARNING_BYTES + runlog.START_BYTES + runlog.TAIL_BYTES + (256 << 10)
)


def _dead_anchors(soup: BeautifulSoup) -> list[str]:
    ids = {e["id"] for e in soup.select("[id]")}
    return [a["href"] for a in soup.select("a[href^='#']") if a["href"][1:] not in ids]


def test_a_long_log_shows_its_start_every_warning_and_its_end_within_bounds(tmp_path):
    """A log of 30 MB: the page holds its start, every warning, its end and the gaps
    between, in the log's order; the summary counts the whole log."""
    n = 140_000
    log = _long_log(n, 1000)
    out = tmp_path / "site"
    build(str(_run_with_log(tmp_path, log)), out, BuildOptions(jobs=1))
    page = out / "logs.html"
    assert page.stat().st_size < _BOUND
    soup = _soup(page)
    lines = [int(a.get_text()) for a in soup.select(".lrec > a.ln")]
    assert lines == sorted(lines)
    assert lines[0] == 1 and lines[-1] == n
    warnings = [int(r["id"][1:]) for r in soup.select(".lrec.lv-warning")]
    assert warnings == list(range(1001, n + 1, 1000))  # the line of record i is i + 1
    gaps = soup.select(".lgap")
    assert gaps and len(gaps) <= len(warnings) + 1
    said = sum(int(g.get_text().split("(")[1].split()[0].replace(",", "")) for g in gaps)
    assert said + len(lines) == n
    summary = soup.select_one(".lsummary").get_text()
    assert f"{n:,} lines, {n:,} records, 1 start." in summary
    assert _dead_anchors(soup) == []
    assert soup.select_one(".lfilter").get_text().count(f"({n - len(warnings) - 0:,})") == 1
    index = _soup(out / "index.html")
    link = index.find("a", href="logs.html")
    assert link is not None and f"{n:,} lines, 1 start, {len(warnings)} warnings" in link.parent.get_text()


def test_warnings_past_their_room_are_counted_and_said(tmp_path):
    """A log that is all warnings: the page keeps to its bounds and says how many were left
    out; every start is still shown, as the summary's list of starts links each one."""
    n = 40_000
    out = tmp_path / "site"
    build(str(_run_with_log(tmp_path, _long_log(n, 1, every_start=3001))), out, BuildOptions(jobs=1))
    page = out / "logs.html"
    assert page.stat().st_size < _BOUND
    soup = _soup(page)
    text = soup.select("p.lsummary")[1].get_text()
    assert "of them warnings or errors" in text
    starts = [a["href"] for a in soup.select(".lstarts a")]
    assert starts == ["#L1"] + [f"#L{i + 1}" for i in range(3001, n, 3001)]
    assert _dead_anchors(soup) == []
    assert [h["id"] for h in soup.select("h2.lstart")] == [f"start-{k}" for k in range(1, len(starts) + 1)]


def test_the_page_summary_links_the_starts_and_the_first_warning(tmp_path):
    out = tmp_path / "site"
    build(str(FIX / "arith_resumed"), out, BuildOptions(jobs=1))
    soup = _soup(out / "logs.html")
    assert [a["href"] for a in soup.select(".lstarts a")] == ["#L1", "#L692"]
    assert "--crash-at 3" in soup.select(".lstarts li")[0].get_text()
    first = soup.find("a", string="first warning")
    assert first["href"] == "#L5" and soup.select_one("#L5.lv-warning") is not None
    assert [h["id"] for h in soup.select("h2.lstart")] == ["start-1", "start-2"]
    assert soup.select_one("#L7 > details") is not None  # a trajectory dump of 75 lines is folded
    # its line's link beside the fold, not inside its summary (a control inside a control)
    assert soup.select_one("#L7 > a.ln")["href"] == "#L7" and soup.select_one("#L7 summary a") is None
    assert soup.select_one("#L2").name == "div"
    index = _soup(out / "index.html")
    assert index.find("a", href="logs.html").parent.get_text().strip() == "logs.log (1,440 lines, 2 starts, 2 warnings)"
    assert index.select_one("p.runlog code.lerr") is None  # no error: nothing quoted


def test_no_log_no_page_and_an_unreadable_log_is_said(tmp_path):
    """A run without logs.log has no page and no link; a FIFO in its place neither blocks
    the build nor fails it: it is said."""
    out = tmp_path / "site"
    build(str(FIX / "arith_sync"), out, BuildOptions(jobs=1))
    assert not (out / "logs.html").exists()
    assert _soup(out / "index.html").find("a", href="logs.html") is None
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    src = tmp_path / "fifo"
    shutil.copytree(FIX / "arith_resumed", src)
    os.unlink(src / "logs.log")
    os.mkfifo(src / "logs.log")
    out2 = tmp_path / "site2"
    result = build(str(src), out2, BuildOptions(jobs=1))
    assert not (out2 / "logs.html").exists()
    assert any("logs.log" in w and "cannot read" in w for w in result.warnings), result.warnings


def test_a_rebuild_shows_the_grown_log(tmp_path):
    """The log grows while the run trains: a rebuild's page is the full build's."""
    src = _run_with_log(tmp_path, _long_log(50, 10))
    out, full = tmp_path / "site", tmp_path / "full"
    build(str(src), out, BuildOptions(jobs=1))
    with open(src / "logs.log", "ab") as f:
        f.write(b"mod:9 [ERROR] Traceback (most recent call last):\n  File x\nValueError: boom\n")
    build(str(src), out, BuildOptions(jobs=1))
    build(str(src), full, BuildOptions(jobs=1, incremental=False))
    assert (out / "logs.html").read_bytes() == (full / "logs.html").read_bytes()
    assert "ValueError: boom" in _soup(out / "logs.html").select_one(".lrec.lv-error").get_text()


def test_a_flood_of_warnings_never_hides_the_first_error(tmp_path):
    """30,000 warnings, then an error with its traceback, then more: the error is shown,
    and "first error" links the log's first error (errors have a room of their own)."""
    lines = [b"root:1 [INFO] Command line invocation: train.py\n"]
    lines += [b"mod:%d [INFO] info %d " % (i, i) + b"i" * 100 + b"\n" for i in range(30_000)]
    lines += [b"py.warnings:%d [WARNING] DeprecationWarning %d " % (i, i) + b"w" * 100 + b"\n" for i in range(30_000)]
    first_error = len(lines) + 1
    lines.append(b"train:9 [ERROR] step failed\nTraceback (most recent call last):\n  File x\nValueError: boom\n")
    lines += [b"mod:%d [INFO] after %d " % (i, i) + b"a" * 100 + b"\n" for i in range(30_000)]
    lines.append(b"train:9 [ERROR] second failure\n")
    out = tmp_path / "site"
    build(str(_run_with_log(tmp_path, b"".join(lines))), out, BuildOptions(jobs=1))
    soup = _soup(out / "logs.html")
    assert "ValueError: boom" in soup.select_one(f"#L{first_error}").get_text()
    assert soup.find("a", string="first error")["href"] == f"#L{first_error}"
    assert len(soup.select(".lrec.lv-error")) == 2
    assert (out / "logs.html").stat().st_size < _BOUND and _dead_anchors(soup) == []
    # the index quotes the first error, on one line, and links it
    line = _soup(out / "index.html").select_one("p.runlog")
    assert line.find("a", string="first error")["href"] == f"logs.html#L{first_error}"
    assert (
        line.select_one("code.lerr").get_text()
        == "step failed ⏎ Traceback (most recent call last): ⏎ File x ⏎ ValueError: boom"
    )
    assert f"(line {first_error:,})" in line.get_text()


@pytest.mark.parametrize("shape", ["long starts", "markup", "giant record"])
def test_adversarial_logs_keep_the_page_bounded_and_counted(tmp_path, shape):
    """Starts with endless command lines and dumps, warnings full of characters that escape
    to entities, one record of 100,000 lines: the page stays within its rooms, the links of
    the list of starts all land, and line counts are the file's."""
    if shape == "long starts":
        one = b"root:1 [INFO] Command line invocation: train.py " + b"--flag " * 2000 + b"\n" + b"dump\n" * 300
        log = one * 400
        n_lines = 400 * 301
    elif shape == "markup":
        log = b"".join(b"mod:%d [WARNING] " % i + b"<&>" * 60 + b"\n" for i in range(60_000))
        n_lines = 60_000
    else:
        log = b"root:1 [INFO] a table\n" + b"".join(b"| row %d |\n" % i for i in range(100_000))
        n_lines = 100_001
    out = tmp_path / "site"
    build(str(_run_with_log(tmp_path, log)), out, BuildOptions(jobs=1))
    page = out / "logs.html"
    assert page.stat().st_size < _BOUND, page.stat().st_size
    soup = _soup(page)
    assert _dead_anchors(soup) == []
    assert soup.select_one(".lsummary").get_text().startswith(f"{n_lines:,} line")
    gaps = sum(int(g.get_text().split()[1].replace(",", "")) for g in soup.select(".lgap"))
    shown = sum(len(r.select_one(".lmsg").get_text().split("\n")) for r in soup.select(".lrec"))
    if shape == "long starts":
        assert all(len(c.get_text()) <= runlog.COMMAND_SHOWN + 1 for c in soup.select(".lstarts code"))
        assert "not shown" in soup.select_one(".lstarts").get_text()
    if shape == "giant record":
        rec = soup.select_one("#L1")
        assert "(100001 lines)" in rec.select_one(".lsum").get_text()  # as the cards write it
        assert "more characters in logs.log" in rec.get_text()
    else:
        assert gaps + shown == n_lines


def test_record_headers_as_python_logging_writes_them(tmp_path):
    """Python's name of an unnamed level ("Level 5"), a level a program named in capitals,
    a logger with colons in its name; a byte order mark before the first; blank lines
    before the first record are no record; a traceback's last line that looks like a
    header (a blank in the name, a level not in capitals) continues its record."""
    log = (
        "\ufeff\n\nroot:1 [Level 5] low\npkg:mod:3 [LEVEL_25] x\nnot a header [INFO] y\n"
        "train:9 [ERROR] failed\nTraceback (most recent call last):\nRuntimeError: shape mismatch at dim:1 [expected 3]\n"
        "my app:2 [INFO] blank in the name\n"
    )
    recs = _records(_run_with_log(tmp_path, log.encode()))
    assert [(r.line, r.source, r.level, r.lines) for r in recs] == [
        (3, "root:1", "Level 5", ["low"]),
        (4, "pkg:mod:3", "LEVEL_25", ["x", "not a header [INFO] y"]),
        (
            6,
            "train:9",
            "ERROR",
            [
                "failed",
                "Traceback (most recent call last):",
                "RuntimeError: shape mismatch at dim:1 [expected 3]",
                "my app:2 [INFO] blank in the name",
            ],
        ),
    ]


def test_a_record_past_its_bound_keeps_its_start_and_no_line_after_a_hole(tmp_path):
    lines = ["mod:1 [INFO] head"] + [f"L{i:03d} " + "x" * 995 for i in range(64)] + ["BIG" + "y" * 5000]
    lines += ["after the hole 1", "after the hole 2", "mod:2 [INFO] next"]
    recs = _records(_run_with_log(tmp_path, ("\n".join(lines) + "\n").encode()))
    assert len(recs) == 2 and recs[0].lines[-1].startswith("L")
    assert recs[0].dropped_lines == 3 and recs[0].n_lines == 68 and recs[1].line == 69


def test_a_line_cut_just_before_a_characters_last_bytes_is_valid_text(tmp_path):
    """16,383 ASCII bytes, then "€" (3 bytes) across the bound: the character is one left
    out, not a U+FFFD; a CR LF end of line is no character left out."""
    for end in (b"\n", b"\r\n"):
        line = b"mod:1 [INFO] " + b"a" * (LOG_LINE_MAX - 1 - len(b"mod:1 [INFO] ")) + "€".encode() + end
        recs = _records(_run_with_log(tmp_path, line, name=f"run{len(end)}"))
        assert not recs[0].replaced and recs[0].cut == 1 and "\ufffd" not in recs[0].lines[0]


def test_hostile_logger_names_and_quotes_keep_the_page_bounded(tmp_path):
    """A logger name of 16,000 quotes (each an entity of 5 bytes) on 2,000 lines: the page
    stays within its rooms, counting the name and the entities."""
    log = b"".join(b'"' * 16_000 + b":%d [INFO] " % i + b"'" * 300 + b"\n" for i in range(2000))
    out = tmp_path / "site"
    build(str(_run_with_log(tmp_path, log)), out, BuildOptions(jobs=1))
    assert (out / "logs.html").stat().st_size < _BOUND
    soup = _soup(out / "logs.html")
    assert _dead_anchors(soup) == [] and soup.select(".lgap")


def test_a_cut_line_counts_the_characters_it_left_out(tmp_path):
    text = "中" * 20_000  # 3 bytes each: the line is cut at LOG_LINE_MAX bytes
    recs = _records(_run_with_log(tmp_path, ("mod:1 [INFO] " + text + "\n").encode()))
    assert len(recs[0].lines[0]) + recs[0].cut == len("mod:1 [INFO] ") + len(text) - len("mod:1 [INFO] ")
    assert not recs[0].replaced


def test_a_folder_named_logs_log_is_said_once(tmp_path):
    src = tmp_path / "run"
    shutil.copytree(FIX / "arith_resumed", src)
    os.unlink(src / "logs.log")
    (src / "logs.log").mkdir()
    result = build(str(src), tmp_path / "site", BuildOptions(jobs=1))
    said = [w for w in result.warnings if "logs.log" in w]
    assert len(said) == 1 and said[0].count("cannot read") == 1 and "a folder, not a file" in said[0], said


def test_search_data_holds_the_shown_records_only(tmp_path):
    """With the search of every text, logs_search.js lists the records logs.html shows
    (each anchor on the page), after the iterations in search_index.js; without it, none."""
    import orjson

    out = tmp_path / "site"
    build(str(_run_with_log(tmp_path, _long_log(40_000, 997))), out, BuildOptions(jobs=1, search="on"))
    data = (out / "logs_search.js").read_bytes()
    shard = orjson.loads(data[data.index(b"{") : data.rindex(b"}") + 1])
    assert shard["key"] == "logs.html" and shard["pages"] == ["logs.html"]
    soup = _soup(out / "logs.html")
    assert [f"L{a.get_text()}" for a in soup.select(".lrec > a.ln")] == [it[1] for it in shard["items"]]
    assert len(shard["items"]) < 40_000
    index = (out / "search_index.js").read_text()
    assert index.rstrip().endswith('["logs_search.js","logs.log","logs.html"]];')
    assert "then the records logs.html shows" in (out / "search.html").read_text()
    out2 = tmp_path / "site2"
    build(str(_run_with_log(tmp_path, _long_log(100, 10), name="r2")), out2, BuildOptions(jobs=1, search="off"))
    assert not (out2 / "logs_search.js").exists()


def test_a_parallel_build_writes_the_log_page_while_workers_render_and_the_same_site(tmp_path, monkeypatch):
    """With workers, logs.html is written while they render; the site is the serial
    build's, byte for byte (warnings in the same order), and so is a rebuild's."""
    import reportgen.site as site_mod

    # arith_sync: iterations enough for a pool of two workers
    src = _run_with_log(tmp_path, _long_log(3000, 100) + b"mod:1 [INFO] bad \xff\n", fixture="arith_sync")
    calls: list[bool] = []
    real = site_mod._write_run_log

    def spy(*a, **k):
        calls.append(bool(site_mod.multiprocessing.active_children()))
        return real(*a, **k)

    monkeypatch.setattr(site_mod, "_write_run_log", spy)
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    r1 = build(str(src), serial, BuildOptions(jobs=1))
    r2 = build(str(src), parallel, BuildOptions(jobs=2))
    assert calls == [False, True]  # the second while its workers were alive
    assert r1.warnings == r2.warnings and any("invalid UTF-8" in w for w in r2.warnings)
    files = sorted(p.relative_to(serial).as_posix() for p in serial.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(parallel).as_posix() for p in parallel.rglob("*") if p.is_file())
    for name in files:
        assert (serial / name).read_bytes() == (parallel / name).read_bytes(), name
