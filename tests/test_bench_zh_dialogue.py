"""benchmarks/zh_dialogue_memory.py cannot rot: its memory and questions are well formed, and a
run with the real bundled embedder scores every system (the embedder finds more than keywords do:
the set is built so that few words are shared)."""

from __future__ import annotations

import pytest

from bench_helpers import load_benchmark

zd = load_benchmark("zh_dialogue_memory")


def test_every_conversation_has_its_own_note_and_the_rest_answer_nothing():
    files, targets = zd.notes()
    data = load_benchmark("zh_dialogue_data")
    assert len(files) == len(data.CASES) + len(data.OTHERS) and len(set(targets)) == len(data.CASES)
    for (memory, turns), path in zip(data.CASES, targets):
        assert files[path].strip() == f"- {memory}" and len(turns) == 3
    assert len(zd.queries()) == 2 * len(data.CASES)


@pytest.mark.semantic
def test_a_run_scores_every_system(tmp_path):
    scores, ms = zd.run(tmp_path)
    assert set(scores) == {"reverie hybrid", "reverie keyword-only", "BM25 over the notes"}
    for per in scores.values():
        assert set(per) == {"all", "last message", "whole dialogue"}
        assert all(0.0 <= r1 <= r5 <= 1.0 for r1, r5 in per.values())
    assert scores["reverie hybrid"]["all"][1] > scores["reverie keyword-only"]["all"][1]
    assert all(len(v) == 2 * len(zd.D.CASES) for v in ms.values())
