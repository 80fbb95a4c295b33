"""Help text in the words of the command line, not of Python.

Typer labels every option with its Python type (``<bool>``, ``<list[str]>``, ``<int range>
[x>=1]``) and shows defaults two ways (``[default: 50]`` beside ``(default 6)`` in the text).
:func:`tidy` walks the built command tree once and gives each option a plain value word (``N``,
``TEXT``, ``PATH``, nothing for a flag), writes every default and range the same way into the help
sentence, and adds an Examples block to each command from :data:`EXAMPLES` (a command may also
bring its own ``epilog``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

EXAMPLES: dict[str, list[str]] = {
    "init": ["reverie init", "reverie init --workspace ~/notes    # use an existing folder; remembered in reverie.toml",
             "reverie --agent work init"],
    "remember": ["reverie remember \"Booked the lake-view room in Hangzhou\"",
                 "echo \"决定住西湖边的湖滨酒店\" | reverie remember --stdin"],
    "index": ["reverie index", "reverie index --force    # rebuild from the files"],
    "status": ["reverie status", "reverie status --deep --json"],
    "watch": ["reverie watch", "reverie watch --debounce-ms 500"],
    "search": ["reverie search \"why no lake-view room\"", "reverie search 湖景房 --max-results 3",
               "reverie search hotel --explain"],
    "get": ["reverie get MEMORY.md", "reverie get memory/2026-07-01.md --from 8 --lines 20"],
    "tools": ["reverie tools", "reverie tools --json > tools.json"],
    "mcp": ["reverie mcp", "claude mcp add reverie -- reverie mcp --agent main"],
    "doctor": ["reverie doctor", "reverie doctor --repair    # salvage a damaged agent database"],
    "config show": ["reverie config show", "reverie config show --json --set memory.search.provider=none"],
    "config path": ["reverie config path"],
    "tour": ["reverie tour"],
    "chat": ["reverie chat", "reverie chat -m \"Which hotel did we decide on?\"",
             "printf 'We decided on the Lakeside Hotel.\\n/new\\n' | reverie chat",
             "reverie chat --model openai:gpt-4o-mini"],
    "intent create": ["reverie intent create -d \"confirm the return ticket\" -t hangzhou -t 杭州",
                      "reverie intent create -d \"ask about the offer\" -t acme --channel telegram --sender 42"],
    "intent list": ["reverie intent list", "reverie intent list --status armed --json"],
    "intent cancel": ["reverie intent cancel si_0123456789ab"],
    "intent check": ["reverie intent check \"下周去杭州出差\"    # a dry run: no fire is spent",
                     "reverie intent check \"trip to hangzhou\" --channel telegram --sender 42 --fire"],
    "cron add": ["reverie cron add --at 2026-07-02T09:00 --tz Asia/Shanghai --text \"再看一眼高铁票\"",
                 "reverie cron add --every 1d --message \"Summarise what I noted today\"",
                 "reverie cron add --cron \"0 9 * * 1-5\" --text \"Stand-up in 15 minutes\""],
    "cron list": ["reverie cron list", "reverie cron list --json"],
    "cron remove": ["reverie cron remove job_0123456789", "reverie cron remove job_0123456789 --dry-run"],
    "cron run-due": ["reverie cron run-due", "reverie cron run-due --now +2h    # preview only"],
    "cron runs": ["reverie cron runs", "reverie cron runs job_0123456789 --limit 5"],
    "scheduler run": ["reverie scheduler run", "reverie scheduler run --poll 1"],
    "sessions list": ["reverie sessions list", "reverie sessions list --key main --limit 5"],
    "sessions show": ["reverie sessions show", "reverie sessions show main --all"],
    "sessions export": ["reverie sessions export main -o main.jsonl", "reverie sessions export --events"],
    "sessions import": ["reverie sessions import history.jsonl", "reverie sessions import chat.jsonl --dry-run"],
    "sessions search": ["reverie sessions search 湖滨酒店", "reverie sessions search hotel --limit 3"],
    "dream run": ["reverie dream run", "reverie dream run --dry-run --json", "reverie dream run --phase light"],
    "dream status": ["reverie dream status", "reverie dream status --json"],
    "dream schedule": ["reverie dream schedule"],
    "dream heartbeat": ["reverie dream heartbeat --force"],
    "promote-explain": ["reverie promote-explain memory/2026-07-01.md:3",
                        "reverie promote-explain st-1a2b3c4d5e6f --json"],
    "rem-harness": ["reverie rem-harness", "reverie rem-harness --path memory/2026-06-01.md --json"],
    "rem-backfill": ["reverie rem-backfill --dry-run", "reverie rem-backfill --stage-short-term",
                     "reverie rem-backfill --rollback --rollback-short-term"],
    "memory preimages": ["reverie memory preimages"],
    "memory restore": ["reverie memory restore latest --dry-run", "reverie memory restore 20260702T030004123456"],
    "forget": ["reverie forget --session 3f2a9c1e --dry-run", "reverie forget --text \"my old phone number\" --json",
               "reverie forget --participant alice --since 2026-07-01"],
    "plugins": ["reverie plugins", "reverie plugins --check --json"],
    "db start": ["reverie db start", "reverie db start --port 5433    # also on TCP, for other hosts' tools"],
    "db stop": ["reverie db stop"],
    "db status": ["reverie db status", "reverie db status --json"],
    "db migrate": ["reverie db migrate --to postgres    # then backend = \"postgres\" under [memory.store]",
                   "reverie db migrate --to sqlite    # back to a file of its own"],
    "db schema": ["reverie db schema --dsn postgresql://owner@db.internal/reverie"],
    "db grant": ["REVERIE_DB_PASSWORD=... reverie --agent support db grant --role reverie_support "
                 "--dsn postgresql://owner@db.internal/reverie"],
    "context": ["reverie context", "reverie context --session-kind group",
                "reverie context --session-kind cron --project github.com/acme/app --json"],
    "table list": ["reverie table list", "reverie table list --json"],
    "table show": ["reverie table show api"],
    "table query": ["reverie table query api \"SELECT path, method FROM endpoints WHERE auth = 1\"",
                    "reverie table query finance \"SELECT sum(amount) FROM spend WHERE month = ?\" -p 2026-07"],
    "table import": ["reverie table import api endpoints.csv", "reverie table import finance spend.csv --dry-run"],
    "table export": ["reverie table export api endpoints > endpoints.csv", "reverie table export api endpoints -o out.csv"],
    "table log": ["reverie table log", "reverie table log api --limit 10"],
    "export": ["reverie export ~/backup/reverie-main", "reverie --agent work export /tmp/work-copy"],
    "import openclaw": ["reverie import openclaw ~/.openclaw --dry-run", "reverie import openclaw ~/.openclaw/workspace"],
    "import markdown": ["reverie import markdown ~/vault --dry-run", "reverie import markdown ~/journal --name journal"],
    "import reverie": ["reverie import reverie ~/backup/reverie-main", "reverie import reverie /tmp/work-copy --dry-run"],
}


def _value_word(param: Any) -> str:
    """The word a user types for this option's value."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return ""
    if param.metavar:
        return param.metavar
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", str)
    inner = getattr(annotation, "__args__", (annotation,))[0] if hasattr(annotation, "__origin__") else annotation
    if param.name in ("sets",):
        return "KEY=VALUE"
    if inner is int:
        return "N"
    if inner is float:
        return "NUMBER"
    if inner is Path or (isinstance(inner, type) and issubclass(inner, Path)):
        return "PATH"
    return "TEXT"


def _range_words(param: Any) -> str:
    lo, hi = getattr(param, "min", None), getattr(param, "max", None)
    if lo is not None and hi is not None:
        return f"{lo} to {hi}"
    if lo is not None:
        return f"at least {lo}"
    if hi is not None:
        return f"at most {hi}"
    return ""


def _tidy_param(param: Any) -> None:
    # an argument's name is already its label; an option gets the word for its value
    word = "" if param.param_type_name == "argument" else _value_word(param)
    param.display_type_rich = lambda ctx, word=word: word  # instance attribute: wins over the method
    if param.param_type_name == "argument":
        return
    help_text = param.help or ""
    extra = []
    rng = _range_words(param)
    if rng and rng not in help_text:
        extra.append(rng)
    default = param.default
    if (default not in (None, False, (), []) and not getattr(param, "is_flag", False)
            and "default" not in help_text and not callable(default)):
        extra.append(f"default {default}")
    if extra:
        said = re.search(r"\((default [^)]*)\)$", help_text)
        if said:  # one parenthesis: "(at least 1; default 6)"
            help_text, extra = help_text[:said.start()].rstrip(), [*extra, said.group(1)]
        param.help = f"{help_text} ({'; '.join(extra)})".strip()
    param.show_default = False
    param._get_number_range_help_str = lambda: None  # said in words above


def _examples_epilog(path: str, command: Any) -> str | None:
    lines = EXAMPLES.get(path)
    if not lines:
        return command.epilog
    body = "\n".join(f"  {_escape(line)}" for line in lines)
    return f"[bold]Examples[/bold]\n{body}"


def _escape(line: str) -> str:
    """rich's markup escape, which changes only a ``[`` and a trailing backslash: a line without
    them (every example today) is left as it is without importing rich (~25 ms), which a command
    that never shows its help does not otherwise load."""
    if "[" not in line and not line.endswith("\\"):
        return line
    from rich.markup import escape

    return escape(line)


def tidy(command: Any, path: str = "") -> Any:
    """Apply the plain-words help to ``command`` and every subcommand (idempotent); returns it."""
    if getattr(command, "_reverie_tidy", False):
        return command
    for param in command.params:
        _tidy_param(param)
    made = command.get_help_option

    def help_option(ctx, made=made):  # click makes --help on demand: tidy it too
        option = made(ctx)
        if option is not None:
            _tidy_param(option)
        return option

    command.get_help_option = help_option
    if path:
        command.epilog = _examples_epilog(path, command)
    for name, sub in (getattr(command, "commands", None) or {}).items():
        tidy(sub, f"{path} {name}".strip())
    command._reverie_tidy = True
    return command


def missing_examples(command: Any, path: str = "") -> list[str]:
    """Commands without an Examples block (a test keeps this empty)."""
    subs = getattr(command, "commands", None) or {}
    if not subs:
        return [] if (EXAMPLES.get(path) or (command.epilog and "Examples" in command.epilog)) else [path]
    out: list[str] = []
    for name, sub in subs.items():
        out += missing_examples(sub, f"{path} {name}".strip())
    return out
