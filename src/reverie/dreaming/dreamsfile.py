"""``DREAMS.md`` (reference §16.6): the page a person reads to see what Dreaming did. Never a
promotion source, never indexed, never injected into a conversation.

    # Dream Diary
    <!-- reverie:dreaming:diary:start -->
    *2026-07-02*

    Prose about the night ...

    <!-- reverie:dreaming:diary:end -->

    ## Memory Consolidation History
    <!-- reverie:dreaming:history:start -->
    ### 2026-07-02T03:00:04+02:00
    - Added: 2
    - Merged: 1
    - Superseded: 0
    - Highlights:
      - `+ I live in Berlin now.`
      - `- I live in Munich.`
    <!-- reverie:dreaming:history:end -->

    ## Light Sleep / ## REM Sleep / ## Deep Sleep     (each a managed block, replaced every sweep)

Diary entries and history entries are added, never rewritten; only the managed phase blocks are
replaced. Anything a person writes outside the markers stays. An existing lowercase ``dreams.md``
is used instead of creating ``DREAMS.md``; a symlink or anything but a regular file is refused.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import UserError

PHASE_TITLES = {"light": "Light Sleep", "rem": "REM Sleep", "deep": "Deep Sleep"}
MAX_HIGHLIGHTS = 8
HIGHLIGHT_CHARS = 180
BACKFILL_MARK = "<!-- reverie:dreaming:backfill-entry -->"


def start(name: str) -> str:
    return f"<!-- reverie:dreaming:{name}:start -->"


def end(name: str) -> str:
    return f"<!-- reverie:dreaming:{name}:end -->"


def dreams_path(workspace: Path) -> Path:
    for name in ("DREAMS.md", "dreams.md"):
        p = workspace / name
        if p.is_symlink():
            raise UserError(f"{p} is a symlink; Dreaming never writes through it")
        if p.exists():
            if not p.is_file():
                raise UserError(f"{p} is not a regular file; Dreaming never writes it")
            return p
    return workspace / "DREAMS.md"


def skeleton() -> str:
    return "\n".join(["# Dream Diary", "", start("diary"), end("diary"), "", "## Memory Consolidation History",
                      "", start("history"), end("history"), ""])


def _ensure(text: str, name: str, title: str, *, before: str | None = None) -> str:
    if start(name) in text and end(name) in text:
        return text
    section = f"{title}\n\n{start(name)}\n{end(name)}\n"
    if before and before in text:
        i = text.index(before)
        head = text[:i].rstrip("\n")
        return f"{head}\n\n{section}\n{text[i:]}" if head else f"{section}\n{text[i:]}"
    return text.rstrip("\n") + ("\n\n" if text.strip() else "") + section


def ensure(text: str) -> str:
    if not text.strip():
        return skeleton()
    text = _ensure(text, "diary", "# Dream Diary", before="## ")
    return _ensure(text, "history", "## Memory Consolidation History")


def _insert_before_end(text: str, name: str, lines: list[str]) -> str:
    i = text.index(end(name))
    head = text[:i].rstrip("\n")
    return head + "\n" + "\n".join(lines) + "\n" + text[i:]


def add_diary(text: str, day: str, prose: str, *, backfill: bool = False) -> str:
    text = ensure(text)
    prose = clean_prose(prose)
    if not prose:
        return text
    head = f"*{day}*" + (f" {BACKFILL_MARK}" if backfill else "")
    inside = text[text.index(start("diary")):text.index(end("diary"))]
    if f"{head}\n\n{prose}\n" in inside:  # the same entry twice (a retried sweep): once is enough
        return text
    return _insert_before_end(text, "diary", [head, "", prose, ""])


def remove_backfill(text: str) -> tuple[str, int]:
    """Take out the diary entries a backfill wrote; (text, how many)."""
    if start("diary") not in text:
        return text, 0
    a, b = text.index(start("diary")), text.index(end("diary"))
    inside = text[a + len(start("diary")):b]
    parts = re.split(r"(?m)^(?=\*\d{4}-\d{2}-\d{2}\*)", inside)
    kept = [p for p in parts if BACKFILL_MARK not in p.split("\n", 1)[0]]
    n = len(parts) - len(kept)
    return text[:a + len(start("diary"))] + "".join(kept) + text[b:], n


def add_history(text: str, stamp: str, counts: dict | None, highlights: list[str], *,
                skipped: str | None = None, extra: list[str] | None = None) -> str:
    text = ensure(text)
    lines = [f"### {stamp}"]
    if skipped:
        lines += [f"- Rewrite skipped: {skipped.rstrip('.')}.", "- Fallback: append-only promotion."]
    if counts is not None:
        lines += [f"- Added: {counts.get('added', 0)}", f"- Merged: {counts.get('merged', 0)}",
                  f"- Superseded: {counts.get('superseded', 0)}"]
        if counts.get("outdated"):  # entries a new fact updates, marked in place (.outdated)
            lines.append(f"- Outdated: {counts['outdated']}")
    lines += extra or []
    shown = [h for h in highlights if h.strip()][:MAX_HIGHLIGHTS]
    if shown:
        lines.append("- Highlights:")
        lines += [f"  - `{h}`" for h in shown]
    return _insert_before_end(text, "history", lines + [""])


def highlight(sign: str, entry: str) -> str:
    text = " ".join(re.sub(r"<!--.*?-->", " ", entry).split()).replace("`", "'")
    line = f"{sign} {text.lstrip('- ').strip()}"
    return line if len(line) <= HIGHLIGHT_CHARS else line[:HIGHLIGHT_CHARS - 1] + "…"


def set_phase(text: str, phase: str, body: list[str]) -> str:
    text = ensure(text)
    title = f"## {PHASE_TITLES[phase]}"
    text = _ensure(text, phase, title)
    a = text.index(start(phase)) + len(start(phase))
    b = text.index(end(phase))
    return text[:a] + "\n" + "\n".join(body).rstrip("\n") + "\n" + text[b:]


_FORMATTING = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)")


def clean_prose(prose: str) -> str:
    """Diary prose: one paragraph, no headings, bullets, comments or markers (they could pass for
    this file's own structure)."""
    lines = [_FORMATTING.sub("", ln) for ln in (prose or "").split("\n")]
    text = " ".join(" ".join(lines).split())
    text = re.sub(r"<!--|-->", "", text).replace("*", "")
    return text.strip()


def limit_words(prose: str, most: int = 180) -> str:
    words = prose.split()
    if len(words) <= most:
        return prose
    cut = " ".join(words[:most])
    end_at = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    return cut[:end_at + 1] if end_at > len(cut) // 2 else cut + "…"


# -- reading it back (the web view's Dreaming page) -------------------------------------------------
_DIARY_HEAD = re.compile(r"^\*(\d{4}-\d{2}-\d{2})\*(.*)$")
_COUNT = re.compile(r"^- (Added|Merged|Superseded|Outdated): (\d+)$")
_NOTE = re.compile(r"^- ([^:`]+): (.+)$")


def _inside(text: str, name: str) -> str:
    a, b = text.find(start(name)), text.find(end(name))
    return text[a + len(start(name)):b] if 0 <= a < b else ""


def diary_entries(text: str) -> list[dict]:
    """The Dream Diary's entries in file order (oldest first): ``{day, text, backfill}``."""
    out: list[dict] = []
    for line in _inside(text, "diary").split("\n"):
        m = _DIARY_HEAD.match(line.strip())
        if m:
            out.append({"day": m.group(1), "text": "", "backfill": BACKFILL_MARK in m.group(2)})
        elif out and line.strip():
            out[-1]["text"] = (out[-1]["text"] + " " + line.strip()).strip()
    return out


def history_entries(text: str) -> list[dict]:
    """The consolidation history in file order: ``{stamp, counts, skipped, highlights, notes}``
    (``counts`` None for a skipped promotion; ``notes`` the other ``- Key: value`` lines)."""
    out: list[dict] = []
    for raw in _inside(text, "history").split("\n"):
        line = raw.strip()
        if line.startswith("### "):
            out.append({"stamp": line[4:].strip(), "counts": None, "skipped": None, "highlights": [], "notes": []})
            continue
        if not out or not line:
            continue
        e = out[-1]
        count = _COUNT.match(line)
        note = _NOTE.match(line)
        if raw.startswith("  - ") and line.startswith("- `") and line.endswith("`"):
            e["highlights"].append(line[3:-1])
        elif count:
            e["counts"] = {**(e["counts"] or {}), count.group(1).lower(): int(count.group(2))}
        elif note and note.group(1) == "Rewrite skipped":
            e["skipped"] = note.group(2).rstrip(".")
        elif line != "- Highlights:":
            e["notes"].append(line[2:] if line.startswith("- ") else line)
    return out


def update(workspace: Path, change) -> Path:
    """Apply ``change(text) -> text`` to DREAMS.md through the compare-and-set writer; a person
    saving the file at that moment makes it read again and redo (3 tries)."""
    from ..errors import WriteConflict
    from ..workspace.writes import apply_replace, plan_replace

    path = dreams_path(workspace)
    for attempt in range(3):
        plan = plan_replace(path)
        new = change(plan.text)
        if new == plan.text:
            return path
        try:
            apply_replace(plan, new)
            return path
        except WriteConflict:
            if attempt == 2:
                raise
    return path


def history_of(out, stamp: str, text: str, extra: list[str] | None = None) -> str:
    """``text`` with a history entry for a deep outcome (:class:`~reverie.dreaming.promote.DeepOutcome`)
    when ``MEMORY.md`` changed or a rewrite was skipped."""
    if out is None or not (out.mode in ("consolidated", "append") or out.reason):
        return text
    skipped = out.reason if out.mode in ("append", "skipped") else None
    counts = out.counts if out.mode in ("consolidated", "append") else None
    more = list(extra or [])
    if out.compacted_dates:
        more.append(f"- Compacted: {', '.join(out.compacted_dates)}")
    return add_history(text, stamp, counts, out.highlights, skipped=skipped, extra=more)
