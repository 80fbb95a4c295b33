"""The first hour of one person on one machine (issue 9 §3), through the real command line.

Each test is a fault a newcomer met: an intent made on the command line that never fired in chat,
agent-turn automations that were always skipped, a workspace that `init` forgot, a chat that exited
0 when its model was unreachable, an unknown variable that stopped every command, read-only
commands that created an agent out of a typo, Python types in --help, and the small things after.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from cli_helpers import batch, cli, ok, one_error, tree

ROOT = Path(__file__).resolve().parents[1]

# -- standing intents: the local owner by default, visible in chat, a dry-run check ------------------
def test_an_intent_created_on_the_command_line_fires_in_chat_and_says_so(reverie_home):
    ok(cli(reverie_home, "init"))
    created, dry, listed = batch(
        reverie_home,
        ["intent", "create", "-d", "confirm the return ticket", "-t", "hangzhou", "--cooldown", "0", "--json"],
        ["intent", "check", "off to Hangzhou on Monday"],
        ["intent", "list", "--json"])
    intent = json.loads(ok(created).stdout)["intent"]
    assert (intent["channel"], intent["sender"], intent["scope"]) == ("cli", "local-owner", "channel")
    # the check shows what would fire, and spends nothing
    assert "confirm the return ticket" in ok(dry).stdout and "dry run" in dry.stderr
    assert json.loads(listed.stdout)["intents"][0]["fireCount"] == 0

    chat = ok(cli(reverie_home, "chat", stdin="we fly to hangzhou tomorrow\n"))
    assert f"[standing intent fired: confirm the return ticket ({intent['id']}, fired)]" in chat.stderr
    fired, spent = batch(reverie_home, ["intent", "list", "--json"],
                         ["intent", "check", "hangzhou again", "--fire", "--json"])
    assert json.loads(fired.stdout)["intents"][0]["fireCount"] == 1
    assert json.loads(ok(spent).stdout)["dryRun"] is False
    assert json.loads(ok(cli(reverie_home, "intent", "list", "--json")).stdout)["intents"][0]["fireCount"] == 2


# -- cron agent turns run through the chat runtime --------------------------------------------------
def test_cron_message_jobs_run_as_agent_turns_with_the_offline_model(reverie_home):
    ok(cli(reverie_home, "init"))
    ok(cli(reverie_home, "remember", "We decided on the Lakeside Hotel."))
    job = json.loads(ok(cli(reverie_home, "cron", "add", "--at", "+1s", "--message", "Which hotel did we decide on?",
                            "--keep", "--json")).stdout)
    time.sleep(1.2)
    run, runs, sessions, show = batch(reverie_home, ["cron", "run-due", "--json"], ["cron", "runs", "--json"],
                                      ["sessions", "list", "--json"],
                                      ["sessions", "show", f"cron:{job['id']}", "--json"])
    (record,) = json.loads(ok(run).stdout)["runs"]
    assert record["status"] == "ok", record
    assert "Lakeside Hotel" in record["summary"] and "Lakeside Hotel" in record["details"]["reply"]
    assert record["details"]["sessionKey"] == f"cron:{job['id']}" and record["details"]["model"].startswith("offline")
    assert json.loads(runs.stdout)["runs"][0]["status"] == "ok"
    (cron_session,) = [s for s in json.loads(sessions.stdout)["sessions"] if s["sessionKey"] == f"cron:{job['id']}"]
    assert cron_session["endedReason"] == "cron-run" and cron_session["origin"] == "cron"
    kinds = [e["type"] for e in json.loads(ok(show).stdout)["events"]]
    assert kinds == ["user", "assistant"]  # the message and the reply, in the transcript


def test_cron_message_with_a_model_that_cannot_run_is_refused_at_add(reverie_home):
    ok(cli(reverie_home, "init"))
    refused, listed = batch(reverie_home, ["cron", "add", "--every", "1h", "--message", "brief",
                                           "--model", "openai:gpt-4o-mini"], ["cron", "list", "--json"])
    assert "needs an API key" in one_error(refused) and "OPENAI_API_KEY" in refused.stderr
    assert json.loads(ok(listed).stdout)["jobs"] == []


# -- init remembers its workspace -------------------------------------------------------------------
def test_init_workspace_is_remembered_without_losing_the_settings_file(reverie_home, tmp_path):
    reverie_home.mkdir()
    cfg = reverie_home / "reverie.toml"
    cfg.write_text("# my settings\ntimezone = \"UTC\"  # keep me\n\n[memory.search.query]\nmaxResults = 4\n",
                   encoding="utf-8")
    notes = tmp_path / "notes"
    notes.mkdir()
    ok(cli(reverie_home, "init", "--workspace", "notes", cwd=tmp_path))  # relative to where it was typed
    text = cfg.read_text(encoding="utf-8")
    assert text.startswith("# my settings\ntimezone = \"UTC\"  # keep me\n") and "maxResults = 4" in text
    assert f'[agents.main]\nworkspace = "{notes}"' in text
    # the next commands, from anywhere, use it: no loop back to "run init"
    ok(cli(reverie_home, "remember", "first note", cwd="/"))
    assert list((notes / "memory").glob("*.md"))
    status = json.loads(ok(cli(reverie_home, "status", "--json", cwd="/")).stdout)
    assert status["workspace"] == str(notes) and status["workspace_exists"] is True
    other = tmp_path / "other"
    moved = ok(cli(reverie_home, "init", "--workspace", str(other)))
    assert f"(was {notes})" in moved.stderr and f'workspace = "{other}"' in cfg.read_text(encoding="utf-8")


# -- chat models that cannot work ---------------------------------------------------------------------
def test_chat_with_an_unreachable_model_exits_non_zero(reverie_home):
    ok(cli(reverie_home, "init"))
    r = cli(reverie_home, "chat", "--model", "openai:some-model", "--set", "chat.baseUrl=http://127.0.0.1:9/v1",
            "-m", "hello")
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "[model error:" in r.stdout
    assert r.stderr.strip().splitlines()[-1].startswith("reverie: error: the chat model failed in 1 turn(s)")


@pytest.mark.parametrize("spec, variable", [("openai:gpt-4o-mini", "OPENAI_API_KEY"),
                                            ("anthropic:claude-sonnet-4", "ANTHROPIC_API_KEY")])
def test_a_missing_api_key_is_named_before_any_turn(reverie_home, spec, variable):
    ok(cli(reverie_home, "init"))
    r = cli(reverie_home, "chat", "--model", spec, "-m", "hello")
    line = one_error(r)
    assert variable in line and "nothing was sent" in line
    assert json.loads(ok(cli(reverie_home, "sessions", "list", "--json")).stdout)["sessions"] == []  # no turn


def test_a_missing_api_key_makes_no_network_call():
    from reverie.config import ChatSettings
    from reverie.models.base import ChatMessage, ChatModelError
    from reverie.models.openai_compat import OpenAIChat

    model = OpenAIChat("gpt-4o-mini", ChatSettings())
    assert "OPENAI_API_KEY" in model.not_ready()
    with pytest.raises(ChatModelError, match="needs an API key"):
        model.complete([ChatMessage("user", "hi")])
    assert model._client is None  # no HTTP client was ever made
    local = OpenAIChat("llama3", ChatSettings(baseUrl="http://localhost:11434/v1"))
    assert local.not_ready() is None  # another host may need no key


# -- environment ------------------------------------------------------------------------------------
def test_an_unknown_reverie_variable_warns_once_and_the_command_goes_on(reverie_home):
    ok(cli(reverie_home, "init"))
    r = ok(cli(reverie_home, "status", env={"REVERIE_MAX_RESULT": "3", "REVERIE_FOO": "1"}))
    warnings = [line for line in r.stderr.splitlines() if line.startswith("reverie: warning:")]
    assert warnings == ["reverie: warning: unknown environment variable REVERIE_FOO ignored",
                        "reverie: warning: unknown environment variable REVERIE_MAX_RESULT ignored; "
                        "did you mean REVERIE_MAX_RESULTS?"]


# -- read-only commands create nothing ----------------------------------------------------------------
READ_ONLY = [["status"], ["search", "hotel"], ["get", "MEMORY.md"], ["sessions", "list"], ["sessions", "show"],
             ["sessions", "search", "hotel"], ["intent", "list"], ["intent", "check", "hotel"], ["cron", "list"],
             ["cron", "runs"], ["config", "show"], ["tools"]]


def test_read_only_commands_with_a_mistyped_home_create_nothing(reverie_home, tmp_path):
    typo = tmp_path / "reverei"
    results = batch(reverie_home, *[["--home", str(typo), *c] for c in READ_ONLY])
    for r in results:
        line = one_error(r)
        assert line == f"reverie: error: reverie home {typo} does not exist (check --home / REVERIE_HOME; " \
                       "`reverie init` creates it)", r.args
    assert not typo.exists()


def test_read_only_commands_with_a_mistyped_agent_create_nothing(reverie_home):
    ok(cli(reverie_home, "init"))
    before = tree(reverie_home)
    agent_scoped = [c for c in READ_ONLY if c[0] != "cron"] + [["cron", "list"]]
    results = batch(reverie_home, *[["--agent", "mian", *c] for c in agent_scoped])
    for r in results:
        line = one_error(r)
        assert "agent 'mian' does not exist" in line and "did you mean 'main'?" in line, r.args
    assert tree(reverie_home) == before


def test_writing_commands_may_create(reverie_home, tmp_path):
    home = tmp_path / "fresh"
    ok(cli(home, "remember", "a first note"))
    ok(cli(home, "--agent", "work", "init"))
    assert (home / "workspace" / "memory").is_dir() and (home / "workspace-work" / "MEMORY.md").is_file()
    ok(cli(home, "--agent", "work", "index"))
    assert (home / "agents" / "work" / "agent").is_dir()


# -- help, version, small things ----------------------------------------------------------------------
def test_version_and_help_in_command_line_words():
    from typer.main import get_command

    import reverie
    from reverie.cli.helptext import missing_examples, tidy
    from reverie.cli.main import app

    home = Path("/nonexistent-home-for-help")
    assert ok(cli(home, "--version")).stdout == f"reverie {reverie.__version__}\n"
    root = tidy(get_command(app))
    assert missing_examples(root) == []
    pages = batch(home, ["--help"], ["search", "--help"], ["cron", "add", "--help"], ["sessions", "list", "--help"],
                  ["intent", "create", "--help"], ["get", "--help"], ["chat", "--help"], ["doctor", "--help"],
                  env={"COLUMNS": "160"})
    for page in pages:
        text = ok(page).stdout
        for python in ("<bool>", "<str>", "<int>", "<float>", "<path>", "list[str]", "range>", "[default:", "x>="):
            assert python not in text, (page.args, python)
    assert "Examples" in pages[1].stdout and 'reverie search "why no lake-view room"' in pages[1].stdout
    assert "(at least 1; default 6)" in pages[1].stdout  # one style for every default
    assert "(at least 1; default 50)" in pages[3].stdout
    assert "--repair" in pages[7].stdout


def test_get_on_a_missing_file_fails_and_paging_is_in_command_line_words(reverie_home):
    ok(cli(reverie_home, "init"))
    note = reverie_home / "workspace" / "memory" / "2026-07-01.md"
    note.write_text("".join(f"line {i}\n" for i in range(1, 21)), encoding="utf-8")
    missing, page = batch(reverie_home, ["get", "memory/2020-01-01.md"], ["get", "memory/2026-07-01.md", "--lines", "7"])
    assert one_error(missing).startswith("reverie: error: not found: memory/2020-01-01.md")
    assert ok(page).stdout == "".join(f"line {i}\n" for i in range(1, 8))
    assert page.stderr.strip() == "[more: reverie get memory/2026-07-01.md --from 8]"


def test_search_says_when_its_order_is_not_by_score_and_explains_its_footer(capsys):
    from reverie.cli.search_run import _print_results

    def hit(score, n):
        return {"score": score, "citation": f"memory/a.md#L{n}-L{n}", "snippet": f"note {n}", "vectorScore": None,
                "textScore": score}

    data = {"results": [hit(0.7, 1), hit(0.6, 2)], "debug": {"effectiveMode": "hybrid", "selection": "strict",
                                                               "searchMs": 5.0}}
    _print_results(data, explain=False)
    out = capsys.readouterr()
    assert "[hybrid" not in out.err and "·" not in out.err and "order" not in out.err  # no unexplained footer
    data["results"] = [hit(0.7, 1), hit(0.5, 2), hit(0.6, 3)]  # MMR moved a near-duplicate down
    _print_results(data, explain=False)
    assert "not strictly by score" in capsys.readouterr().err
    data["results"] = [hit(0.7, 1)]
    data["results"][0]["explain"] = {}
    _print_results(data, explain=True)
    assert "search: hybrid (vectors and keywords); results above the minimum score; 5.0 ms" in capsys.readouterr().err


def test_set_errors_are_plain_words_with_did_you_mean(reverie_home):
    ok(cli(reverie_home, "init"))
    typo, value, provider, model, flag, number = batch(
        reverie_home, ["status", "--set", "memory.search.query.maxResult=3"],
        ["status", "--set", "memory.search.query.maxResults=lots"],
        ["status", "--set", "memory.search.provider=bogus"],
        ["chat", "--model", "bogus:x", "-m", "hi"],
        ["get", "MEMORY.md", "--from", "0"], ["cron", "runs", "--limit", "lots"])
    assert one_error(flag) == "reverie: error: Invalid value for '--from': must be at least 1"
    assert one_error(number) == "reverie: error: Invalid value for '--limit' / '-n': must be a whole number"
    assert one_error(typo) == ("reverie: error: unknown settings key 'memory.search.query.maxResult'; "
                               "did you mean 'memory.search.query.maxResults'?")
    assert one_error(value) == ("reverie: error: bad value for 'memory.search.query.maxResults': must be a whole "
                                "number (got 'lots')")
    # the test providers stay usable by name (this very test runs on 'fake') but are never listed
    assert "fake" not in one_error(provider) and "local" in provider.stderr
    assert "scripted" not in one_error(model) and "offline" in model.stderr
    for r in (typo, value, provider, model, flag, number):
        assert "pydantic" not in r.stderr and "http" not in r.stderr and "Input should" not in r.stderr


def test_cron_errors_name_the_field_and_times_show_in_the_jobs_zone(reverie_home):
    ok(cli(reverie_home, "init"))
    hour, weekday, added, listed = batch(
        reverie_home, ["cron", "add", "--cron", "0 25 * * *", "--text", "x"],
        ["cron", "add", "--cron", "0 9 * * mon-fry", "--text", "x"],
        ["cron", "add", "--cron", "0 9 * * *", "--tz", "Asia/Tokyo", "--text", "stand-up"],
        ["cron", "list"])
    assert "the hour field '25' is not valid (allowed: 0-23" in one_error(hour)
    assert "the day of week field 'mon-fry' is not valid" in one_error(weekday)
    ok(added)
    # the configured zone is UTC; the job runs at 09:00 Tokyo time and is shown so
    assert "next " in listed.stdout and "T09:00:00+09:00" in listed.stdout


def test_docs_stand_alone_and_name_the_original_system():
    for page in (ROOT / "docs").glob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert "shared/" not in text, page.name  # a file users do not have
    assert "OpenClaw" in (ROOT / "docs" / "design.md").read_text(encoding="utf-8").split("## Layers")[0]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for variable in ("REVERIE_HOME", "REVERIE_AGENT", "REVERIE_WORKSPACE", "REVERIE_CONFIG", "REVERIE_LOG"):
        assert variable in readme.split("## Settings")[1], variable
