"""An honest "no memory": the relevance floor (docs/search.md, "Nothing found").

``minScore`` alone cannot say "nothing in memory is about this": the bundled embedder's cosines
crowd into 0.7–0.95, so an unrelated question still finds notes at 0.36–0.45. The floor asks of
the *best* candidate whether it stands out at all, on evidence that means the same for every
workspace, and when it does not the answer is empty (no lexical fill either):

* **hybrid**: how far the best unit's cosine stands above the typical candidate's (the median of
  the candidates' cosines), as a share of the way from there to 1, plus ``COVERAGE_WEIGHT`` times
  the best unit's keyword coverage (a question that names the note's rare words). An unrelated
  question is about as close to every note; an answered one stands out. The bar is calibrated per
  embedder (the embedder's ``relevance_floor``); an embedder that has none is not floored. A unit
  holding (nearly) every word of the question (coverage ``WHOLE_QUESTION``) passes whatever the
  vectors say: a topic the memory talks about often ("What phone carrier am I with?" among many
  lines about the phone) stands out of nothing, yet memory plainly holds it. Judged only in a
  memory of at least ``MIN_UNITS`` units, among at least ``MIN_POOL`` candidates with a vector: in
  a memory of a handful of notes the median is one of them, and nothing is floored; in a larger
  one a question near few units (many short notes: the best windows bring a dozen) is judged
  among those few.
* **keyword-only**: the best unit's keyword coverage (the IDF-weighted share of the query's tokens
  it holds, words the index never saw included) against ``KEYWORD_FLOOR``; where the question's
  characters were read (search/loose.py), ``loose.WEIGHT`` times the share of them a unit holds
  counts as its coverage too ("今天去爬了香山" answers "我二月去哪里爬山了？" with no word in common),
  and a stated taste on the topic of a request for advice ``taste.TOPIC_WEIGHT`` ("I prefer quiet
  mountain villages" answers "What kind of holiday should I book?").

A path match (the query names a file) always passes. Off unless ``memory.search.query.noMemoryFloor``
is set (and at minScore 0): it also loses some loosely worded answerable questions.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from . import vouched
from .candidates import Candidate

MIN_UNITS = 24  # units in memory (and candidates with a vector) needed before the vector side judges
MIN_POOL = 8  # ... in a memory that large, a question few units are near still judged among so many
COVERAGE_WEIGHT = 0.15  # hybrid: the keyword coverage's share in the evidence
WHOLE_QUESTION = 0.9  # hybrid: a unit holding (nearly) every word of the question passes whatever the vectors say
KEYWORD_FLOOR = 0.08  # keyword-only: the best unit's coverage (measured: benchmarks/no_memory.py)


@dataclass
class Evidence:
    stand_out: float | None  # how far the best cosine stands out (None: not judged)
    coverage: float  # the best unit's keyword coverage
    vector_floor: float | None
    keyword_floor: float | None
    passed: bool

    def debug(self) -> dict:
        r = lambda x: None if x is None else round(float(x), 4)  # noqa: E731
        out = {"coverage": r(self.coverage), "passed": self.passed}
        if self.stand_out is not None:
            out["standOut"] = r(self.stand_out)
            out["evidence"] = r(self.stand_out + COVERAGE_WEIGHT * self.coverage)
        out["floor"] = r(self.vector_floor if self.stand_out is not None else self.keyword_floor)
        return out


def judge(pool: list[Candidate], vector_floor: float | None, keyword_floor: float | None,
          use_vectors: bool, use_kw: bool, units: int = 0) -> Evidence:
    """Whether the best candidate of ``pool`` is evidence of a memory about the query. A floor of
    None or 0 is off; with both sides off everything passes. ``units``: how many units the memory
    holds (the vector side judges a pool of ``MIN_POOL`` candidates in a memory of ``MIN_UNITS``).
    A question of one word that a unit holds passes by ``WHOLE_QUESTION``: memory does speak of it."""
    if any(c.specificity for c in pool):
        return Evidence(None, 0.0, vector_floor, keyword_floor, True)
    coverage = max((c.kw_unit for c in pool if c.kw is not None), default=0.0) if use_kw else 0.0
    if use_kw and not use_vectors:  # keyword-only: the question's characters held, a taste on its topic
        coverage = max(coverage, max((vouched.evidence(c) for c in pool), default=0.0))
    stand_out = None
    cosines = [c.vector_raw for c in pool if c.vector_raw is not None] if use_vectors else []
    if len(cosines) >= MIN_UNITS or (units >= MIN_UNITS and len(cosines) >= MIN_POOL):
        typical = statistics.median(cosines)
        stand_out = (max(cosines) - typical) / max(1e-6, 1.0 - typical)
    vf = vector_floor if vector_floor else None
    kf = keyword_floor if keyword_floor else None
    if use_vectors:
        if vf is None or stand_out is None:  # not calibrated, or too few notes to judge: as before
            return Evidence(stand_out, coverage, vf, kf, True)
        return Evidence(stand_out, coverage, vf, kf,
                        stand_out + COVERAGE_WEIGHT * coverage >= vf or coverage >= WHOLE_QUESTION)
    return Evidence(stand_out, coverage, vf, kf, kf is None or coverage >= kf)
