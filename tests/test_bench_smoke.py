"""The benchmarks cannot rot: a short run of each completes and produces well-formed figures.

Neither touches the LoCoMo data (its licence keeps it out of tests): the retrieval benchmark runs
on a tiny conversation written here in LoCoMo's format.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench_helpers import load_benchmark


def _load(name: str):
    return load_benchmark(name, name)


def _tiny_locomo(path: Path) -> None:
    turns1 = [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey cat named Pixel last week."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I started learning the violin."},
        {"speaker": "Ana", "dia_id": "D1:3", "text": "We booked a lake-view hotel in Hangzhou for May."},
    ]
    turns2 = [
        {"speaker": "Ben", "dia_id": "D2:1", "text": "My violin teacher moved to Berlin, so lessons are online now."},
        {"speaker": "Ana", "dia_id": "D2:2", "text": "Pixel knocked my coffee over the keyboard again.",
         "blip_caption": "a grey cat on a laptop"},
    ]
    sample = {
        "sample_id": "conv-smoke",
        "conversation": {
            "speaker_a": "Ana", "speaker_b": "Ben",
            "session_1": turns1, "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_2": turns2, "session_2_date_time": "10:37 am on 27 June, 2023",
        },
        "qa": [
            {"question": "What is the name of Ana's cat?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
            {"question": "Where did Ben's violin teacher move?", "answer": "Berlin", "evidence": ["D2:1"], "category": 4},
            {"question": "Which city is the hotel in?", "answer": "Hangzhou", "evidence": ["D1:3"], "category": 1},
            {"question": "When did Ana adopt her cat?", "answer": "May 2023", "evidence": ["D1:1; D9:9"], "category": 2},
            {"question": "What did Ben's cat do?", "adversarial_answer": "x", "evidence": ["D2:2"], "category": 5},
        ],
    }
    path.write_text(json.dumps([sample]), encoding="utf-8")


@pytest.mark.semantic
def test_locomo_benchmark_smoke(tmp_path: Path) -> None:
    pytest.importorskip("bm25s")
    bench = _load("locomo_retrieval")
    data = tmp_path / "locomo.json"
    _tiny_locomo(data)
    out = tmp_path / "report.md"
    result = bench.main([str(data), "--variants", "400/80,60/12", "--work", str(tmp_path / "work"),
                         "--out", str(out), "--ablations"])
    table = result["table"]
    systems = {s for (_, s) in table}
    assert {"reverie hybrid", "reverie keyword-only", "reverie vector-only", "BM25 over single turns (FTS5 porter)",
            "dense e5-small over single turns", "RRF of that BM25 and dense",
            "reverie hybrid, without MMR"} <= systems
    for (variant, system), row in table.items():
        assert row["n"] == 4, (variant, system)  # categories 1-4 only; the malformed D9:9 is dropped
        for col in bench.ALL_COLUMNS:
            v = row["overall"][col]
            assert 0.0 <= v <= 1.0 and not math.isnan(v), (system, col, v)
        o = row["overall"]
        assert o["any@1"] <= o["any@10"] <= o["any@20"]
        assert o["read@500"] <= o["read@1000"] <= o["read@2000"]
    # on five turns every retriever that returns anything finds the evidence within 20 results, and
    # reverie's snippets show it within 500 tokens
    hybrid = table[("400/80", "reverie hybrid")]["overall"]
    assert hybrid["any@20"] == 1.0 and hybrid["read@500"] == 1.0
    text = out.read_text(encoding="utf-8")
    assert bench.REPORT_START in text and "| reverie hybrid |" in text and "Relevance gaps" in text
    # a second run reuses cached embeddings: nothing is embedded again
    again = bench.main([str(data), "--variants", "400/80", "--work", str(tmp_path / "work"), "--no-report"])
    assert again["stats"]["400/80"]["embedded"] == 0 and again["stats"]["peers"]["embedded"] == 0


def test_perf_benchmark_smoke(tmp_path: Path) -> None:
    perf = _load("perf")
    out = tmp_path / "bench.md"
    result = perf.main(["--only", "scale", "--sizes", "1000", "--work", str(tmp_path / "work"), "--out", str(out)])
    (row,) = result["rows"]
    assert row["chunks"] > 700
    assert row["noop_reindex_s"] < row["first_index_s"] * 5
    for key in ("hybrid_ms", "keyword_ms", "vector_ms", "get_ms"):
        p50, p95 = row[key]
        assert 0 < p50 <= p95, key
    assert 1.5 <= row["edit_to_searchable_s"] < 30  # the watcher waits out its 1.5 s debounce first
    assert "numpy brute force" in row["peers"] and "FTS5 trigram (+LIKE for short CJK)" in row["peers"]
    assert result["embedder"]["passage_tokens_per_s"] > 0
    text = out.read_text(encoding="utf-8")
    assert perf.REPORT_START in text and "| chunks (units) |" in text


@pytest.mark.semantic
def test_embed_load_benchmark_smoke() -> None:
    _load("perf")
    embed_load = _load("embed_load")
    result = embed_load.run(queries=2, rounds=1, passages=1)
    rows = result["rows"]
    assert [(r["condition"], r["config"].split()[0]) for r in rows] == [
        ("idle", "before"), ("idle", "after"), ("under load", "before"), ("under load", "after")]
    for r in rows:
        assert r["queries"] == 2 and 0 < r["query_p50"] <= r["query_p95"] <= r["query_max"]
        assert r["tokens_per_s"] > 0
    before, after = rows[0]["engine"], rows[1]["engine"]
    assert before["spinCount"] == "300000" and before["waitPolicySource"] == "user"
    assert after["waitPolicy"] == "PASSIVE" and after["waitPolicySource"] == "reverie"
    assert "| under load | after" in embed_load.render(result, 1.0, "cmd")


@pytest.mark.semantic
def test_oneshot_benchmark_smoke(tmp_path: Path) -> None:
    _load("perf")
    oneshot = _load("oneshot")
    ((label, result),) = oneshot.run(runs=1, work=tmp_path, notes=3, warm=2)
    assert label == "this code"
    for name in oneshot.COMMANDS:
        assert len(result[name]) == 1 and result[name][0] > 0
    assert result["phases"]["import the CLI"] > 0 and "search: query embedding" in result["phases"]
    assert len(result["warm"]["search_ms"]) == 2
    assert isinstance(result["mcp"], list) and len(result["mcp"]) == 2, result["mcp"]
    text = oneshot.render([("this code", result)], 1.0, "cmd")
    assert "| `reverie search QUERY` |" in text and "MCP `memory_search`" in text



def test_engines_benchmark_smoke(pg_dsn) -> None:
    """The whole search on both engines, side by side: same workspace, every note's vector found
    in the cache (no misses), hybrid answers, figures in order (random stand-in vectors, no model)."""
    import numpy as np

    engines = _load("perf_engines")
    note_text = _load("note_text")
    rng = np.random.default_rng(1)

    def unit(n: int):
        v = rng.standard_normal((n, 384)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    qtexts = note_text.queries(8)
    res = engines.run([300], pg_dsn, procs=(2,), vectors=lambda n: (unit(n), 0),
                      queries=lambda: (qtexts, unit(len(qtexts))), progress=lambda *_: None)
    sqlite, pg = res["rows"]
    assert (sqlite["engine"], pg["engine"]) == ("sqlite", "postgres")
    assert sqlite["units"] == pg["units"] == 300 and sqlite["misses"] == pg["misses"] == 0
    assert sqlite["settle_s"] == 0 and pg["settle_s"] > 0  # PostgreSQL's index vacuumed before the searches
    for row in res["rows"]:
        p50, p95 = row["hybrid_ms"]
        assert 0 < p50 <= p95
        assert row["modes"] == ["hybrid"]
        assert row["concurrent"][0]["procs"] == 2 and row["concurrent"][0]["qps"] > 0
        assert len(row["answers"]) == len(qtexts) and any(row["answers"])
    body = engines.render(res, "smoke")
    assert "| sqlite |" in body and "| postgres |" in body and "the same on both engines: 300 notes" in body
    assert "each PostgreSQL index was settled" in body


def test_engines_benchmark_keeps_its_indexes_and_measures_them_again(pg_dsn, tmp_path) -> None:
    """``--pg-keep``: the first run builds and keeps the indexes, the second measures the same
    indexes without building them (its sync writes nothing) and gives the same answers."""
    import numpy as np

    engines = _load("perf_engines")
    note_text = _load("note_text")
    rng = np.random.default_rng(2)
    vecs = rng.standard_normal((200, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    qtexts = note_text.queries(6)
    qvecs = vecs[:len(qtexts)] * 0.9 + 0.1 * vecs[-len(qtexts):]
    kw = dict(procs=(2,), vectors=lambda n: (vecs[:n], 0), queries=lambda: (qtexts, qvecs),
              progress=lambda *_: None, keep=tmp_path / "keep")
    first = engines.run([200], pg_dsn, **kw)
    assert (tmp_path / "keep" / "sqlite-200" / engines.KEPT).exists()
    again = engines.run([200], pg_dsn, **kw)
    for a, b in zip(first["rows"], again["rows"]):
        assert "reused" not in a and b["reused"] and b["resync_units"] == 0
        assert b["index_s"] == a["index_s"] and b["answers"] == a["answers"]
    assert "(kept index, built " in engines.render(again, "smoke")


def test_month_life_benchmark_smoke(monkeypatch, tmp_path: Path) -> None:
    """A month through the sidecar with nightly Dreaming (the fake embedder): what must never
    happen does not -- a secret promoted, in a trigger, injected or sent to the reranker, the web
    page's instruction promoted, a line more trusted after export and import."""
    from reverie import plugins

    monkeypatch.setenv("REVERIE_HOME", str(tmp_path / "home"))  # run() points it at its own home
    monkeypatch.setitem(plugins.BUILTIN[plugins.RERANKERS], "recorder", "month_life:recorder")
    bench = load_benchmark("month_life")
    r = bench.run("fake")
    assert r["promoted"] > 0 and r["sweeps"] == 30 and r["rerankerTexts"] > 0
    assert not (r["promotedSecrets"] or r["triggerSecrets"] or r["injectedSecrets"] or r["rerankedSecrets"]), r
    assert r["webPromoted"] is False
    assert r["raised"] == [] and r["linesCompared"] > 0
    assert "| promoted entries that read as clean facts |" in bench.render(r)


def test_month_life_counts_the_later_story_of_a_matter_told_twice() -> None:
    # updates_fresh_data_3.py tells one dentist's story in English (day 8) and again in Chinese (day 21):
    # the Chinese value counts as the newest for the English question too; the English value does not
    # count for the Chinese question (it was said earlier)
    bench = load_benchmark("month_life")
    saved = list(bench.UPDATES)
    try:
        bench.UPDATES[:] = bench.more_updates(Path(bench.__file__).parent / "updates_fresh_data_3.py")
        assert bench.UPDATES[0][2] < bench.UPDATES[24][2]
        assert bench.newest_words(0) == [bench.UPDATES[0][5], bench.UPDATES[24][5]]
        assert bench.newest_words(24) == [bench.UPDATES[24][5]]
        assert bench.newest_words(1) == [bench.UPDATES[1][5]]
    finally:
        bench.UPDATES[:] = saved
        bench.TWINS.clear()


def test_month_life_reads_where_the_owner_lives_as_one_matter() -> None:
    # the built-in updates tell where the owner lives twice (Munich then Berlin, 上海 then 杭州): the later move
    # (杭州, day 22) is the newest answer to the English question too, not the reverse
    bench = load_benchmark("month_life")
    (berlin, hangzhou) = (j for j, u in enumerate(bench.UPDATES) if u[5] in ("Berlin", "杭州"))
    assert bench.UPDATES[berlin][2] < bench.UPDATES[hangzhou][2]
    assert bench.newest_words(berlin) == ["Berlin", "杭州"] and bench.newest_words(hangzhou) == ["杭州"]


def test_newest_pairs_benchmark_smoke(tmp_path: Path) -> None:
    """The judged result lists through the order: every case judged once, as the reader's wanted row or
    not, and the report counts what the verdicts say."""
    bench = load_benchmark("newest_pairs")
    out = tmp_path / "verdicts.json"
    judged = bench.main(["--json", str(out), "--pad", "8"])
    assert len(judged) == 80 and {c["kind"] for c in judged} == {"trap", "update"}
    assert all(c["right"] == (c["first"] == c["want"]) for c in judged)
    assert json.loads(out.read_text(encoding="utf-8"))[0]["id"] == judged[0]["id"]
    report = bench.render(judged, Path("d.py"), Path("src"), 1.0, 8)
    resisted = sum(c["right"] for c in judged if c["kind"] == "trap")
    assert f"**{resisted} / 40**" in report and "filled to 8 rows" in report
    assert len(bench.rows_of(judged[0], 8)) == max(8, len(judged[0]["rows"]))
    # the second and third sets, written blind, read as the first does (their verdicts are counted here, never listed)
    for name in ("newest_pairs_data_2.py", "newest_pairs_data_3.py"):
        later = bench.main(["--data", str(Path(bench.__file__).parent / name)])
        assert len(later) == 80 and {c["kind"] for c in later} == {"trap", "update"}
        assert all(0 <= c["want"] < len(c["rows"]) for c in later)


def test_no_memory_benchmark_reads_another_set_all_held_out() -> None:
    """``--data``: a set written blind is asked whole as held out, each answerable question pointing at
    its own note's line; the benchmark's own set is left as it was (its quarter held out)."""
    bench = load_benchmark("no_memory")
    fresh = bench.load_data(bench.HERE / "no_memory_fresh_data.py")
    files, answerable, unanswerable = bench.build(fresh)
    assert len(answerable) == 60 and len(unanswerable) == 60
    assert all(q["held"] for q in answerable + unanswerable)
    notes = dict((q, n) for n, q in fresh.HELDOUT_FACTS_EN + fresh.HELDOUT_FACTS_ZH)
    for a in answerable:
        assert files[a["path"]].splitlines()[a["line"] - 1] == f"- {notes[a['q']]}"
    _, own, own_un = bench.build()
    assert (len(own), len(own_un)) == (80, 80) and sum(q["held"] for q in own + own_un) == 40


def test_month_kept_benchmark_asks_a_kept_home_with_the_tree_named(tmp_path: Path) -> None:
    """A home asked the month's updated facts again, in a child process searching with the source tree
    named (the check that it did is the benchmark's own); a folder that is no kept home is refused."""
    import subprocess
    import sys

    from reverie import Memory

    home = tmp_path / "kept"
    mem = Memory(home=home, overrides=['memory.search.provider="none"'])
    mem.init()
    mem.remember("We moved: we live in Berlin now, in Kreuzberg.")
    mem.close()
    script = str(Path(__file__).resolve().parents[1] / "benchmarks" / "month_kept.py")
    src = Path(__file__).resolve().parents[1] / "src"
    done = subprocess.run([sys.executable, script, f"{home}:-", "--src", str(src), "--misses"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    counted = [line for line in lines if line.startswith(f"{src}  kept: ")]
    assert counted and counted[0].endswith(" of 10"), done.stdout
    assert sum(1 for line in lines if line.startswith("    - ")) == 10 - int(counted[0].split(": ")[1].split()[0])
    refused = subprocess.run([sys.executable, script, f"{tmp_path}:-"], capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "kept home" in refused.stderr


def test_latency_ab_benchmark_smoke(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, str(root / "benchmarks" / "latency_ab.py"), "--before", str(root / "src"),
                           "--size", "300", "--rounds", "2", "--work", str(tmp_path), "--no-report"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith(("| hybrid ", "| keyword-only "))]
    assert len(rows) == 2, done.stdout
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        before, now = (tuple(float(x) for x in cell.split(" / ")) for cell in cells[1:3])
        assert 0 < before[0] <= before[1] and 0 < now[0] <= now[1]
        assert len(cells[4].split(", ")) == 2  # every round shown
    assert (tmp_path / "before" / "workspace" / "MEMORY.md").exists() and (tmp_path / "now" / "workspace").is_dir()
    # two bad inputs, each one clear line
    bad = subprocess.run([sys.executable, str(root / "benchmarks" / "latency_ab.py"), "--before", str(tmp_path)],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "holds no reverie package" in bad.stderr
