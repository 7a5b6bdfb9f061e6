"""The observe reader against the edge cases of the spec's section 7."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from reportgen.errors import InputError
from reportgen.sources.observe import ObserveReader
from reportgen.storage import Storage

from .obs import Obs

FIXTURES = Path(__file__).parent / "fixtures"


def read(directory: Path):
    reader = ObserveReader(Storage(str(directory)))
    run = reader.scan()
    return reader, run


def numbers(run):
    return [(r.number, r.segment) for r in run.iterations]


def simple(o: Obs, n: int, *texts: str, group: int | None = 0) -> None:
    o.batch(o.prompt(), *[o.rollout(n, group, i, t) for i, t in enumerate(texts)])
    o.batch(o.outcome(n, *[(group, i, True) for i in range(len(texts))]))
    o.batch(o.update(n, reward__mean=0.5))


def test_examples_fixture_visible_updates():
    reader, run = read(FIXTURES / "observe" / "examples")
    assert numbers(run) == [(1, 2), (2, 3)]
    assert run.algorithm == "agent_grpo"
    assert [s["visible"] for s in run.segments] == [False, False, True, True]
    assert run.segments[2]["upto"] == 1
    it = reader.load(run.iterations[1])
    assert it.ref.status == "skipped"
    reasons = sorted(m.skip_reason for g in it.groups for m in g.members)
    assert reasons == ["truncated", "update_skipped"]


def test_torn_last_line_left_unread(tmp_path):
    o = Obs().run()
    simple(o, 1, "a")
    d = o.write(tmp_path, tail='{"v":1,"type":"upd')
    _, run = read(d)
    assert numbers(run) == [(1, 0)]
    assert any("incomplete" in w and "bytes" in w for w in run.warnings)


def test_unfinished_last_batch_not_ingested(tmp_path):
    o = Obs().run()
    simple(o, 1, "a")
    o.batch(o.rollout(2, 0, 0, "x"), o.rollout(2, 0, 1, "y"))
    o.lines.pop()  # the batch's second line never arrived
    d = o.write(tmp_path)
    reader, run = read(d)
    assert numbers(run) == [(1, 0)]
    assert any("unfinished" in w for w in run.warnings)


def test_broken_off_batch_and_stray_line_counted(tmp_path):
    o = Obs().run()
    o.batch(o.rollout(1, 0, 0, "lost"), o.rollout(1, 0, 1, "lost too"))
    o.lines.pop()  # broken off by the next batch
    simple(o, 2, "kept")
    o.lines.insert(2, '{"v":1,"type":"rollout","segment":0,"batch_id":99,"batch_index":3,"batch_len":5,"update":9}')
    o.lines.insert(2, "not json at all")
    d = o.write(tmp_path)
    reader, run = read(d)
    assert numbers(run) == [(2, 0)]
    text = " ".join(run.warnings)
    assert "2 unreadable or stray" in text
    assert "1 batch(es) broken off" in text
    it = reader.load(run.iterations[0])
    assert [m.completion for g in it.groups for m in g.members] == ["kept"]


def test_blank_lines_ignored_even_inside_a_batch(tmp_path):
    o = Obs().run()
    simple(o, 1, "a", "b")
    o.lines.insert(2, "   ")
    o.lines.insert(0, "")
    d = o.write(tmp_path)
    reader, run = read(d)
    assert numbers(run) == [(1, 0)]
    assert not run.warnings
    assert len(reader.load(run.iterations[0]).groups[0].members) == 2


def test_other_version_is_an_error_naming_the_line(tmp_path):
    o = Obs().run()
    simple(o, 1, "a")
    o.lines.append('{"v":9,"type":"update","segment":0,"batch_id":9,"batch_index":0,"batch_len":1}')
    d = o.write(tmp_path)
    with pytest.raises(InputError) as err:
        read(d)
    assert err.value.line == 6
    assert "observe.jsonl:6" in str(err.value)


def test_other_version_without_header_is_an_error(tmp_path):
    o = Obs().run()
    o.lines.append('{"v":2,"type":"something"}')
    d = o.write(tmp_path)
    with pytest.raises(InputError):
        read(d)


@pytest.mark.parametrize("v", ['"1"', "true", "2.0", "1.0", "-1", str(2**32), "null"])
def test_a_version_that_is_no_u32_makes_a_skipped_line(tmp_path, v):
    """reader.rs reads ``v`` as a u32 (spec 1.3): a line whose ``v`` is anything else does not
    deserialize, has no version to refuse, and is skipped and counted; 1.0 is not 1."""
    o = Obs().run()
    simple(o, 1, "a")
    o.lines.append(
        f'{{"v":{v},"type":"update","segment":0,"batch_id":9,"batch_index":0,"batch_len":1,"update":7,'
        '"status":"completed","metrics":{}}'
    )
    o.lines.append(f'{{"v":{v},"type":"something"}}')
    _reader, run = read(o.write(tmp_path))
    assert numbers(run) == [(1, 0)]
    assert any("2 unreadable or stray line(s) were skipped" in w for w in run.warnings)


def test_a_segment_past_u32_makes_a_skipped_line(tmp_path):
    """``segment`` is a u32 (spec 1.1): a fresh run record in segment 2^32 does not
    deserialize, so it is skipped and counted and hides nothing; 2^32 - 1 is a segment."""
    o = Obs().run()
    simple(o, 1, "a")
    head = (
        '{"v":1,"type":"run","batch_id":%d,"batch_index":0,"batch_len":1,"segment":%d,'
        '"algorithm":"grpo","resumed_from_update":null,"every":1,"params":{}}'
    )
    o.lines.append(head % (90, 2**32))
    _reader, run = read(o.write(tmp_path / "big"))
    assert numbers(run) == [(1, 0)]
    assert any("1 unreadable or stray line(s) were skipped" in w for w in run.warnings)
    o.lines[-1] = head % (90, 2**32 - 1)
    _reader, run = read(o.write(tmp_path / "max"))
    assert numbers(run) == []  # a fresh run in the highest segment hides the first


def test_fresh_run_hides_everything_before(tmp_path):
    o = Obs().run()
    simple(o, 1, "old one")
    simple(o, 2, "old two")
    o.run(algorithm="ppo")
    simple(o, 1, "new one", group=None)
    reader, run = read(o.write(tmp_path))
    assert numbers(run) == [(1, 1)]
    assert run.algorithm == "ppo"
    it = reader.load(run.iterations[0])
    assert [m.completion for g in it.groups for m in g.members] == ["new one"]


def test_resume_supersedes_cumulatively(tmp_path):
    o = Obs().run()
    for n in (1, 2, 3, 4):
        simple(o, n, f"s0 u{n}")
    o.run(resumed=3)
    simple(o, 4, "s1 u4")
    simple(o, 5, "s1 u5")
    o.run(resumed=1)
    simple(o, 2, "s2 u2")
    reader, run = read(o.write(tmp_path))
    # segment 0 capped at 1 (min(3, 1)), segment 1 capped at 1 too: nothing of it left
    assert numbers(run) == [(1, 0), (2, 2)]
    assert reader.load(run.iterations[1]).groups[0].members[0].completion == "s2 u2"


def test_spec_reader_example_resume(tmp_path):
    o = Obs().run()
    for n in (1, 2, 3):
        o.batch(o.update(n))
    o.run(resumed=1)
    o.batch(o.update(2))
    _, run = read(o.write(tmp_path))
    assert numbers(run) == [(1, 0), (2, 1)]


def test_prompts_are_keyed_per_segment(tmp_path):
    o = Obs().run()
    o.batch(o.prompt("p:0", "segment zero prompt"), o.rollout(1, 0, 0))
    o.batch(o.update(1))
    o.run(resumed=1)
    o.batch(o.rollout(2, 0, 0))  # its prompt record went down with a dropped batch
    o.batch(o.update(2))
    reader, run = read(o.write(tmp_path))
    it = reader.load(run.iterations[1])
    assert it.groups[0].prompt is not None and it.groups[0].prompt.messages is None
    assert any(w.endswith(": update 2: prompt record not received for p:0") for w in it.warnings)
    first = reader.load(run.iterations[0])
    assert first.groups[0].prompt.messages[0].content == "segment zero prompt"


def test_merge_selection_and_outcome(tmp_path):
    o = Obs().run(algorithm="agent_grpo")
    conv = {"completion": None}
    o.batch(
        o.prompt("s:t"),
        o.rollout(
            1,
            0,
            0,
            None,
            prompt="s:t",
            messages=[{"role": "assistant", "content": "a"}],
            prefix=True,
            **{k: v for k, v in conv.items() if v},
        ),
        o.rollout(1, 0, 1, None, prompt="s:t", messages=[{"role": "assistant", "content": "b"}]),
        o.rollout(
            1, 0, 2, None, prompt="s:t", messages=[], eligible=False, trained=False, skip_reason="unscored", reward=None
        ),
        o.rollout(1, 0, 4, None, prompt="s:t", messages=[{"role": "assistant", "content": "d"}]),
    )
    o.batch(
        {
            "type": "selection",
            "update": 1,
            "entries": [
                {"group": 0, "member": 0, "advantage": 0.5, "eligible": True, "skip_reason": None},
                {"group": 0, "member": 1, "advantage": 0.0, "eligible": False, "skip_reason": "zero_signal"},
                {"group": 0, "member": 4, "advantage": -0.5, "eligible": True, "skip_reason": None},
            ],
        }
    )
    o.batch(o.outcome(1, (0, 0, True)))
    o.batch(o.update(1))
    reader, run = read(o.write(tmp_path))
    members = {m.member: m for m in reader.load(run.iterations[0]).groups[0].members}
    assert sorted(members) == [0, 1, 2, 4]  # member gap kept
    assert members[0].trained is True and members[0].advantage == 0.5
    assert members[1].trained is False and members[1].skip_reason == "zero_signal"
    assert members[2].trained is False and members[2].reward is None
    assert members[4].trained is None  # unknown execution: selected, never confirmed
    assert members[4].advantage == -0.5


def test_ppo_null_groups_and_advantage_bounds(tmp_path):
    o = Obs().run(algorithm="ppo")
    o.batch(
        o.prompt("p:2", "two"),
        o.prompt("p:0", "zero"),
        o.rollout(1, None, 0, "x", prompt="p:2", advantage=2.0, advantage_min=1.0, advantage_max=3.0, eligible=True),
        o.rollout(1, None, 1, "y", prompt="p:0", advantage=-1.0, eligible=True),
    )
    o.batch(o.outcome(1, (None, 0, True), (None, 1, True)))
    o.batch(o.update(1))
    reader, run = read(o.write(tmp_path))
    it = reader.load(run.iterations[0])
    assert len(it.groups) == 1 and it.groups[0].id is None
    m0, m1 = it.groups[0].members
    assert (m0.advantage_min, m0.advantage_max) == (1.0, 3.0)
    assert m0.prompt.key == "p:2" and m1.prompt.key == "p:0"
    assert m0.trained is True and m1.trained is True


def test_missing_update_record_is_incomplete(tmp_path):
    o = Obs().run()
    o.batch(o.prompt(), o.rollout(1, 0, 0))
    o.batch(o.update(2))
    _, run = read(o.write(tmp_path))
    assert [(r.number, r.status) for r in run.iterations] == [(1, "incomplete"), (2, "completed")]
    assert run.iterations[0].has_texts and not run.iterations[1].has_texts
    assert any("incomplete update" in w for w in run.warnings)


def test_every_absent_texts_inferred(tmp_path):
    o = Obs().run(every=None)
    simple(o, 1, "a")
    o.batch(o.update(2))
    _, run = read(o.write(tmp_path))
    assert run.every is None
    assert [r.has_texts for r in run.iterations] == [True, False]


def test_null_metrics_dropped_and_dropped_batches_warned(tmp_path):
    o = Obs().run()
    o.batch(o.update(1, reward__mean=None, policy__kl=0.1, observe__dropped_batches=0.0))
    o.batch(o.update(2, reward__mean=0.5, observe__dropped_batches=3.0))
    _, run = read(o.write(tmp_path))
    assert run.metrics.get(1, "reward/mean") is None
    assert run.metrics.get(2, "reward/mean") == 0.5
    assert run.dropped_batches == 3
    assert "3 export batch(es) were dropped" in run.warnings[0]


def test_big_seed_exact_and_cut_text(tmp_path):
    big = 2**53 + 1
    o = Obs().run()
    o.batch(o.prompt(), o.rollout(1, 0, 0, "abc…[+3 chars]", seed=big))
    o.batch(o.update(1))
    reader, run = read(o.write(tmp_path))
    m = reader.load(run.iterations[0]).groups[0].members[0]
    assert m.seed == big and isinstance(m.seed, int)


def test_unknown_types_and_fields_ignored(tmp_path):
    o = Obs().run()
    o.batch({"type": "telemetry", "whatever": 1})
    o.batch(o.prompt(), o.rollout(1, 0, 0, "a", new_field={"x": 1}))
    o.batch(o.update(1))
    reader, run = read(o.write(tmp_path))
    assert numbers(run) == [(1, 0)] and not run.warnings


def test_duplicate_records_last_wins(tmp_path):
    o = Obs().run()
    o.batch(o.prompt("p:0", "first"), o.rollout(1, 0, 0, "first"))
    o.batch(o.prompt("p:0", "second"), o.rollout(1, 0, 0, "second"))
    o.batch(o.update(1, reward__mean=0.1))
    o.batch(o.update(1, reward__mean=0.2))
    reader, run = read(o.write(tmp_path))
    it = reader.load(run.iterations[0])
    assert [m.completion for m in it.groups[0].members] == ["second"]
    assert it.groups[0].prompt.messages[0].content == "second"
    assert run.metrics.get(1, "reward/mean") == 0.2


def test_empty_directory_is_an_empty_export(tmp_path):
    _, run = read(tmp_path)
    assert run.iterations == []


def test_invalid_utf8_replaced_and_warned(tmp_path):
    o = Obs().run()
    simple(o, 1, "PLACEHOLDER")
    d = o.write(tmp_path)
    p = d / "observe.jsonl"
    p.write_bytes(p.read_bytes().replace(b"PLACEHOLDER", b"bad \xff byte"))
    reader, run = read(d)
    assert any("invalid UTF-8" in w for w in run.warnings)
    assert "\ufffd" in reader.load(run.iterations[0]).groups[0].members[0].completion


def test_a_rollout_with_a_bare_nan_is_skipped_and_its_batch_dropped(tmp_path):
    """serde_json refuses a bare NaN: reader.rs skips the line (spec 1.3 rule 3), so its batch
    never completes and is dropped (rule 5); the texts of that update are not shown."""
    o = Obs().run()
    simple(o, 1, "first")
    simple(o, 2, "PLACEHOLDER")
    d = o.write(tmp_path)
    p = d / "observe.jsonl"
    lines = p.read_bytes().split(b"\n")
    (at,) = [i for i, line in enumerate(lines) if b"PLACEHOLDER" in line]
    lines[at], n = re.subn(rb'"reward":[-0-9.e]+', b'"reward":NaN', lines[at])
    assert n == 1
    p.write_bytes(b"\n".join(lines))
    reader, run = read(d)
    assert any("unreadable" in w and "bare NaN" in w for w in run.warnings)
    by_update = {ref.number: ref for ref in run.iterations}
    assert by_update[1].rollouts > 0 and by_update[2].rollouts == 0


def test_step_rewards_and_tool_calls(tmp_path):
    o = Obs().run(algorithm="agent_grpo")
    msgs = [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "call_0", "name": "search", "arguments": {"q": "x"}}],
        },
        {"role": "tool", "content": "no result", "tool_call_id": "call_1", "is_error": True},
        {"role": "assistant", "content": "final"},
    ]
    o.batch(
        o.prompt("s:0"),
        o.rollout(
            1,
            0,
            0,
            None,
            prompt="s:0",
            messages=msgs,
            prefix=False,
            step_rewards=[
                {"step_index": 2, "kind": "tool", "reward": 0.25, "message_indices": [0]},
                {"step_index": 4, "kind": "x", "reward": -1, "message_indices": []},
                # a NaN or infinite step reward, written null: the server filters it out (§5.2)
                {"step_index": 5, "kind": "context", "reward": None, "message_indices": [1]},
            ],
            terminal_reward_raw=1.0,
            judge_explanation="good",
            metadata={"a": {"b": [1, 2]}},
        ),
    )
    o.batch(o.update(1))
    reader, run = read(o.write(tmp_path))
    m = reader.load(run.iterations[0]).groups[0].members[0]
    assert m.prefix is False and m.turns == 2 and m.n_tool_calls == 1 and m.tool_errors == 1
    assert m.messages[0].tool_calls[0].arguments == {"q": "x"}
    assert [s.message_indices for s in m.step_rewards] == [[0], []]
    assert [s.step_index for s in m.step_rewards] == [2, 4]
    assert m.terminal_reward_raw == 1.0 and m.judge_explanation == "good"


def test_input_is_not_modified(tmp_path):
    import hashlib

    from reportgen.site import build

    src = FIXTURES / "observe" / "examples" / "observe.jsonl"
    before = hashlib.sha256(src.read_bytes()).hexdigest()
    build(str(src), tmp_path / "site")
    assert hashlib.sha256(src.read_bytes()).hexdigest() == before


def _scan_everything(directory: Path, jobs: int):
    reader = ObserveReader(Storage(str(directory)))
    reader.notes = []
    run = reader.scan(jobs=jobs)
    its = [
        (r.number, r.segment, r.status, r.rollouts, r.locator, r.notes, sorted(r.headline.items()))
        for r in run.iterations
    ]
    return (
        its,
        run.warnings,
        run.info,
        run.segments,
        run.prompt_index,
        run.metrics.names(),
        reader.notes,
        reader.state(),
        b"".join(reader.metric_rows()),
    )


def _mixed(directory: Path) -> Path:
    """Many updates, resumes, broken and stray batches, duplicates and mixed batches: ranges of any size cut them."""
    o = Obs().run()
    for n in range(1, 40):
        simple(o, n, f"a{n}" * 50, f"b{n}" * 50, "same", "same")
        if n % 7 == 0:  # a batch broken off by the next one, then a stray line
            head = f'{{"v":1,"type":"prompt","segment":0,"batch_id":{1000 + n},"batch_len":3,'
            o.lines.append(head + '"batch_index":0,"key":"k","messages":[]}')
            o.lines.append(head + '"batch_index":1,"key":"k2","messages":[]}')
            if n % 2:
                o.lines.append(head + '"batch_index":2,"key":"k3","messages":[]}'.replace("1000", "9"))
    o.run(resumed=20)
    for n in range(21, 30):
        # rollouts of two updates and an outcome in one batch, a rollout sent twice, a bad update number
        o.batch(
            o.prompt(f"p:{n}"),
            o.rollout(n, 0, 0, "x" * 300),
            o.rollout(n, 0, 1, "y"),
            o.rollout(n + 100, 0, 0, "z"),
            o.rollout(n, 0, 0, "x again"),
            o.outcome(n, (0, 0, True)),
        )
        o.batch(o.update(n, reward__mean=0.25))
    o.lines.append('{"v":1,"type":"rollout","segment":1,"batch_id":999,"batch_index":0,"batch_len":2,"update":true}')
    o.lines.append('{"v":1,"type":"rollout","segment":1,"batch_id":999,"batch_index":1,"batch_len":2,"update":1}')
    return o.write(directory)


def _ppo(directory: Path) -> Path:
    """PPO batches (a prompt per rollout, no groups), and one batch that mixes flat and grouped rollouts."""
    o = Obs().run("ppo")
    for n in range(1, 25):
        o.batch(
            *[o.prompt(f"p:{(n * 3 + i) % 40}", f"question {i}" * 20) for i in range(4)],
            *[o.rollout(n, None, i, f"answer {n}.{i}" * 20, prompt=f"p:{(n * 3 + i) % 40}") for i in range(4)],
        )
        if n % 5 == 0:
            o.batch(o.rollout(n, 0, 0, "grouped", prompt="p:1"), o.rollout(n, None, 9, "flat", prompt="p:1"))
        o.batch(o.update(n))
    return o.write(directory)


def _source(source: str, tmp_path: Path) -> Path:
    """An export to read in pieces: the fixtures, hostile lines (some of 50,000 characters),
    the agentic demo, many updates with resumes and broken batches, or PPO."""
    from .hostile import write_observe

    if source == "examples":
        return FIXTURES / "observe" / "examples"
    if source == "hostile":
        return write_observe(tmp_path / "h", big=50_000)
    if source == "mixed":
        return _mixed(tmp_path / "m")
    if source == "ppo":
        return _ppo(tmp_path / "p")
    return Path(__file__).parent.parent / "reportgen" / "demo" / "agent"


@pytest.mark.parametrize("chunk", [997, 1 << 14])
@pytest.mark.parametrize("source", ["examples", "hostile", "demo", "mixed", "ppo"])
def test_parallel_scan_is_the_serial_scan(source, chunk, tmp_path, monkeypatch):
    """Lines parsed by worker processes, in small or large ranges (where workers summarize complete
    batches) read in pieces, give the same index, warnings and notes as one serial pass."""
    import reportgen.sources.observe as observe

    d = _source(source, tmp_path)
    serial = _scan_everything(d, 1)
    monkeypatch.setattr(observe, "_PARALLEL_MIN", 0)
    monkeypatch.setattr(observe, "_CHUNK", chunk)  # ranges that start and end inside lines
    monkeypatch.setattr(observe, "_MIN_RANGE", chunk)
    monkeypatch.setattr(observe, "_RANGE_PIECE", 331)  # and a worker's pieces too
    parallel = _scan_everything(d, 3)
    assert parallel == serial


def _load_everything(directory: Path) -> list[tuple[Any, ...]]:
    from reportgen.views.logtree_export import logtree_bytes

    reader = ObserveReader(Storage(str(directory)))
    run = reader.scan()
    out = []
    for ref in run.iterations:
        if ref.has_texts:
            it = reader.load(ref)
            out.append((ref.number, it.warnings, logtree_bytes(run, it, ref.page), ref.rollouts, ref.groups))
    reader.close()
    return out


@pytest.mark.parametrize("piece", [1, 331])
@pytest.mark.parametrize("source", ["examples", "hostile", "demo", "mixed", "ppo"])
def test_load_in_small_pieces_is_load_in_one(source, piece, tmp_path, monkeypatch):
    """load() reads an update a piece at a time: pieces that end inside lines, inside a
    character of several bytes, or inside a line longer than many pieces (hostile's 50,000
    characters) give the same members as pieces of a MiB."""
    import reportgen.sources.observe as observe

    d = _source(source, tmp_path)
    whole = _load_everything(d)
    assert whole
    monkeypatch.setattr(observe, "_RANGE_PIECE", piece)
    assert _load_everything(d) == whole


def test_whole_lines_cuts_after_newlines_and_joins_long_lines_once():
    from reportgen.sources.observe import _whole_lines

    data = b"ab\ncdefgh\n\nijklmnopqrstu\nvw"
    for size in range(1, len(data) + 2):
        pieces = [data[i : i + size] for i in range(0, len(data), size)]
        blocks = list(_whole_lines(pieces))
        assert b"".join(blocks) == data
        assert all(b.endswith(b"\n") for b in blocks[:-1]) and blocks[-1] == b"vw"
    assert list(_whole_lines([b"abc", b"def", b"g\nh"])) == [b"abcdefg\n", b"h"]
    assert list(_whole_lines([b"a\n"])) == [b"a\n"]
    assert list(_whole_lines([])) == []


def test_workers_summarize_complete_batches():
    import reportgen.sources.observe as observe

    o = Obs().run()
    simple(o, 1, "a", "b", "c")
    lines = []
    rest = observe._classify_lines(o.text().encode(), lines)
    assert rest == b""
    out = observe._summarize_batches(lines)
    kinds = [code for _, code, _ in out]
    # the run record is a batch of one (kept as a line); prompt + 3 rollouts, outcome and update are batches
    assert kinds == [observe._OK, observe._BATCH, observe._OK, observe._OK]
    total, records = out[1][2]
    assert total == 4 and [r[0][0] for r in records] == ["prompt", observe._RUN]
    # prompt keys of grouped rollouts, then flat ones; the group's key once for its 3 members
    assert records[1][0][6] == [3, ["p:0"], []]


def test_parallel_scan_error_names_the_line(tmp_path, monkeypatch):
    import reportgen.sources.observe as observe

    o = Obs().run()
    for n in range(1, 30):
        simple(o, n, "a" * 300, "b" * 300)
    data = o.text().encode() + b'{"v":2,"type":"run","segment":9,"batch_id":0,"batch_index":0,"batch_len":1}\n'
    (tmp_path / "observe.jsonl").write_bytes(data)
    monkeypatch.setattr(observe, "_PARALLEL_MIN", 0)
    monkeypatch.setattr(observe, "_CHUNK", 512)
    monkeypatch.setattr(observe, "_MIN_RANGE", 512)
    with pytest.raises(InputError) as e:
        ObserveReader(Storage(str(tmp_path))).scan(jobs=2)
    assert e.value.line == data.count(b"\n")


def test_ppo_prompts_in_the_updates_own_batch_are_not_read_again(tmp_path):
    """PPO: a prompt per rollout. Prompts written in the update's own batch are taken from the
    records load() parsed with its rollouts; prompts written by earlier updates are read from
    the file. A prompt key written twice resolves to the record the scan found last."""
    o = Obs().run("ppo")
    o.batch(
        *[o.prompt(f"p:{i}", f"question {i}") for i in range(6)],
        *[o.rollout(1, None, i, f"a{i}", prompt=f"p:{i}") for i in range(6)],
    )
    o.batch(o.update(1))
    o.batch(
        *[o.prompt(f"p:{i}", f"question {i}") for i in range(6, 9)],
        *[o.rollout(2, None, i, f"b{i}", prompt=f"p:{i + 3}") for i in range(6)],
    )
    o.batch(o.update(2))
    o.batch(o.prompt("p:7", "question 7, again"))
    reader, run = read(o.write(tmp_path))
    spans: list[tuple[int, int]] = []
    read_span = reader._read_pieces

    def spy(span):
        spans.append(span)
        return read_span(span)

    reader._read_pieces = spy  # type: ignore[method-assign]
    it = reader.load(run.iterations[1])
    prompts = {m.prompt.key: m.prompt.messages[0].content for g in it.groups for m in g.members}
    expected = {f"p:{i}": f"question {i}" for i in range(3, 9)}
    expected["p:7"] = "question 7, again"
    assert prompts == expected
    # the rollout batch, then p:3, p:4, p:5 (earlier batch) and p:7 (a later record)
    assert len(spans) == 1 + 3 + 1 and reader._batch_prompts == {}
    assert not it.warnings


def test_metric_table_fill_equals_setting_each_value():
    """``MetricTable.fill`` (the scan's bulk path) gives the table, column order included, that
    ``row_for`` and ``set`` give value by value: gaps, short rows, rows without metrics, and
    columns whose first value comes late."""
    import math
    import random
    from array import array

    from reportgen.model import MetricTable

    rng = random.Random(6)
    for _ in range(50):
        names = [f"m/{i}" for i in range(rng.randint(0, 8))]
        steps = sorted(rng.sample(range(1, 100), rng.randint(0, 12)))
        rows = []
        for _s in steps:
            if rng.random() < 0.15:
                rows.append(None)
                continue
            k = rng.randint(0, len(names))
            rows.append(array("d", [rng.choice([math.nan, rng.uniform(-5, 5)]) for _ in range(k)]))
        times = [rng.choice([None, float(s)]) for s in steps]
        slow = MetricTable()
        for step, t, row in zip(steps, times, rows):
            r = slow.row_for(step, t)
            for i, v in enumerate(row or []):
                if not math.isnan(v):
                    slow.set(r, names[i], v)
        fast = MetricTable()
        fast.fill(steps, times, rows, names)
        assert list(fast.columns) == list(slow.columns)
        assert {k: [x if x == x else None for x in v] for k, v in fast.columns.items()} == {
            k: [x if x == x else None for x in v] for k, v in slow.columns.items()
        }
        assert (fast.steps, fast.times, len(fast)) == (slow.steps, slow.times, len(slow))
        assert all(fast.get(s, n) == slow.get(s, n) for s in steps for n in names)


def test_a_restored_scan_takes_up_updates_that_grow(tmp_path):
    """A rebuild restores the scan's index (prompt ids kept sorted, metric rows as JSON) and
    reads on: an update whose rollouts go on in the appended batches gets its new prompt
    keys, and the index, prompt links and state equal those of one full scan."""
    import json

    o = Obs().run()
    o.batch(o.prompt("p:2"), o.prompt("p:1"), o.rollout(1, 0, 0, prompt="p:2"), o.rollout(1, 0, 1, prompt="p:2"))
    o.batch(o.update(1, reward__mean=0.5, loss=None))
    o.batch(o.rollout(2, 0, 0, prompt="p:1"))
    head = o.text()
    o.batch(o.rollout(1, 1, 0, prompt="p:1"), o.rollout(2, 1, 0, prompt="p:2"), o.rollout(1, 2, 0, prompt="p:2"))
    o.batch(o.update(2, reward__mean=0.25))
    src = tmp_path / "src"
    src.mkdir()
    (src / "observe.jsonl").write_text(head)
    first = ObserveReader(Storage(str(src)))
    first.scan()
    saved = json.loads(json.dumps(first.state()))  # through JSON, as the state file
    rows = b"".join(first.metric_rows())
    assert len(rows) == 8 * sum(n for n in saved["updates"]["row"] if n is not None) > 0
    (src / "observe.jsonl").write_text(o.text())
    again = ObserveReader(Storage(str(src)))
    assert again.restore(saved, rows)
    grown = again.scan()
    fresh_reader = ObserveReader(Storage(str(src)))
    fresh = fresh_reader.scan()
    assert again.state() == fresh_reader.state()
    assert b"".join(again.metric_rows()) == b"".join(fresh_reader.metric_rows())
    assert grown.prompt_index == fresh.prompt_index == {"p:1": [1, 2], "p:2": [1, 2]}
    assert [(r.number, r.rollouts) for r in grown.iterations] == [(1, 4), (2, 2)]
    u = again._updates[(0, 1)]
    assert u.prompt_ids.tolist() == sorted(set(u.prompt_ids)) and u.tidy
    # a state whose rows or key ids are not what the scan writes is not taken up
    bads: list[Any] = [
        ("row", "x"),
        ("row", -1),
        ("row", 10**6),
        ("row", 1.5),
        ("keys", [1.5]),
        ("keys", [99]),
        ("keys index", 10**6),
        ("spans index", -1),
        ("short column", "status"),
        ("short column", "seconds"),
        ("seconds", "2026-03-14T09:00:14.626Z"),
    ]
    for what, value in bads:
        broken = json.loads(json.dumps(saved))
        ups = broken["updates"]
        assert ups["keys"] and ups["spans"]
        if what == "row":
            ups["row"][0] = value
        elif what == "keys":
            ups["keys"][0][1] = value
        elif what == "keys index":
            ups["keys"][0][0] = value
        elif what == "spans index":
            ups["spans"][0][0] = value
        elif what == "seconds":
            ups["seconds"][0] = value
        else:
            ups[value].pop()
        assert not ObserveReader(Storage(str(src))).restore(broken, rows), what
    # nor rows that are not the state's: too few, or some left over
    for other in (rows[:-8], rows + bytes(8), b""):
        assert not ObserveReader(Storage(str(src))).restore(saved, other)


def test_classified_lines_match_the_careful_path_line_by_line(tmp_path):
    """Lines are found by their newlines (not by bytes.split): every kind of line keeps its
    size without the newline and the careful path's answer, and the bytes after the last
    newline come back as the rest; load() finds each record at its own offset."""
    import random

    import reportgen.sources.observe as observe

    o = Obs().run()
    simple(o, 1, "a\nb", "c")
    good = [line.encode() for line in o.text().splitlines()]
    kinds = good + [
        b"",
        b"   ",
        b"\r",
        b"\t \r",
        b"{bad",
        good[1] + b"\r",
        b"[1, 2]",
        b'{"v":2,"type":"run","segment":0,"batch_id":0,"batch_index":0,"batch_len":1}',
        b'{"v":1,"type":"run","segment":true,"batch_id":0,"batch_index":0,"batch_len":1}',
        b"\xff\xfe" + good[2][2:],
        b"null",
    ]
    rnd = random.Random(7)
    for _ in range(300):
        chosen = [rnd.choice(kinds) for _ in range(rnd.randint(0, 8))]
        ends = rnd.random() < 0.5
        data = b"\n".join(chosen) + (b"\n" if ends and chosen else b"")
        out: list = []
        rest = observe._classify_lines(data, out)
        whole = chosen if ends or not chosen else chosen[:-1]
        assert rest == (b"" if ends or not chosen else chosen[-1])
        assert [size for size, _, _ in out] == [len(x) for x in whole]
        for (_size, code, detail), x in zip(out, whole):
            if not x.strip():
                assert code == observe._BLANK
            else:
                assert (code, detail) == observe._classify(x)
    # load() reads a span's records at their offsets: blank and broken lines between them
    data = b"\n".join([good[0], b"", b"  \r", good[1], b"{bad", good[2]]) + b"\n"
    (tmp_path / "observe.jsonl").write_bytes(data)
    reader = ObserveReader(Storage(str(tmp_path)))
    starts = [start for start, _end, _ in reader._iter_records((0, len(data)))]
    assert starts == [0, data.index(good[1]), data.rindex(good[2])]


def test_prompt_spans_packed_or_not_read_the_same(tmp_path, monkeypatch):
    """The index keeps a prompt's span as one integer, or as a tuple when it does not fit: a
    reader whose every span is a tuple loads the same texts, and its state restores the
    same index."""
    import reportgen.sources.observe as observe

    assert observe._unpack_span(observe._pack_span(5, 5)) == (5, 5)
    big = (1 << 34) + 3
    assert observe._unpack_span(observe._pack_span(big, big + (1 << 28) - 1)) == (big, big + (1 << 28) - 1)
    for span in ((0, 1 << 28), (1 << 35, (1 << 35) + 1)):  # a line past 256 MiB, an offset past 32 GiB
        assert observe._pack_span(*span) == span and observe._unpack_span(span) == span
    for source in ("demo", "ppo", "mixed"):
        d = _source(source, tmp_path / source)
        packed = _load_everything(d)
        with monkeypatch.context() as m:
            m.setattr(observe, "_SPAN_MASK", 3)  # every prompt line is longer: tuples
            reader = ObserveReader(Storage(str(d)))
            reader.scan()
            spans = [v for seg in reader._prompts.values() for _i, v in seg.items()]
            assert spans and all(isinstance(v, tuple) for v in spans)
            assert _load_everything(d) == packed
            again = ObserveReader(Storage(str(d)))
            assert again.restore(orjson.loads(orjson.dumps(reader.state())), b"".join(reader.metric_rows()))
            assert {seg: dict(v.items()) for seg, v in again._prompts.items()} == {
                seg: dict(v.items()) for seg, v in reader._prompts.items()
            }


def test_a_segments_prompt_spans_by_key_id():
    """Packed spans in an array by key id, a span that does not pack beside it; a later
    record of a key replaces the earlier one, whichever form either takes."""
    from reportgen.sources.observe import _Spans

    spans = _Spans()
    spans[3] = 7
    spans[0] = 0  # offset 0, length 0 packs to 0: still a span, not "none"
    assert [spans.get(i) for i in range(5)] == [0, None, None, 7, None]
    assert spans.get(9, "none") == "none"
    spans[3] = (1, 2)
    spans[5] = (8, 9)
    assert spans.get(3) == (1, 2) and list(spans.items()) == [(0, 0), (3, (1, 2)), (5, (8, 9))]
    spans[3] = 11
    assert spans.get(3) == 11 and list(spans.items()) == [(0, 0), (3, 11), (5, (8, 9))]


def test_scan_workers_fit_the_memory_budget(monkeypatch):
    """Each scan worker counts the main process's pages again: 8 asked for on a machine of
    8 cores get as many as fit 400 MiB summed (8 summed 375-393 MiB on updates of 55 MiB)."""
    from reportgen.sources import observe

    monkeypatch.setattr(observe, "rss", lambda: 26 << 20)
    assert observe.scan_workers_for_memory(8, 8 << 20) == 6  # (400 - 26 - 64) // (26 + 24)
    assert observe.scan_workers_for_memory(2, 8 << 20) == 2
    assert observe.scan_workers_for_memory(8, 2 << 20) == 8  # a rebuild's small ranges
    monkeypatch.setattr(observe, "rss", lambda: 300 << 20)  # a main process near the budget
    assert observe.scan_workers_for_memory(8, 8 << 20) == 1


def test_stdlib_parsed_lines_read_numbers_as_orjson_does():
    """A line orjson refuses (a NaN) is read by the stdlib parser; its integers past orjson's
    range then read as orjson reads them in a strict line (floats, null past a float's range),
    so the same number never reads two ways, and every value can be written out again."""
    from reportgen.sources.jsonl import LineError, json_text, nan_to_null, parse_line

    big = (
        b'{"a": NaN, "b": 1000000000000000000000000000000, "c": [18446744073709551615, -9223372036854775808, -9223372036854775809, {"d": 1'
        + b"0" * 400
        + b"}]}"
    )
    value, replaced = parse_line(big)
    assert not replaced and value["a"] != value["a"]
    assert value["b"] == 1e30 and type(value["b"]) is float
    assert value["c"][:2] == [2**64 - 1, -(2**63)] and type(value["c"][2]) is float and value["c"][3] == {"d": None}
    strict, _ = parse_line(b'{"b": 1000000000000000000000000000000}')
    assert strict["b"] == value["b"]
    # an observe line: serde_json refuses a bare NaN or Infinity (the writer writes null)
    for token in (b"NaN", b"Infinity", b"-Infinity"):
        with pytest.raises(LineError, match="bare .*Infinity|bare NaN"):
            parse_line(b'{"a": ' + token + b', "b": 1}', constants=False)
    assert parse_line(big.replace(b"NaN", b"null"), constants=False)[0]["b"] == 1e30
    assert nan_to_null({"x": [float("nan"), float("inf"), 1.5]}) == {"x": [None, None, 1.5]}
    deep = '{"a":' * 1024 + "1" + "}" * 1024
    assert json_text(parse_line(deep.encode())[0]) == deep
    # deeper than orjson reads, with or without a NaN: not readable (views recurse into
    # values; a 20,000-level line ended in an internal RecursionError)
    for line in ('{"a":' * 1025 + "1" + "}" * 1025, '{"n":NaN,"d":' + "[" * 5000 + "]" * 5000 + "}"):
        with pytest.raises(LineError, match="nested deeper than 1,024 levels"):
            parse_line(line.encode())


@pytest.mark.parametrize(
    "packer, kind",
    [("gzip", "gzip-compressed"), ("bz2", "bzip2-compressed"), ("lzma", "xz-compressed"), ("zip", "zip")],
)
def test_a_compressed_export_is_named_for_what_it_is(tmp_path, packer, kind):
    """Before, a gzipped export read as hundreds of unreadable lines and built an empty site."""
    import bz2
    import gzip
    import io
    import lzma
    import zipfile

    from reportgen.resources import demo_dir

    raw = (demo_dir() / "grpo" / "observe.jsonl").read_bytes()
    if packer == "zip":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("observe.jsonl", raw)
        data = buf.getvalue()
    else:
        data = {"gzip": gzip.compress, "bz2": bz2.compress, "lzma": lzma.compress}[packer](raw)
    (tmp_path / "observe.jsonl").write_bytes(data)
    with pytest.raises(InputError, match=f"a {kind} file, not JSON lines") as e:
        ObserveReader(Storage(str(tmp_path))).scan()
    assert "observe.jsonl" in str(e.value)


def test_a_folder_holding_only_a_compressed_export_says_so(tmp_path):
    from reportgen.sources.detect import open_source

    (tmp_path / "observe.jsonl.gz").write_bytes(b"\x1f\x8b\x08\x00")
    with pytest.raises(InputError, match=r"observe\.jsonl\.gz is here: decompress it first"):
        open_source(str(tmp_path))


def test_lines_without_a_single_record_are_another_file(tmp_path):
    """A file of lines none of which is a record (a tinker metrics.jsonl, a log) is an error
    naming its first line; bad lines among records stay warnings."""
    (tmp_path / "observe.jsonl").write_bytes(b'{"step": 0, "loss": 1.5}\n{"step": 1, "loss": 1.2}\n')
    with pytest.raises(InputError, match=r"none of its 2 line\(s\) is an observe record") as e:
        ObserveReader(Storage(str(tmp_path))).scan()
    assert "observe.jsonl:1" in str(e.value)
    (tmp_path / "observe.jsonl").write_bytes(b"\n\n")  # blank: an empty export, as before
    assert ObserveReader(Storage(str(tmp_path))).scan().iterations == []
    o = Obs().run("grpo", group_size=1)
    o.batch(o.prompt("p:0", "q"), o.rollout(1, 0, 0, prompt="p:0"))
    o.batch(o.update(1))
    src = o.write(tmp_path / "mixed")
    with open(src / "observe.jsonl", "ab") as f:
        f.write(b"not json\n")
    run = ObserveReader(Storage(str(src))).scan()
    assert len(run.iterations) == 1 and any("1 unreadable or stray line" in w for w in run.warnings)


def test_a_run_read_as_dot_is_titled_by_its_folder(tmp_path, monkeypatch):
    """`reportgen build .` inside runs/42 titles the site 42, not "."; runs/42/observe too."""
    from reportgen.resources import demo_dir
    from reportgen.sources.detect import open_source

    run = tmp_path / "42" / "observe"
    run.mkdir(parents=True)
    (run / "observe.jsonl").write_bytes((demo_dir() / "grpo" / "observe.jsonl").read_bytes())
    monkeypatch.chdir(run)
    assert open_source(".").scan().title == "42"
    monkeypatch.chdir(tmp_path / "42")
    assert open_source(".").scan().title == "42"
    assert open_source("observe/observe.jsonl").scan().title == "42"


def test_records_with_an_update_number_no_writer_makes_are_counted(tmp_path, monkeypatch):
    """Update -3 or "x" cannot come from the trainer: such records are skipped, as before, but
    now said (a warning, and one problem per record for `reportgen check`), by the serial scan
    and by the workers' (whose consecutive rollouts of one update come as one record)."""
    from reportgen.check import check
    from reportgen.sources import observe

    o = Obs().run("grpo", group_size=2)
    o.batch(o.prompt("p:0", "q"), o.rollout(1, 0, 0, prompt="p:0"), o.rollout(1, 0, 1, prompt="p:0"))
    o.batch(o.update(1))
    o.batch(o.prompt("p:1", "q"), o.rollout(-3, 0, 0, prompt="p:1"), o.rollout(-3, 0, 1, prompt="p:1"))
    o.batch(o.update("x"))
    src = o.write(tmp_path / "src")
    monkeypatch.setattr(observe, "_PARALLEL_MIN", 0)
    monkeypatch.setattr(observe, "_MIN_RANGE", 64)
    for jobs in (1, 2):
        run = ObserveReader(Storage(str(src))).scan(jobs=jobs)
        assert [r.number for r in run.iterations] == [1]
        assert any("3 record(s) with an update number no writer makes" in w for w in run.warnings), run.warnings
    report = check(str(src))
    assert sum(p.kind == "bad update number" for p in report.problems) == 3


def test_metric_names_past_the_bound_are_counted_not_kept(tmp_path, monkeypatch):
    """Names that change every update (a series per task) grew the dense table with the square
    of the run; past MAX_METRIC_NAMES they are counted and named in a warning, and a rebuild
    that takes up the scan still knows them."""
    import reportgen.model as model_mod
    import reportgen.sources.observe as observe_mod
    from reportgen.site import build

    monkeypatch.setattr(observe_mod, "MAX_METRIC_NAMES", 4)
    monkeypatch.setattr(model_mod, "MAX_METRIC_NAMES", 4)
    o = Obs().run()
    for n in range(1, 5):
        o.batch(o.update(n, reward__mean=n / 10, **{f"env__task_{n}_{k}": float(k) for k in range(2)}))
    src = o.write(tmp_path / "src")
    run = ObserveReader(Storage(str(src))).scan()
    # the first 4 names met (the file's order): update 1's three and task 2's first
    assert sorted(run.metrics.columns) == ["env/task_1_0", "env/task_1_1", "env/task_2_0", "reward/mean"]
    assert run.metrics.left_out == 5
    said = [w for w in run.warnings if "distinct metric names" in w]
    assert said == [
        "more than 4 distinct metric names: 5 values of the later names are left out of the charts and "
        "downloads (the first: env/task_2_1, env/task_3_0, env/task_3_1, env/task_4_0, env/task_4_1)"
    ]
    site = tmp_path / "site"
    first = build(str(src), site)
    assert said[0] in first.warnings
    o.batch(o.update(5, env__task_5_0=1.0))
    (src / "observe.jsonl").write_text(o.text())  # the run appended its update 5
    again = build(str(src), site)
    assert again.reused > 0 or again.rendered == 0
    assert any("6 values of the later names" in w for w in again.warnings), again.warnings
    header = (site / "metrics.csv").read_text().splitlines()[0]
    assert "env/task_2_1" not in header and "reward/mean" in header


def test_headline_and_chart_metrics_are_kept_past_the_bound(tmp_path, monkeypatch):
    """A run logging a series per task meets thousands of "env/..." names before "reward/mean"
    (its writer's order): the headline and chart metrics are kept past the bound all the same,
    on the index's charts and in metrics.csv; only the per-task names are left out."""
    import reportgen.model as model_mod
    import reportgen.sources.observe as observe_mod
    from reportgen.site import build

    monkeypatch.setattr(observe_mod, "MAX_METRIC_NAMES", 4)
    monkeypatch.setattr(model_mod, "MAX_METRIC_NAMES", 4)
    o = Obs().run()
    for n in range(1, 4):
        tasks = {f"env__task_{n}_{k}": float(k) for k in range(5)}
        o.batch(o.update(n, **tasks, policy__kl=0.01 * n, reward__mean=n / 10, reward__std=0.1))
    src = o.write(tmp_path / "src")
    run = ObserveReader(Storage(str(src))).scan()
    assert {"reward/mean", "reward/std", "policy/kl"} <= set(run.metrics.columns)
    assert run.metrics.get(3, "reward/mean") == pytest.approx(0.3)
    assert [r.headline.get("reward/mean") for r in run.iterations] == pytest.approx([0.1, 0.2, 0.3])
    assert len(run.metrics.columns) == 4 + 3
    site = tmp_path / "site"
    build(str(src), site)
    header = (site / "metrics.csv").read_text().splitlines()[0]
    assert "reward/mean" in header and "policy/kl" in header and "env/task_3_4" not in header
    assert "reward/mean ± std" in (site / "index.html").read_text()  # its chart
    data = (site / "metrics_data.js").read_text()
    assert '"reward/mean"' in data and '"policy/kl"' in data


def test_lines_longer_than_a_piece_across_the_scan_workers_ranges(tmp_path, monkeypatch):
    """The scan's workers read their ranges a piece at a time, and the line crossing a range's
    start or end a piece at a time too (readline() held a line of 60 MiB whole): with pieces
    of 16 bytes and ranges of 64, the same index as the serial scan."""
    from reportgen.sources import observe

    o = Obs().run("grpo", group_size=3)
    for n in range(1, 6):
        o.batch(
            o.prompt(f"p:{n}", "q" * (n * 37)),
            *[o.rollout(n, 0, m, "long " * (50 * m + n), prompt=f"p:{n}") for m in range(3)],
        )
        o.batch(o.update(n, reward__mean=n / 10))
    src = o.write(tmp_path / "src")
    monkeypatch.setattr(observe, "_PARALLEL_MIN", 0)
    monkeypatch.setattr(observe, "_MIN_RANGE", 64)
    monkeypatch.setattr(observe, "_RANGE_PIECE", 16)
    runs = [ObserveReader(Storage(str(src))).scan(jobs=jobs) for jobs in (1, 2)]
    for run in runs:
        assert [(r.number, r.rollouts) for r in run.iterations] == [(n, 3) for n in range(1, 6)]
        assert run.warnings == []
    reader = ObserveReader(Storage(str(src)))
    ref = reader.scan(jobs=2).iterations[4]
    assert [m.completion for m in reader.load(ref).groups[0].members] == ["long " * (50 * m + 5) for m in range(3)]


def test_metric_rows_whatever_the_order_and_the_types_of_the_names(tmp_path, monkeypatch):
    """The scan's workers pack an update's metrics (names, values) and the main process takes
    a row in one copy when the names come as before: names in another order, new names,
    missing names, values that are not finite numbers (null, a bool, a string, 1e400) and
    names past the bound give the values a name-by-name reading gives, serially and in
    parallel, with `check`'s notes of non-finite values at their lines."""
    import math

    import reportgen.model as model_mod
    import reportgen.sources.observe as observe_mod

    monkeypatch.setattr(observe_mod, "MAX_METRIC_NAMES", 5)
    monkeypatch.setattr(model_mod, "MAX_METRIC_NAMES", 5)
    lines = [
        {"a": 1.0, "b": 2.0},
        {"a": 3.0, "b": 4.0},  # the same names: one copy
        {"b": 5.0, "a": 6.0},  # another order
        {"a": 7, "c": True, "b": None, "d": "x"},  # an int, a bool, a null, a string
        {"a": 8.5, "c": 1.5},  # b missing
        {"e": 2.5, "a": 12345.678, "f": 3.0, "g": 4.0},  # written 1e400: infinite; f, g past the bound
        {"e": 2.5, "a": 1.0, "f": 3.0, "g": 4.0},  # the same names again: f and g left out again
    ]
    o = Obs().run()
    for n, m in enumerate(lines, 1):
        o.batch({"type": "update", "update": n, "status": "completed", "metrics": m})
    src = tmp_path / "src"
    src.mkdir()
    (src / "observe.jsonl").write_text(o.text().replace("12345.678", "1e400"))
    lines[5]["a"] = math.inf

    def want(name: str, m: dict[str, Any]) -> float | None:
        v = m.get(name)
        if type(v) not in (int, float) or isinstance(v, bool) or not math.isfinite(v):
            return None
        return float(v)

    for jobs in (1, 2):
        monkeypatch.setattr(observe_mod, "_PARALLEL_MIN", 0 if jobs > 1 else 1 << 40)
        monkeypatch.setattr(observe_mod, "_MIN_RANGE", 64)
        reader = ObserveReader(Storage(str(src)))
        reader.notes = []
        run = reader.scan(jobs=jobs)
        # d, which never had a number, takes a place in the bound but no column
        assert sorted(run.metrics.columns) == ["a", "b", "c", "e"]
        for row, m in enumerate(lines):
            for name in "abce":
                got = run.metrics.columns[name][row]
                assert (None if math.isnan(got) else got) == want(name, m), (jobs, row, name)
        assert run.metrics.left_out == 4  # f and g, twice
        noted = sorted((n[0], n[2]) for n in reader.notes if n[1] == "non-finite metric")
        assert [msg for _line, msg in noted] == ["b = null", "a = inf"]  # updates 4 and 6


def test_serial_and_parallel_scans_agree_on_a_batch_of_grouped_and_flat_rollouts(tmp_path, monkeypatch):
    """The main process assembles a batch's rollouts into runs of one update as a scan worker
    summarizes a batch it holds whole (a batch of one update of 200 MiB held 160 MiB of line
    records until its last line): both scans give one state, prompt key ids included, for a
    batch whose rollouts of one update mix groups and no group."""
    from reportgen.sources import observe

    o = Obs().run("grpo", group_size=2)
    o.batch(
        o.prompt("p:0", "q"),
        o.rollout(1, None, 0, prompt="p:own"),  # a key without a group before a new one with
        o.rollout(1, 0, 0, prompt="p:new"),
        o.rollout(1, 0, 1, prompt="p:new"),
        o.rollout(1, None, 1, prompt=None),
    )
    for n in range(1, 30):  # the rest of the file: the batch above lies whole in the first range
        o.batch(o.update(n))
    src = o.write(tmp_path / "src")
    monkeypatch.setattr(observe, "_PARALLEL_MIN", 0)
    monkeypatch.setattr(observe, "_MIN_RANGE", 64)
    summarized = []  # batches a worker sent whole
    real = observe.ObserveReader._classified

    def counted(self, offset, jobs):
        for line in real(self, offset, jobs):
            if line[1] == observe._BATCH:
                summarized.append(line)
            yield line

    monkeypatch.setattr(observe.ObserveReader, "_classified", counted)
    states = []
    for jobs in (1, 2):
        reader = ObserveReader(Storage(str(src)))
        run = reader.scan(jobs=jobs)
        assert run.iterations[0].rollouts == 4
        states.append((reader.state(), b"".join(reader.metric_rows())))
    assert summarized, "the parallel scan's workers did not run"
    assert states[0] == states[1]


def test_bad_update_numbers_are_noted_at_their_own_lines(tmp_path):
    """A run of rollouts with an update number no writer makes (assembled as one record) gets
    a note a rollout, at its own line."""
    from reportgen.check import check

    o = Obs().run("grpo", group_size=3)
    o.batch(o.prompt("p:0", "q"), *(o.rollout(-3, 0, m, prompt="p:0") for m in range(3)))
    o.batch(o.update(1))
    report = check(str(o.write(tmp_path / "src")))
    assert [p.line for p in report.problems if p.kind == "bad update number"] == [3, 4, 5]


def test_notes_inside_a_batch_count_its_blank_and_unreadable_lines(tmp_path):
    """A batch whose lines are interrupted by a blank or unreadable line is still read
    (reader.rs skips such lines); a problem met after them is noted at its own line, not
    at the batch's first line plus its batch index."""
    from reportgen.check import check

    o = Obs().run("grpo", group_size=3)
    o.batch(o.prompt("p:0", "q"), *(o.rollout(-3, 0, m, prompt="p:0") for m in range(3)), o.update(1, loss=None))
    # lines: 1 run, 2 prompt, then the rollouts and the update; a blank line before the
    # second rollout and one that is not JSON before the third
    o.lines[3:3] = [""]
    o.lines[5:5] = ["{not json"]
    src = o.write(tmp_path / "src")
    text = (src / "observe.jsonl").read_text().splitlines()
    rollout_lines = [i + 1 for i, line in enumerate(text) if '"rollout"' in line]
    update_line = next(i + 1 for i, line in enumerate(text) if '"type":"update"' in line)
    assert rollout_lines == [3, 5, 7]
    report = check(str(src))
    assert [p.line for p in report.problems if p.kind == "bad update number"] == rollout_lines
    assert [p.line for p in report.problems if p.kind == "unreadable line"] == [6]
    assert any(
        n.endswith(f"loss: 1 NaN or infinite value(s) (line {update_line}); charts leave them out")
        for n in report.notes
    )


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_header_of_batch_len_0_breaks_the_open_batch_and_a_typeless_line_keeps_its_place(tmp_path, jobs, monkeypatch):
    """reader.rs reads a line by its header (v, segment, batch_id, batch_index, batch_len;
    spec §1.3 rules 3 and 5): batch_len 0 is a header that does not continue the open batch
    (broken off) and cannot start one (skipped), so the next line of the broken batch is a
    stray; a line of no "type" is a line of its batch, which completes, and is ignored as a
    type not known (§1.1). A "type" that spells the scan's own kind of rollout runs is a type
    not known either (it raised IndexError)."""
    import reportgen.sources.observe as ob

    monkeypatch.setattr(ob, "_PARALLEL_MIN", 0)  # with jobs=2, through the scan workers
    o = Obs().run()
    o.batch(o.prompt(), o.rollout(1, 0, 0, "lost"), o.rollout(1, 0, 1, "lost too"))
    o.lines.insert(3, '{"batch_id":9,"batch_index":0,"batch_len":0,"segment":0,"type":"update","update":1,"v":1}')
    o.batch(o.update(1, reward__mean=0.5))
    o.batch(o.prompt(), o.rollout(2, 0, 0, "kept"), o.rollout(2, 0, 1, "kept too"))
    typeless = orjson.loads(o.lines[-1])
    typeless.pop("type")
    o.lines[-1] = orjson.dumps(typeless).decode()  # member 1 becomes a line of no type
    o.batch(o.update(2, reward__mean=0.5))
    o.batch({"type": "\x00rollouts", "update": 2})
    d = o.write(tmp_path)
    reader = ObserveReader(Storage(str(d)))
    run = reader.scan(jobs=jobs)
    assert numbers(run) == [(1, 0), (2, 0)]
    text = " ".join(run.warnings)
    assert "2 unreadable or stray line(s)" in text and "1 batch(es) broken off" in text, text
    assert [r.has_texts for r in run.iterations] == [False, True]
    it = reader.load(run.iterations[1])
    assert [m.completion for g in it.groups for m in g.members] == ["kept"]


def test_missing_first_update_numbers_are_missing_numbers(tmp_path):
    """Updates are numbered from 1, a resumed segment's from K + 1 (spec §2, §1.4): a run
    whose first updates have no record says they are missing, as it says of a gap."""
    o = Obs().run(every=5)
    o.batch(o.update(2, reward__mean=0.5))
    o.batch(o.update(3, reward__mean=0.5))
    _, run = read(o.write(tmp_path / "fresh"))
    assert any("1 update number(s) are missing from the list" in w and w.endswith(": 1.") for w in run.warnings)
    r = Obs().run(resumed=None)
    r.batch(r.update(1))
    r.run(resumed=4)
    r.batch(r.update(7))
    _, run = read(r.write(tmp_path / "resumed"))  # 1, then a resume from 4 at 7: 2-6 missing
    assert any("5 update number(s) are missing from the list" in w and w.endswith(": 2-6.") for w in run.warnings)
    ok = Obs().run(resumed=4)
    ok.batch(ok.update(5))
    _, run = read(ok.write(tmp_path / "resumed_first"))
    assert not any("missing from the list" in w for w in run.warnings)
