"""Settings: defaults, precedence (file < environment < --set), key mapping, errors that name the key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reverie.config import load_settings
from reverie.errors import ConfigError


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", *args],
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=60)


def write_config(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "reverie.toml"
    path.write_text(text, encoding="utf-8")
    return path


# -- defaults -----------------------------------------------------------------------------------
def test_defaults_are_the_reference_values():
    s = load_settings(None, {})
    assert s.search.query.max_results == 6
    assert s.search.query.min_score == pytest.approx(0.35)
    assert (s.search.chunking.tokens, s.search.chunking.overlap) == (400, 80)
    assert s.search.store.fts.tokenizer == "cjk"
    assert s.search.provider == "auto"
    assert s.search.remote.api_key is None


def test_missing_file_gives_defaults(tmp_path: Path):
    s = load_settings(tmp_path / "nope.toml", {})
    assert s.search.query.max_results == 6


# -- precedence ---------------------------------------------------------------------------------
def test_file_then_env_then_set(tmp_path: Path):
    cfg = write_config(tmp_path, '[memory.search.query]\nmaxResults = 3\nminScore = 0.5\n'
                                 '[memory.search]\nprovider = "none"\nmodel = "from-file"\n')
    only_file = load_settings(cfg, {})
    assert (only_file.search.query.max_results, only_file.search.provider) == (3, "none")

    env = {"REVERIE_MAX_RESULTS": "9", "REVERIE_EMBEDDING_PROVIDER": "fake"}
    with_env = load_settings(cfg, env)
    assert with_env.search.query.max_results == 9  # env beats the file
    assert with_env.search.provider == "fake"
    assert with_env.search.query.min_score == pytest.approx(0.5)  # untouched keys keep the file's value
    assert with_env.search.model == "from-file"

    with_set = load_settings(cfg, env, ["memory.search.query.maxResults=12", 'memory.search.provider="none"'])
    assert with_set.search.query.max_results == 12  # --set beats env and file
    assert with_set.search.provider == "none"
    assert with_set.search.query.min_score == pytest.approx(0.5)


def test_set_accepts_bare_strings_and_json_values():
    s = load_settings(None, {}, ["memory.search.model=my-model", "memory.search.query.minScore=0.1",
                                 'memory.search.extraPaths=["notes"]'])
    assert s.search.model == "my-model"
    assert s.search.query.min_score == pytest.approx(0.1)
    assert s.search.extra_paths == ["notes"]


def test_set_keeps_digit_only_strings_and_converts_for_typed_keys():
    s = load_settings(None, {}, ["memory.search.model=1024", "memory.search.remote.apiKey=12345",
                                 "memory.search.store.vector.enabled=false", "memory.search.query.maxResults=3"])
    assert s.search.model == "1024"  # a digit-only model name is still a name
    assert s.search.remote.api_key == "12345"
    assert s.search.store.vector.enabled is False
    assert s.search.query.max_results == 3
    assert load_settings(None, {}, ["memory.search.model=null"]).search.model is None


def test_env_variables_map_to_their_keys():
    env = {
        "REVERIE_EMBEDDING_PROVIDER": "OpenAI",
        "REVERIE_EMBEDDING_MODEL": "nomic-embed-text",
        "REVERIE_EMBEDDING_BASE_URL": "http://localhost:11434/v1",
        "REVERIE_EMBEDDING_API_KEY": "k-123",
    }
    s = load_settings(None, env)
    assert s.search.provider == "openai"  # normalised
    assert s.search.model == "nomic-embed-text"
    assert s.search.remote.base_url == "http://localhost:11434/v1"
    assert s.search.remote.api_key == "k-123"


def test_unknown_reverie_env_variable_is_named_in_a_warning_and_ignored():
    # a typo or a variable of another version must not stop every command: warn, go on
    with pytest.warns(UserWarning, match=r"REVERIE_MAX_RESULT ignored; did you mean REVERIE_MAX_RESULTS\?"):
        s = load_settings(None, {"REVERIE_MAX_RESULT": "3"})
    assert s.search.query.max_results == 6


# -- OPENAI_API_KEY fallback --------------------------------------------------------------------
@pytest.mark.parametrize("provider, base_url, expected", [
    ("openai", None, "sk-env"),
    ("openai", "https://api.openai.com/v1", "sk-env"),
    ("openai", "http://localhost:11434/v1", None),  # never leak the OpenAI key to another host
    ("fake", None, None),
    ("none", None, None),
])
def test_openai_api_key_fallback(provider, base_url, expected):
    env = {"OPENAI_API_KEY": "sk-env", "REVERIE_EMBEDDING_PROVIDER": provider}
    if base_url:
        env["REVERIE_EMBEDDING_BASE_URL"] = base_url
    assert load_settings(None, env).search.remote.api_key == expected


def test_explicit_api_key_wins_over_openai_api_key():
    env = {"OPENAI_API_KEY": "sk-env", "REVERIE_EMBEDDING_PROVIDER": "openai", "REVERIE_EMBEDDING_API_KEY": "mine"}
    assert load_settings(None, env).search.remote.api_key == "mine"


# -- errors name the key --------------------------------------------------------------------------
def test_unknown_key_in_file_names_the_dotted_key(tmp_path: Path):
    cfg = write_config(tmp_path, "[memory.search.query]\nmaxResult = 3\n")
    with pytest.raises(ConfigError) as err:
        load_settings(cfg, {})
    assert "memory.search.query.maxResult" in str(err.value)


def test_unknown_key_in_set_names_it():
    with pytest.raises(ConfigError, match=r"memory\.search\.bogus"):
        load_settings(None, {}, ["memory.search.bogus=1"])


def test_set_without_equals_is_a_config_error():
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        load_settings(None, {}, ["memory.search.provider"])


@pytest.mark.parametrize("override, key", [
    ("memory.search.query.maxResults=0", "memory.search.query.maxResults"),
    ("memory.search.query.minScore=2", "memory.search.query.minScore"),
    ("memory.search.chunking.overlap=400", "memory.search.chunking.overlap"),
    ("memory.search.chunking.tokens=64", "memory.search.chunking.overlap"),  # default overlap 80 >= 64
    ('timezone="Mars/Olympus_Mons"', "timezone"),
    ('memory.search.store.fts.tokenizer="porter"', "memory.search.store.fts.tokenizer"),
])
def test_bad_value_names_the_key(override, key):
    with pytest.raises(ConfigError) as err:
        load_settings(None, {}, [override])
    assert f"'{key}'" in str(err.value)


def test_bad_value_in_file_names_the_key(tmp_path: Path):
    cfg = write_config(tmp_path, '[memory.search.chunking]\ntokens = 200\noverlap = 200\n')
    with pytest.raises(ConfigError, match=r"memory\.search\.chunking\.overlap"):
        load_settings(cfg, {})


def test_bad_env_value_names_the_key():
    with pytest.raises(ConfigError, match="timezone"):
        load_settings(None, {"REVERIE_TIMEZONE": "Nowhere/Special"})


def test_unreadable_toml_is_a_config_error(tmp_path: Path):
    cfg = write_config(tmp_path, "[memory.search\nprovider = \n")
    with pytest.raises(ConfigError, match="cannot read"):
        load_settings(cfg, {})


def test_timezone_is_used(tmp_path: Path):
    s = load_settings(None, {"REVERIE_TIMEZONE": "Asia/Shanghai"})
    assert str(s.tz()) == "Asia/Shanghai"


# -- through the CLI ------------------------------------------------------------------------------
def test_cli_config_show_json_redacts_api_key(reverie_home: Path):
    (reverie_home / "workspace").mkdir(parents=True)
    r = cli("config", "show", "--json", "--set", 'memory.search.remote.apiKey="sk-very-secret"',
            env={"REVERIE_MAX_RESULTS": "4"})
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)  # exactly one JSON document
    assert data["memory"]["search"]["remote"]["apiKey"] == "***"
    assert "sk-very-secret" not in r.stdout + r.stderr
    assert data["memory"]["search"]["query"]["maxResults"] == 4
    assert data["memory"]["search"]["chunking"] == {"tokens": 400, "overlap": 80}


def test_cli_config_path(reverie_home: Path):
    r = cli("config", "path")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(reverie_home / "reverie.toml")


def test_cli_bad_key_in_file_exit_1_one_line(reverie_home: Path):
    write_config(reverie_home, "[memory.search.query]\nmaxResult = 3\n")
    r = cli("config", "show")
    assert r.returncode == 1
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "memory.search.query.maxResult" in lines[0]


def test_cli_bad_set_exit_1_one_line(reverie_home: Path):
    r = cli("config", "show", "--json", "--set", "memory.search.query.maxResults=0")
    assert r.returncode == 1
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "memory.search.query.maxResults" in lines[0], r.stderr
