"""Verbs that frame a question ("get", "make", "put", "take", "go") weigh a fifth of a word in the keyword
query (search/keyword.py ``LIGHT_VERBS``): a line sharing only such a verb no longer holds as much of the
question as one sharing what it is about. Found on a memory written blind (benchmarks/no_memory_fresh_data.py):
"When do I get my teeth checked?" ranked "Vet said Biscuit … should get 2 cups of kibble a day" first, its
one shared word "get" a third of the question's keyword coverage."""

from __future__ import annotations

from reverie.search.keyword import LIGHT_WEIGHT

NOTES = {
    "memory/2026-03-01.md": "# 2026-03-01\n\n- Biscuit should get more kibble\n",
    "memory/2026-03-02.md": "# 2026-03-02\n\n- Teeth cleaning booked for March 14 with Dr. Okafor at the clinic on "
                            "Elm Street, the one near the old library and the bakery\n",
    "memory/2026-03-03.md": "# 2026-03-03\n\n- Repainted the hallway a pale green\n- Ordered new curtains\n",
    "memory/2026-03-04.md": "# 2026-03-04\n\n- Lunch with Priya at the noodle bar\n",
    # (a second line of teeth: "teeth" is then commoner in this memory than "get", and weighed alike the
    # kibble line would hold the rarer word of the question)
    "memory/2026-03-05.md": "# 2026-03-05\n\n- Whitening strips made my teeth sensitive for a week\n",
}


def _first(m, query: str) -> dict:
    out = m.search(query, explain=True, record_signals=False)
    assert out["mode"] == "keyword-only" and out["results"]
    return out["results"][0]


def test_a_line_sharing_only_a_light_verb_ranks_below_the_one_sharing_the_topic(keyword_memory):
    m = keyword_memory(NOTES)
    hits = m.search("When do I get my teeth checked?", explain=True, record_signals=False)["results"]
    order = [h["snippet"] for h in hits]
    kibble = next(i for i, s in enumerate(order) if "kibble" in s)
    assert all(i < kibble for i, s in enumerate(order) if "teeth" in s.lower()), order
    coverage = [h["explain"]["keyword"]["coverage"] for h in hits]
    assert coverage[kibble] < min(c for c, s in zip(coverage, order) if "teeth" in s.lower()) * 2 * LIGHT_WEIGHT


def test_a_question_of_light_verbs_only_still_finds_them(keyword_memory):
    m = keyword_memory(NOTES)
    assert "kibble" in _first(m, "what should he get?")["snippet"]
