"""Each benchmark owns one marked section of docs/benchmarks.md and rewrites only that section."""

from __future__ import annotations

from pathlib import Path


def update_section(out: Path, name: str, heading: str, body: str) -> None:
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    out.parent.mkdir(parents=True, exist_ok=True)
    text = out.read_text(encoding="utf-8") if out.exists() else "# reverie benchmarks\n\n"
    block = f"{start}\n{body}\n{end}"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        text = head + block + tail
    else:
        text = text.rstrip("\n") + f"\n\n## {heading}\n\n" + block + "\n"
    out.write_text(text, encoding="utf-8")
