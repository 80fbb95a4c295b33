"""benchmarks/long_history.py cannot rot: its histories are deterministic and well formed, its
measures score a perfect and an empty ranking as they should, and the BM25 anchor runs (no
embedder: the reverie rows are exercised by the search tests)."""

from __future__ import annotations

from datetime import timedelta

from bench_helpers import load_benchmark

lh = load_benchmark("long_history")


def test_histories_are_deterministic_and_their_evidence_exists():
    a, b = lh.build_history("zh", 3), lh.build_history("zh", 3)
    assert a.files == b.files and a.questions == b.questions
    assert lh.build_history("zh", 4).files != a.files
    for h in (a, lh.build_history("en", 0)):
        assert len(h.files) == 50 and len(h.questions) == 13
        assert {q["type"] for q in h.questions} == set(lh.TYPES)
        for q in h.questions:
            assert q["ev"] and all(p in h.files for p in q["ev"]), q
            assert len(q["ev"]) <= 5  # every question can be answered within five notes
        assert max(h.sessions) < f"memory/{h.now:%Y-%m-%d}.md"  # asked after the last session


def test_long_sessions_hold_more_lines_and_the_same_kinds_of_questions():
    short, long = lh.build_history("en", 2), lh.build_history("en", 2, "long")
    assert long.files != short.files and long.files == lh.build_history("en", 2, "long").files
    lines = lambda h: sum(t.count("\n") for t in h.files.values()) / len(h.files)  # noqa: E731
    assert lines(long) > 2.5 * lines(short)
    assert {q["type"] for q in long.questions} == set(lh.TYPES)
    assert all(p in long.files for q in long.questions for p in q["ev"])


def test_long_turns_say_the_same_things_in_fewer_longer_messages():
    """``--chatty``: the same questions; every line said is still in its session, user lines merged into
    messages, every reply followed by more tips."""
    for lang in ("en", "zh"):
        plain, chatty = lh.build_history(lang, 2), lh.build_history(lang, 2, chatty=True)
        assert chatty.questions == plain.questions and chatty.files == lh.build_history(lang, 2, chatty=True).files
        user, assistant = lh.ROLE[lang]
        count = lambda h: sum(len(t.splitlines()) for t in h.files.values())  # noqa: E731
        assert count(chatty) < 0.8 * count(plain)
        for path, text in plain.files.items():
            lines = [line for line in text.splitlines() if line]
            long_lines = [line for line in chatty.files[path].splitlines() if line]
            for line in lines:  # every statement still said, in a message of the same speaker
                role = user if line.startswith(user) else assistant
                assert any(m.startswith(role) and line[len(role):] in m for m in long_lines), (path, line)
        replies = [m for t in chatty.files.values() for m in t.splitlines() if m.startswith(assistant)]
        assert replies and all("1) " in m and "3) " in m for m in replies)


def test_a_last_month_question_has_its_evidence_in_the_previous_month():
    for seed in range(6):
        h = lh.build_history("en", seed)
        prev = h.now.replace(day=1) - timedelta(days=1)
        for q in h.questions:
            if q.get("mode") == "last_month":
                assert all(p.startswith(f"memory/{prev:%Y-%m}-") for p in q["ev"]), q


def test_measures_of_a_perfect_and_an_empty_ranking():
    hs = [lh.build_history("en", 1)]
    perfect = [list(q["ev"]) + [p for p in hs[0].sessions if p not in q["ev"]][:15] for q in hs[0].questions]
    got = lh.score_long(hs, perfect)
    assert got["overall"][1:3] == (1.0, 1.0)
    assert lh.score_long(hs, [[] for _ in perfect])["overall"][1:3] == (0.0, 0.0)
    pools = lh.crosslang_pools()
    qs = [q for _, questions in pools for q in questions]
    assert len(qs) == 208 and sum(q["cross"] for q in qs) == 104
    cross = lh.score_cross([[q["path"]] for q in qs])
    assert cross["cross-language (all)"] == (104, 1.0, 1.0)


def test_the_bm25_anchor_ranks_whole_sessions():
    h = lh.build_history("zh", 0)
    ranked = lh.bm25_anchor([h])
    assert len(ranked) == len(h.questions) and all(len(r) == 20 for r in ranked)
    single = [r for r, q in zip(ranked, h.questions) if q["type"] == "single-session-user"]
    assert single and all(r[0] in q["ev"] for r, q in zip(single, [q for q in h.questions
                                                                 if q["type"] == "single-session-user"]))
