"""``reportgen check``: problems with file, line and counts; exit 0 clean, 1 problems; --json."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from reportgen.check import check
from reportgen.cli import main

from .hostile import write_observe, write_tinker
from .obs import Obs

FIXTURES = Path(__file__).parent / "fixtures"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def _json(*args: str) -> tuple[int, dict]:
    r = invoke("check", *args, "--json")
    return r.exit_code, json.loads(r.output)


def _where(report: dict) -> set[tuple[int | None, str]]:
    return {(p["line"], p["kind"]) for p in report["problems"]}


def test_clean_export_exits_0():
    r = invoke("check", str(FIXTURES / "observe" / "examples"))
    assert r.exit_code == 0, r.output
    assert "no problem found" in r.output and "2 updates" in r.output
    code, rep = _json(str(FIXTURES / "tinker" / "calc_agent_multiturn"))
    assert code == 0 and rep["ok"] and rep["problems"] == [] and rep["format"] == "tinker"


def test_observe_problems_with_lines(tmp_path):
    o = Obs().run()
    o.batch(o.prompt(), Obs.rollout(1, 0, 0), Obs.rollout(1, 0, 1))  # lines 2-4
    o.lines.append("not json")  # 5
    o.lines.append('{"v":1,"segment":0,"batch_id":9,"batch_index":2,"batch_len":3,"type":"rollout"}')  # 6: stray
    o.batch(Obs.update(1, reward__mean="NaN"))  # 7, the metric as the string "NaN" is no number: fine
    o.lines.append(
        '{"v":1,"segment":0,"batch_id":20,"batch_index":0,"batch_len":1,"type":"update","update":2,'
        '"metrics":{"loss":null,"kl":null,"ok":1}}'
    )  # 8
    o.lines.append('{"v":1,"segment":0,"batch_id":21,"batch_index":0,"batch_len":2,"type":"rollout","update":3}')  # 9
    # 10: a bare NaN, which the writer never writes (it writes null) and serde_json refuses
    o.lines.append(
        '{"v":1,"segment":0,"batch_id":22,"batch_index":0,"batch_len":1,"type":"update","update":3,"metrics":{"x":NaN}}'
    )
    o.lines.append('{"v":1,"segment":0,"batch_id":23,"batch_index":0,"batch_len":2,"type":"rollout","update":4}')  # 11
    src = o.write(tmp_path / "run", tail='{"v":1,"segm')
    raw = (src / "observe.jsonl").read_bytes().replace(b'"completion":"answer"', b'"completion":"\xff bad"', 1)
    (src / "observe.jsonl").write_bytes(raw)
    code, rep = _json(str(src))
    assert code == 1 and not rep["ok"] and not rep["fatal"]
    assert _where(rep) >= {
        (3, "invalid UTF-8"),
        (5, "unreadable line"),
        (6, "unreadable line"),
        (9, "broken batch"),
        (10, "unreadable line"),
        (11, "unfinished batch"),
        (12, "torn tail"),
    }
    # loss, kl = null: the writer's nulls for non-finite values, notes
    assert "non-finite metric" not in rep["counts"]
    assert sorted(n.split(": ")[1] for n in rep["notes"] if "NaN or infinite" in n) == ["kl", "loss"]
    assert all(":8: " in n for n in rep["notes"] if "NaN or infinite" in n)
    assert all(p["file"].endswith("observe.jsonl") for p in rep["problems"])
    text = invoke("check", str(src)).output.splitlines()
    assert any(line.startswith(str(src / "observe.jsonl") + ":12: torn tail") for line in text)
    assert text[-1].startswith("reportgen check: ") and re.search(r": \d+ problems?: ", text[-1])
    assert (": 1 problem: " in text[-1]) == (sum(rep["counts"].values()) == 1)


def test_unknown_version_is_fatal_with_line(tmp_path):
    o = Obs().run()
    o.lines.append('{"v":2,"segment":0,"batch_id":1,"batch_index":0,"batch_len":1,"type":"run"}')
    src = o.write(tmp_path / "run")
    code, rep = _json(str(src))
    assert code == 1 and rep["fatal"]
    assert (2, "unknown version") in _where(rep)


def test_missing_source_and_empty_export(tmp_path):
    code, rep = _json(str(tmp_path / "nothing"))
    assert code == 1 and rep["fatal"] and rep["problems"][0]["kind"] == "unreadable source"
    (tmp_path / "observe").mkdir()
    code, rep = _json(str(tmp_path / "observe"), "--format", "observe")
    # observe-spec §1.3 rule 9: a directory without observe.jsonl is an empty export, not an error
    assert code == 0 and not rep["problems"] and any("the export is empty" in n for n in rep["notes"])
    # the writer's lock file alone says what the folder is, without --format
    (tmp_path / "observe" / ".observe.lock").touch()
    for src in (tmp_path / "observe", tmp_path):
        code, rep = _json(str(src))
        assert code == 0 and rep["format"] == "observe" and any("the export is empty" in n for n in rep["notes"])
        r = invoke("build", str(src), "-o", str(tmp_path / "site"), "--force")
        assert r.exit_code == 0 and "the export is empty" in r.output, r.output
        assert (tmp_path / "site" / "index.html").exists()


def test_tinker_problems(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "tinker" / "arith_sync", run)
    (run / "config.json").unlink()
    with open(run / "metrics.jsonl", "ab") as f:
        f.write(b'{"step": 9, "progress/batch": 9, "loss": Infinity}\n{"step": 10, "prog')
    summaries = run / "iteration_000001" / "train_rollout_summaries.jsonl"
    lines = summaries.read_text().splitlines()
    lines[1] = lines[1].replace('"schema_version": 1', '"schema_version": 7')
    summaries.write_text("\n".join(lines) + "\n")
    (run / "iteration_000002" / "train_logtree.json").write_text('{"title": "x", "root": {"tag": ')
    (run / "iteration_000002" / "train_rollout_summaries.jsonl").unlink()
    code, rep = _json(str(run))
    assert code == 1
    by_kind: dict[str, list[dict]] = {}
    for p in rep["problems"]:
        by_kind.setdefault(p["kind"], []).append(p)
    assert any(p["file"].endswith("config.json") for p in by_kind["missing file"])
    n_metrics = len((run / "metrics.jsonl").read_text().splitlines())
    assert [(p["file"].rsplit("/", 1)[-1], p["line"]) for p in by_kind["torn tail"]] == [("metrics.jsonl", n_metrics)]
    assert (2, "unknown version") in _where(rep)
    # tinker writes NaN and Infinity by design (spec §3): a note, not a problem
    assert "non-finite metric" not in by_kind
    assert any("loss" in n and "NaN or infinite value" in n for n in rep["notes"])
    assert any("iteration_000002/train_logtree.json" in p["file"] for p in by_kind["unreadable file"])
    # the torn line is listed once, as a torn tail
    assert not [p for p in by_kind.get("unreadable line", []) if p["line"] == n_metrics]


def test_hostile_inputs_answer_without_traceback(tmp_path):
    for src in (write_observe(tmp_path / "o", big=1000), write_tinker(tmp_path / "t")):
        r = invoke("check", str(src))
        assert r.exit_code == 1, r.output
        assert r.exception is None or isinstance(r.exception, SystemExit)
        assert "Traceback" not in r.output
        rep = check(str(src))
        assert rep.counts and not rep.fatal
        json.dumps(rep.to_json())  # serialisable whatever the input held


def test_check_never_writes(tmp_path):
    from .hostile import hash_tree

    src = write_tinker(tmp_path / "t")
    before = hash_tree(src)
    invoke("check", str(src))
    assert hash_tree(src) == before


def test_check_reports_its_progress(tmp_path):
    """A large export takes seconds to check: the bytes scanned, then the updates loaded."""
    from .test_cli import _gen

    _gen().generate(tmp_path / "run", 3, 8, 8, 1, 60, 0.0, 0)
    seen: list[tuple[int, int, str]] = []
    report = check(str(tmp_path / "run"), progress=lambda d, t, unit: seen.append((d, t, unit)))
    assert report.ok
    units = [u for _, _, u in seen]
    assert "bytes" in units and units.index("bytes") < units.index("updates")
    loads = [(d, t) for d, t, u in seen if u == "updates"]
    assert loads == [(i, report.facts["with_texts"]) for i in range(report.facts["with_texts"])]


def test_layout_facts_are_notes_not_problems(tmp_path):
    """What build warns about that is not wrong (a renamed evaluator label, a resumed run)
    is listed as a note, and the exit code stays 0."""
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "tinker" / "calc_agent_multiturn", run)
    for f in list((run / "iteration_000000").glob("eval_test*")):
        f.rename(f.with_name(f.name.replace("eval_test", "eval_te#st")))
    r = invoke("check", str(run))
    assert r.exit_code == 0, r.output
    notes = [line for line in r.output.splitlines() if line.startswith("note: ")]
    assert notes == ["note: evaluator file label 'te#st' is written as 'te_st'"], r.output
    code, rep = _json(str(run))
    assert code == 0 and rep["ok"] and rep["notes"] == [notes[0][len("note: ") :]]
    code, rep = _json(str(FIXTURES / "tinker" / "arith_resumed"))
    assert [n for n in rep["notes"] if n.startswith("run resumed at step")], rep
    assert not any("resumed" in p["message"] for p in rep["problems"])


def test_metric_names_past_the_bound_are_a_note(tmp_path, monkeypatch):
    """More distinct metric names than the site keeps is a limit of the site, not a fault of
    the run: a note, exit code 0."""
    import reportgen.model as model_mod
    import reportgen.sources.observe as observe_mod

    monkeypatch.setattr(observe_mod, "MAX_METRIC_NAMES", 2)
    monkeypatch.setattr(model_mod, "MAX_METRIC_NAMES", 2)
    o = Obs().run()
    o.batch(o.update(1, a=1.0, b=2.0, c=3.0))
    src = o.write(tmp_path / "src")
    code, rep = _json(str(src))
    assert code == 0 and rep["ok"], rep
    assert [
        n for n in rep["notes"] if "more than 2 distinct metric names: 1 value of the later names is left out" in n
    ], rep


def test_the_runs_log_gives_notes_and_its_faults_are_problems(tmp_path):
    """logs.log's errors and warnings are notes (the run logged them: the exit code stays
    0), the first of each quoted on one line with its control characters escaped; invalid
    UTF-8 in it, or a log that cannot be read, is a problem, as a build warns of it."""
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "tinker" / "arith_resumed", run)
    with open(run / "logs.log", "ab") as f:
        f.write(b"train:9 [ERROR] step failed \x1b[2J\nTraceback (most recent call last):\nValueError: boom\n")
        f.write(b"train:9 [CRITICAL] again\n")
    code, rep = _json(str(run))
    assert code == 0, rep["problems"]
    errors = [n for n in rep["notes"] if "error record(s)" in n]
    assert len(errors) == 1 and errors[0].split(": ", 1)[0].endswith("logs.log:1441")
    assert "2 error record(s)" in errors[0] and "\x1b" not in errors[0] and "\\x1b[2J" in errors[0]
    assert "step failed \\x1b[2J ⏎ Traceback (most recent call last): ⏎ ValueError: boom" in errors[0]
    assert any("2 warning record(s)" in n and n.split(": ", 1)[0].endswith("logs.log:5") for n in rep["notes"])
    assert rep["facts"]["log_lines"] == 1444
    with open(run / "logs.log", "ab") as f:
        f.write(b"mod:1 [INFO] bad \xff byte\n")
    code, rep = _json(str(run))
    assert code == 1 and [(p["kind"], p["line"]) for p in rep["problems"]] == [("invalid UTF-8", 1445)]
    (run / "logs.log").unlink()
    (run / "logs.log").mkdir()
    code, rep = _json(str(run))
    assert code == 1 and [p["kind"] for p in rep["problems"]] == ["unreadable file"]
    assert "a folder, not a file" in rep["problems"][0]["message"]


def test_signs_of_dropped_batches_are_notes(tmp_path):
    """observe-spec §1.2: batches the writer dropped (its observe/dropped_batches metric) and an
    update without its record are what the run did, not faults of the file: notes, exit 0,
    as the missing update numbers and the updates due for texts already were."""
    o = Obs().run()
    o.batch(o.prompt(), Obs.rollout(1, 0, 0), Obs.rollout(1, 0, 1))
    o.batch(Obs.update(1, reward__mean=0.5, observe__dropped_batches=2))
    o.batch(o.prompt(), Obs.rollout(2, 0, 0), Obs.rollout(2, 0, 1))  # update 2: no update record yet
    src = o.write(tmp_path / "run")
    code, rep = _json(str(src))
    assert code == 0, rep["problems"]
    assert rep["problems"] == []
    notes = " ".join(rep["notes"])
    assert "2 export batch(es) were dropped" in notes and "have no update record" in notes


def test_tinker_trace_events_and_misplaced_summary_lines(tmp_path):
    """check reads trace_events.jsonl as the build converts it (its bad lines are problems
    at their lines, as the build warns of them), and a summary line naming another step is
    a "misplaced line" (read as the file's), not an unreadable one."""
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "tinker" / "arith_sync", run)
    (run / "trace_events.jsonl").write_text(
        '{"name": "a", "ph": "B", "pid": 1, "tid": 1, "ts": 0}\n{not json\n[1, 2]\n'
        '{"name": "a", "ph": "E", "pid": 1, "tid": 1, "ts": 5}\n'
    )
    summaries = run / "iteration_000001" / "train_rollout_summaries.jsonl"
    lines = summaries.read_text().splitlines()
    lines[0] = lines[0].replace('"iteration": 1', '"iteration": 7')
    assert '"iteration": 7' in lines[0]
    summaries.write_text("\n".join(lines) + "\n")
    code, rep = _json(str(run))
    assert code == 1
    where = {(p["file"].rsplit("/", 1)[-1], p["line"], p["kind"]) for p in rep["problems"]}
    assert ("trace_events.jsonl", 2, "unreadable line") in where
    assert ("trace_events.jsonl", 3, "unreadable line") in where
    assert ("train_rollout_summaries.jsonl", 1, "misplaced line") in where


def test_logged_groups_tinker_did_not_export_are_a_note(tmp_path):
    """A group in the logtree and not in the summaries is one tinker dropped before export
    (failed; constant reward in stream and async modes, spec §6): a note, exit 0."""
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "tinker" / "arith_sync", run)
    summaries = run / "iteration_000000" / "train_rollout_summaries.jsonl"
    rows = [json.loads(line) for line in summaries.read_text().splitlines()]
    summaries.write_text("".join(json.dumps(r) + "\n" for r in rows if r["group_idx"] != 0))
    code, rep = _json(str(run))
    assert code == 0, rep["problems"]
    assert any("logged groups that match no exported group" in n and "step 0" in n for n in rep["notes"])
