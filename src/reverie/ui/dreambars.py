"""A promotion candidate's ``promote-explain`` data (reverie.dreaming.inspect) as bar rows.

Drawn by the same SVG macro as a search explanation (``_bars.html``):

* the six weighted components on 0-1, each with its weight and what it adds to the score;
* the phase boost on its own scale (at most 0.06 light + 0.09 REM);
* the total as a stacked bar of those contributions, with a tick at ``minScore``;
* the three gates -- signals against ``minRecallCount``, distinct queries or days against
  ``minUniqueQueries``, days since the last recall against ``maxAgeDays`` -- green when met, red
  when not, each with a tick at its threshold.

The trust gate's decision is not a bar: the template shows it as a badge beside them.
"""

from __future__ import annotations

from .explain import WIDTH, BarRow, Segment, bar, px

COMPONENTS = ("relevance", "frequency", "diversity", "recency", "consolidation", "conceptual")
MAX_BOOST = 0.15  # 0.06 × light strength + 0.09 × REM strength, each at most 1


def _gate(label: str, value: float, threshold: float, ok: bool, note: str, *, digits: int = 0,
          unit: str = "") -> BarRow:
    scale = max(threshold * 2, value, 1)
    row = bar(label, value, "pass" if ok else "fail", note, scale=scale, tick=threshold,
              tick_label=f"{'max' if label == 'age' else 'min'} {threshold:g}{unit}", digits=digits)
    row.value = f"{value:.{digits}f}{unit}"
    return row


def rows(ex: dict) -> list[BarRow]:
    """The bar rows of one entry of :func:`reverie.dreaming.inspect.candidates`."""
    comps, weights, th = ex["components"], ex["weights"], ex["thresholds"]
    out: list[BarRow] = []
    for name in COMPONENTS:
        v, w = float(comps.get(name, 0.0)), float(weights.get(name, 0.0))
        out.append(bar(name, v, f"c-{name}", f"× {w:.2f} = {v * w:.3f}"))
    boost = float(comps.get("phaseBoost", 0.0))
    out.append(bar("phase boost", boost, "c-boost", f"light and REM hits: + {boost:.3f} (at most {MAX_BOOST:g})",
                   scale=MAX_BOOST))
    score, min_score = float(ex["score"]), float(th["minScore"])
    total = BarRow("total", f"{score:.4f}", ("≥" if score >= min_score else "<") + f" minScore {min_score:g}",
                   tick=px(min_score), tick_label=f"minScore {min_score:g}")
    x = 0
    for name in COMPONENTS:
        w = px(float(weights.get(name, 0.0)) * float(comps.get(name, 0.0)))
        total.segments.append(Segment(x, min(w, WIDTH - x), f"c-{name}"))
        x = min(WIDTH, x + w)
    total.segments.append(Segment(x, min(px(boost), WIDTH - x), "c-boost"))
    out.append(total)
    signals = int(ex["signals"])
    out.append(_gate("signals", signals, th["minRecallCount"], signals >= th["minRecallCount"],
                     f"{ex['recallCount']} recalls, {ex['dailyCount']} daily, {ex['groundedCount']} grounded "
                     f"(min {th['minRecallCount']})"))
    days = len(ex["recallDays"]) if isinstance(ex["recallDays"], list) else int(ex["recallDays"])
    distinct = max(int(ex["uniqueQueries"]), days)
    out.append(_gate("queries / days", distinct, th["minUniqueQueries"], distinct >= th["minUniqueQueries"],
                     f"{ex['uniqueQueries']} distinct queries, {days} recall days (min {th['minUniqueQueries']})"))
    age, max_age = float(ex["ageDays"]), th["maxAgeDays"]
    if max_age is None or max_age < 0:
        row = bar("age", age, "pass", "days since the last recall (no age limit)", scale=max(age, 30), digits=1)
        row.value = f"{age:.1f} d"
        out.append(row)
    else:
        out.append(_gate("age", age, max_age, age <= max_age, f"days since the last recall (max {max_age})",
                         digits=1, unit=" d"))
    return out
