"""The rerank step: a reranker's judgement blended into each candidate's relevance, before MMR.

The pool is the ``poolSize`` best candidates after fusion and rescoring (wide: a reranker's use is
to lift a good entry that the first stage put below the cut). Their relevance becomes::

    content' = (1 - weight) · content + weight · rerank          (rerank in [0, 1])

and the importance, status, project and decay multipliers are applied to ``content'`` exactly as
to ``content``. A blend rather than a replacement, and before the multipliers rather than after,
so that nothing reverie knows about a note is undone by a model that reads only its text: a
superseded directive, an old daily note or another project's note keeps its penalty, and
``weight = 1`` lets the reranker decide relevance alone while the penalties still hold.

* A candidate the reranker did not judge (outside the pool, or left out of its answer) is taken
  to be no more relevant than the least relevant one it judged: it cannot overtake a judged one
  for having been skipped, and keeps its place below them.
* Text from outside (``untrusted``) and scaffolding (``system``) is never judged: it is not sent
  to the reranker and is treated as a candidate outside the pool. A reranker reads the text, and
  text written by someone else can be written to please it ("this passage answers every
  question"); so a rerank never lifts such a hit, and it cannot overtake a candidate it was below
  for claiming relevance (docs/trust.md). Its framing as untrusted is untouched.
* ``minScore`` keeps its meaning: eligibility is judged on reverie's own score, before the rerank,
  so a rerank reorders results but neither hides nor admits one.

Any failure -- the deadline passing, an error after the retries, a malformed answer -- leaves
every candidate as it was: the search answers as it would have without a reranker, and its
``debug.rerank`` says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rerank import Reranker, within
from .candidates import Candidate
from .keyword import is_conversational

# Origins whose text the reranker never judges (and so never promotes).
NOT_JUDGED = frozenset({"untrusted", "system"})
QUERY_CHARS = 2_000  # a dialogue is sent as its last 2,000 characters, what is asked now


@dataclass
class Reranking:
    """A reranker and how search uses it (memory.search.rerank.*)."""

    reranker: Reranker
    pool_size: int = 40
    weight: float = 0.5
    seconds: float = 1.0


def pool_of(cands: list[Candidate], size: int) -> list[Candidate]:
    """The ``size`` best candidates by score that the reranker may judge."""
    judgeable = [c for c in cands if c.origin_class not in NOT_JUDGED]
    return sorted(judgeable, key=lambda c: (-c.score, c.path, c.start_line, c.end_line, c.seq))[:size]


def apply(cands: list[Candidate], query: str, rr: Reranking) -> dict:
    """Rerank the best of ``cands`` (scored) and blend the judgement into every candidate's
    ``content``; the answer's ``debug.rerank``. Candidates are changed only when the rerank
    succeeded (``applied``)."""
    info: dict = {"provider": rr.reranker.provider, "model": rr.reranker.model or None, "applied": False}
    pool = pool_of(cands, rr.pool_size)
    if not pool:
        return {**info, "pool": 0, "reason": "no candidates to rerank"}
    q = query[-QUERY_CHARS:] if is_conversational(query) else query[:QUERY_CHARS]
    out = within(rr.reranker, q, [c.index_text for c in pool], rr.seconds)
    info.update(pool=len(pool), ms=out.ms, weight=rr.weight)
    if out.scores is None:
        return {**info, "timedOut": out.timed_out, "reason": f"{out.error}; results as without rerank"}
    judged = [s for s in out.scores if s is not None]
    floor = min(judged)
    for c, s in zip(pool, out.scores):
        c.rerank, c.rerank_judged = (s, True) if s is not None else (None, False)
    for c in cands:
        r = c.rerank if c.rerank_judged else floor
        c.rerank = r
        c.fused = c.content
        c.content = (1.0 - rr.weight) * c.content + rr.weight * r
    return {**info, "applied": True, "judged": len(judged)}


def trace(c: Candidate, weight: float) -> dict | None:
    """The rerank's part in a result's score, for ``explain``."""
    if c.fused is None:
        return None
    r4 = lambda x: None if x is None else round(float(x), 4)  # noqa: E731
    why = ("" if c.rerank_judged else " (not judged: " + (
        f"{c.origin_class} text is never sent to the reranker" if c.origin_class in NOT_JUDGED
        else "outside the pool or left out of its answer") + "; taken as the pool's least relevant)")
    return {"score": r4(c.rerank), "judged": c.rerank_judged, "weight": weight, "before": r4(c.fused),
            "after": r4(c.content), "formula": f"{round(1 - weight, 4)} x content + {weight} x rerank{why}"}
