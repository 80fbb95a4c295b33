"""reverie's typed settings tables (settings_model.py): what the settings rely on, without pydantic."""

from __future__ import annotations

import subprocess
import sys
from typing import Literal

import pytest

from reverie.config import ConfigError, Settings, load_settings
from reverie.settings_model import Field, Invalid, Model, field_validator


class Inner(Model):
    size: int = Field(3, ge=1, le=10, alias="sizeCap")
    ratio: float = 0.5


class Outer(Model):
    name: str | None = None
    mode: Literal["off", "on"] = "off"
    inner: Inner = Inner()
    tags: list[str] = Field(default_factory=list)
    paths: list[str | Inner] = Field(default_factory=list)
    table: dict[str, Inner] = Field(default_factory=dict)
    flag: bool = False
    low: int = 1
    high: int = Field(5, validate_default=True)

    @field_validator("name", mode="before")
    @classmethod
    def _trim(cls, v):
        return v.strip() if isinstance(v, str) else v

    @field_validator("high")
    @classmethod
    def _above_low(cls, v, info):
        if v <= info.data.get("low", 0):
            raise ValueError(f"high ({v}) must be above low")
        return v


def test_lax_values_from_text_as_environment_variables_and_flags_give_them():
    o = Outer.model_validate({"inner": {"sizeCap": "7", "ratio": "0.25"}, "flag": "yes", "low": 2.0})
    assert (o.inner.size, o.inner.ratio, o.flag, o.low) == (7, 0.25, True, 2)
    assert Outer(inner={"size": 4}).inner.size == 4  # the Python name works as well as the alias


@pytest.mark.parametrize("data, where, words", [
    ({"inner": {"sizeCap": 0}}, ("inner", "sizeCap"), "must be at least 1 (got 0)"),
    ({"inner": {"sizeCap": "many"}}, ("inner", "sizeCap"), "must be a whole number (got 'many')"),
    ({"inner": {"ratio": "nan"}}, ("inner", "ratio"), "must be a finite number (got 'nan')"),
    ({"low": 1.5}, ("low",), "must be a whole number (got 1.5)"),
    ({"low": True}, ("low",), "must be a whole number (got True)"),
    ({"name": 12}, ("name",), "must be text (a quoted string) (got 12)"),
    ({"mode": "maybe"}, ("mode",), "must be one of off or on (got 'maybe')"),
    ({"flag": "perhaps"}, ("flag",), "must be true or false (got 'perhaps')"),
    ({"tags": "a,b"}, ("tags",), "must be a list (got 'a,b')"),
    ({"tags": ["a", 2]}, ("tags", 1), "must be text (a quoted string) (got 2)"),
    ({"inner": 5}, ("inner",), "must be a table of keys and values (got 5)"),
    ({"table": {"x": {"sizeCap": 99}}}, ("table", "x", "sizeCap"), "must be at most 10 (got 99)"),
    ({"paths": [{"sizeCap": 0}]}, ("paths", 0, "sizeCap"), "must be at least 1 (got 0)"),  # the table's complaint
    ({"low": 9}, ("high",), "high (5) must be above low"),  # a default checked against the fields before it
])
def test_a_bad_value_is_named_by_its_keys_in_plain_words(data, where, words):
    with pytest.raises(Invalid) as caught:
        Outer.model_validate(data)
    assert caught.value.loc == where and caught.value.words == words and not caught.value.unknown


def test_an_unknown_key_is_refused_and_named():
    with pytest.raises(Invalid) as caught:
        Outer.model_validate({"inner": {"sizeCaps": 2}})
    assert caught.value.unknown and caught.value.loc == ("inner", "sizeCaps")
    with pytest.raises(ConfigError, match=r"unknown settings key 'memory.search.query.maxResult'; "
                                          r"did you mean 'memory.search.query.maxResults'\?"):
        load_settings(None, {}, ["memory.search.query.maxResult=3"])


def test_validators_run_before_and_after_the_type_check():
    assert Outer(name="  padded  ").name == "padded"
    assert Outer(low=1, high=7).high == 7


def test_assignment_is_checked_and_remembered_as_set():
    o = Outer()
    assert o.model_fields_set == set()
    o.inner.size = "8"
    assert o.inner.size == 8 and o.inner.model_fields_set == {"size"}
    with pytest.raises(Invalid, match="must be at most 10"):
        o.inner.size = 11
    assert o.inner.size == 8  # unchanged by the refused value
    with pytest.raises(AttributeError):
        o.nonsense = 1
    o._private_note = "free"  # attributes that are not settings are the object's own


def test_defaults_and_copies_are_never_shared():
    a, b = Outer(), Outer()
    a.inner.size = 9
    a.tags.append("x")
    assert (b.inner.size, b.tags) == (3, [])
    assert Outer().inner.size == 3  # nor is the class's default table changed
    deep = a.model_copy(deep=True)
    deep.inner.size = 2
    assert a.inner.size == 9
    shallow = a.model_copy(update={"low": 4})
    assert shallow.low == 4 and a.low == 1 and "low" in shallow.model_fields_set


def test_dump_uses_the_users_spelling_when_asked():
    o = Outer(inner={"sizeCap": 4}, table={"k": {"ratio": 1}})
    assert o.model_dump(by_alias=True)["inner"] == {"sizeCap": 4, "ratio": 0.5}
    assert o.model_dump()["table"] == {"k": {"size": 3, "ratio": 1.0}}
    assert Outer.model_validate(o.model_dump(by_alias=True)) == o


def test_the_settings_dump_round_trips_and_the_redacted_view_hides_keys():
    s = load_settings(None, {"REVERIE_CHAT_API_KEY": "sk-very-secret"}, ["memory.search.query.maxResults=9"])
    again = Settings.model_validate(s.model_dump(by_alias=True))
    # (sessions.pruning.ttl is read as minutes and kept in seconds: its dump is not an input)
    assert again.memory == s.memory and again.chat == s.chat and again.memory.search.query.max_results == 9
    assert s.redacted()["chat"]["apiKey"] == "***"


def test_settings_never_import_pydantic():
    code = ("import sys; from reverie.config import load_settings; load_settings(None, {}); "
            "print('pydantic' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "False", r.stderr
