"""A search result's ``explain`` trace (see reverie.search.pipeline) as rows of small bar charts.

Each row is drawn by the search template as an inline SVG (presentation attributes only: the
page's CSP allows no inline styles): the two legs, the merge as a stacked bar of their weighted
parts, every multiplier on a 0-1.5 scale with a tick at 1 (neutral), the score before decay
against the ``minScore`` threshold, the final score, and the MMR step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..search.counting import lowered_because
from ..search.keyword import members_note
from ..search.rescore import QUESTION_LIFTS

WIDTH = 220  # pixels of a full bar
MULTIPLIER_SCALE = 1.5


@dataclass
class Segment:
    x: int
    width: int
    css: str


@dataclass
class BarRow:
    label: str
    value: str
    note: str = ""
    segments: list[Segment] = field(default_factory=list)
    tick: int | None = None  # x of a reference mark (threshold, or 1.0 for a multiplier)
    tick_label: str = ""
    empty: bool = False


def px(fraction: float, scale: float = 1.0) -> int:
    return max(0, min(WIDTH, round(WIDTH * (fraction / scale))))


def bar(label: str, value: float | None, css: str, note: str = "", *, scale: float = 1.0,
         tick: float | None = None, tick_label: str = "", digits: int = 3) -> BarRow:
    if value is None:
        return BarRow(label, "–", note or "not found by this leg", empty=True)
    row = BarRow(label, f"{value:.{digits}f}", note, [Segment(0, px(value, scale), css)])
    if tick is not None:
        row.tick, row.tick_label = px(tick, scale), tick_label
    return row


def _multiplier(label: str, value: float | None, note: str) -> BarRow:
    v = 1.0 if value is None else float(value)
    css = "up" if v > 1.0 else ("down" if v < 1.0 else "neutral")
    row = bar(label, v, css, note, scale=MULTIPLIER_SCALE, tick=1.0, tick_label="×1", digits=2)
    row.value = f"×{v:.2f}"
    return row


def _rank(leg: dict) -> str:
    """', rank #N' when the leg ranked the unit (the vector leg's trace may not say: never '#None')."""
    return f", rank #{leg['rank']}" if leg.get("rank") is not None else ""


def _keyword_note(k: dict, lo: dict | None = None) -> str:
    """The keyword leg's parts; a unit found only through its window or file has no bm25 of its own.
    ``lo``: the question's characters it holds and whether it is a note of the days asked
    (search/loose.py, search/days_asked.py), which set a floor under the leg."""
    lifted = bool(lo and (lo.get("share") or lo.get("dayAsked")))
    if k.get("bm25") is None:
        note = (f"through its context: window {k.get('window') or 0:.2f}, file {k.get('file') or 0:.2f}"
                if not lifted else "no word of its own")
    else:
        note = f"bm25 {k['bm25']:.2f}, coverage {k.get('coverage') or 0:.2f}" + _rank(k)
        note += "" if k.get("allTerms") else ", not every term"
    if lifted:
        note += f"; holds {lo['share']:.2f} of the question's characters"
        note += ", a note of the days asked" if lo.get("dayAsked") else ""
    if k.get("members"):  # a head word held through a member of its kind (text/kinds.py)
        note += "; " + members_note(k["members"])
    return note


def rows(hit: dict, min_score: float) -> list[BarRow]:
    """The bar rows for one result of ``Memory.search(..., explain=True)``."""
    ex = hit.get("explain") or {}
    out: list[BarRow] = []
    v, k, p = ex.get("vector"), ex.get("keyword"), ex.get("path")
    out.append(bar("vector leg", v and v["calibrated"], "vector",
                    f"cosine {v['cosine']:.3f}" + _rank(v) if v else ""))
    out.append(bar("keyword leg", k and k["score"], "keyword", _keyword_note(k, ex.get("loose")) if k else ""))
    if p:
        out.append(bar("path leg", p["score"], "path", f"exact tier {p['exactTier']}"))
    merge = ex.get("merge") or {}
    content = float(merge.get("content") or 0.0)
    formula = merge.get("formula") or ""
    m = BarRow("merge", f"{content:.3f}", formula)
    vw, kw = _weights(formula)
    if vw or kw:
        vpart = vw * float(v["calibrated"]) if v else 0.0
        kpart = kw * float(k["score"]) if k else 0.0
        m.segments = [Segment(0, px(vpart), "vector"), Segment(px(vpart), px(kpart), "keyword")]
        m.note = f"{formula}: {vpart:.3f} + {kpart:.3f}"
    else:
        m.segments = [Segment(0, px(content), "merge")]
    out.append(m)
    rr = ex.get("rerank")
    if rr:  # an optional reranker judged the pool: its blend replaces the merged relevance
        out.append(bar("rerank", rr.get("score"), "merge",
                       f"{rr['formula']}: {rr['before']:.3f} → {rr['after']:.3f}"
                       if rr.get("before") is not None and rr.get("after") is not None else rr.get("formula", "")))
    imp, proj, dec = ex.get("importance") or {}, ex.get("project") or {}, ex.get("decay") or {}
    out.append(_multiplier("importance", imp.get("multiplier"),
                           f"importance {imp['value']}" if imp.get("value") is not None else "no importance: neutral"))
    active = ", ".join(proj.get("active") or []) or "none active"
    out.append(_multiplier("project", proj.get("multiplier"),
                           f"entry {proj['key']} (active: {active})" if proj.get("key") else "no project: neutral"))
    for key, label in QUESTION_LIFTS:  # what the question's words lifted, when they did
        lift = (ex.get(key) or {}).get("multiplier", 1.0)
        if lift != 1.0:
            out.append(_multiplier(key, lift, label))
    pre = ex.get("preDecay")
    out.append(bar("before decay", pre, "merge",
                    ("eligible" if ex.get("eligible") else "below minScore") + f" (minScore {min_score:.2f})",
                    tick=min_score, tick_label="min"))
    age = dec.get("ageDays")
    out.append(_multiplier("decay", dec.get("multiplier"),
                           "evergreen file: no decay" if age is None else f"{age:.1f} days old"))
    count = (ex.get("count") or {}).get("multiplier", 1.0)
    if count != 1.0:  # a count of the owner's doings: another's line or the assistant's goes lower
        out.append(_multiplier("count", count, lowered_because(ex["count"])))  # (a sum: a line naming no amount)
    out.append(bar("score", ex.get("score", hit.get("score")), "score", "after every multiplier"))
    mm = ex.get("mmr")
    if mm:
        moved = mm["after"] - mm["before"]
        note = (f"position {mm['before']} → {mm['after']}"
                + (" (moved down: too similar to an earlier pick)" if moved > 0 else "")
                + (" (moved up)" if moved < 0 else ""))
        out.append(bar("MMR similarity", mm["penalty"], "mmr", note))
    return out


def _weights(formula: str) -> tuple[float, float]:
    """``"0.7 x vector + 0.3 x keyword"`` -> (0.7, 0.3)."""
    vw = kw = 0.0
    for part in formula.split("+"):
        words = part.split()
        if len(words) == 3 and words[1] == "x":
            try:
                w = float(words[0])
            except ValueError:
                continue
            if words[2] == "vector":
                vw = w
            elif words[2] == "keyword":
                kw = w
    return vw, kw
