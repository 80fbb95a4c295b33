"""What ``reverie status`` and ``doctor`` say about recall: what a main session starts with, what
is cut there (addendum row 9: a truncation at startup is visible, never silent), and whether
memory is switched on."""

from __future__ import annotations

from .startup import StartupPlan, plan


def _cut_line(p: StartupPlan) -> list[str]:
    out = []
    for f in p.files:
        if f.truncated and f.status not in ("absent", "left-out"):
            out.append(f"{f.name} {f.status} ({f.injected_chars:,} of {f.raw_chars:,} chars)")
    for n in p.notes:
        if n.truncated:
            out.append(f"{n.path} {n.status} ({n.injected_chars:,} of {n.raw_chars:,} chars)")
    return out


def status_section(mem) -> tuple[dict, list[str]]:
    """(the ``startup`` and ``memory`` parts of ``status``, warnings)."""
    state = mem.switch.state()
    warnings: list[str] = []
    if not state.enabled:
        warnings.append(f"memory is disabled ({state.reason}): memory tools and recall lanes refuse")
    if mem.switch.problem:
        warnings.append(f"settings file: {mem.switch.problem}")
    section: dict = {"memory": {"enabled": state.enabled, "reason": state.reason,
                                "searchEnabled": state.search_enabled}}
    try:
        p = plan(mem)
    except Exception as exc:  # status reports, it never fails on this
        section["startup"] = {"error": f"{type(exc).__name__}: {exc}"}
        return section, warnings
    cut = _cut_line(p)
    section["startup"] = {"files": [f.name for f in p.files if f.text], "notes": [n.path for n in p.notes if n.text],
                          "truncated": p.truncated}
    if cut:
        warnings.append("cut at session start (in context only; the files are whole): " + "; ".join(cut)
                        + "; see: reverie context")
    return section, warnings


def doctor_leg(mem) -> dict:
    """The doctor's ``startup context`` leg over the caller's own workspace (read only)."""
    try:
        p = plan(mem)
    except Exception as exc:
        return {"name": "startup context", "ok": False, "detail": f"{type(exc).__name__}: {exc}",
                "action": "run reverie context --session-kind main"}
    shown = [f.name for f in p.files if f.text] + [n.path for n in p.notes if n.text]
    cut = _cut_line(p)
    detail = f"a main session starts with {', '.join(shown) or 'no memory files'}"
    if cut:
        detail += "; TRUNCATED in context: " + "; ".join(cut)
    return {"name": "startup context", "ok": True, "detail": detail,
            "action": "run reverie context to see what is cut; memory_get reads the rest" if cut else None}
