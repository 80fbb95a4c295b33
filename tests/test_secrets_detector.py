"""The secret detector (reverie.trust.secrets): what it flags, what it leaves, how it masks."""

from __future__ import annotations

import pytest

from reverie.trust.secrets import (
    LINE_MARKER,
    PLACEHOLDER,
    cn_id_ok,
    find_secrets,
    holds_secret,
    iban_ok,
    luhn_ok,
    mask,
    withhold_lines,
)

SECRETS = [
    ("Remember that the wifi password at the cabin is sunflower99.", "sunflower99"),
    ("门禁密码是 4471", "4471"),
    ("my PIN is 2580", "2580"),
    ("4471 is the door code", "4471"),
    ("WiFi密码：sunflower99，别告诉别人", "sunflower99"),
    ("gym locker code 3318", "3318"),
    ("password=hunter2", "hunter2"),
    ("export OPENAI_API_KEY=sk-proj-abcdEFGH1234ijklMNOP5678qrst", "sk-proj-abcdEFGH1234ijklMNOP5678qrst"),
    ("token ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5", "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"),
    ("AWS key AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("card 4111 1111 1111 1111", "4111 1111 1111 1111"),
    ("身份证号 11010519491231002X", "11010519491231002X"),
    ("IBAN DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 00"),
    # as people type them (a set written apart from the detector missed 22 of 80 of these shapes)
    ("pw: Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("my PIN's 9021", "9021"),
    ("the password for the old laptop in the spare room is Maple-77-attic", "Maple-77-attic"),
    ("bike lock combo 4410", "4410"),
    ("padlock combination 12-34-08", "12-34-08"),
    ("back door keypad: 7730#", "7730#"),
    ("router login is admin / Qx9$mm2Lp", "Qx9$mm2Lp"),
    ("vpn pass = Heron_Dusk_52", "Heron_Dusk_52"),
    ("the code they texted me is 538201", "538201"),
    ("cache at redis://:Zr7pK2wQ9@cache.local:6379/0", "Zr7pK2wQ9"),
    ("my mastercard is 5100 2233 4455 6677", "5100 2233 4455 6677"),  # said to be a card: no Luhn asked
    ("CVV是 318", "318"),
    ("报警器撤防码是 6620", "6620"),
    ("两步验证恢复码 9QX2-L7MP-3KZT", "9QX2-L7MP-3KZT"),
    ("seed phrase is maple river candle orbit violet timber glass north hollow ember quiet raven",
     "maple river candle orbit violet timber glass north hollow ember quiet raven"),
    ("my pw is qL7#vWm2!pz", "qL7#vWm2!pz"),
    ("The safe combination is 21-7-12.", "21-7-12"),
    ("verification code sent to my phone is 482913", "482913"),
    ("My driver's license number is K771-0392-5548, the rental place wants it.", "K771-0392-5548"),
    ("这是测试环境的token：tk_5a4b3c2d1e0f9a8b7c6d5e4f", "tk_5a4b3c2d1e0f9a8b7c6d5e4f"),
]

ORDINARY = [
    "The meeting moved to 2024-05-12 at 10:30 in room 402.",
    "Dinner was $84.50 for the two of us.",
    "We upgraded to version 3.12.1 last night.",
    "Flight MU5138 at 07:40, seat 32A.",
    "Commit 66b6816a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c fixed the flaky test.",
    "Request 3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c failed with status 503.",
    "Need to reset my password tomorrow, the old one expired.",
    "The password was rejected again.",
    "The door code is the same as last year.",
    "会议改到2025年3月12日下午3点，在1203会议室。",
    "房租从4月1号起涨到4500元。",
    "密码学的课在周三。",
    "门禁卡丢了，补办花了50元",
    "the user interface of my app is slow",
    "The mountain pass is closed due to snow.",
    "test pass = true",
    "combo 2000 calories",
    "the code they sent me is 404 error",
    "my debit card was declined at 7-11",
    "seed phrase: what is it?",
    "Login: Monday / Tuesday",
    "CVV是什么意思？",
    "我的银行卡丢了，卡号我记不清了",
    # a fresh-eyes review's look-alikes for the shapes above
    "The combo is $12.99 at McDonald's.",
    "Best combo: Ctrl+Shift+T reopens tabs.",
    "My favorite combo: 1-2-3 punch combo in boxing",
    "The code I sent you is 2048 lines long",
    "Zip code they sent me is 94107",
    "The password's length must be 12",
    "Season pass = $399",
    "bus pass: route_12",
    "My visa application number is 1234 5678 9012 3456",
    "Gift card order #4000 1234 5678 9010 shipped",
    "信用卡账单的流水号是 2026100212345678",
    "银行卡挂失受理号 1234567890123",
]


@pytest.mark.parametrize("text,value", SECRETS)
def test_flags_the_value_itself(text, value):
    spans = [text[f.start:f.end] for f in find_secrets(text)]
    assert value in spans or any(value in s for s in spans), spans
    masked = mask(text)
    assert value not in masked and PLACEHOLDER in masked


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_sentences_are_not_flagged(text):
    assert find_secrets(text) == []
    assert mask(text) == text


def test_mask_keeps_the_words_around_the_value():
    assert mask("the wifi password at the cabin is sunflower99.") == f"the wifi password at the cabin is {PLACEHOLDER}."


def test_withhold_lines_replaces_only_the_secret_line_and_keeps_the_bullet():
    text = "- Booked the cabin for May.\n- Remember that the wifi password at the cabin is sunflower99.\n- Bring boots."
    out, n = withhold_lines(text)
    assert n == 1
    assert out.split("\n") == ["- Booked the cabin for May.", f"- {LINE_MARKER}", "- Bring boots."]
    assert "sunflower99" not in out


def test_a_private_key_block_is_withheld_over_its_lines():
    text = "keys:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx\n-----END RSA PRIVATE KEY-----\ndone"
    out, n = withhold_lines(text)
    assert "MIIEpAIBAAKCAQEAx" not in out and out.startswith("keys:") and out.endswith("done") and n >= 2


def test_checksums():
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert cn_id_ok("11010519491231002X") and not cn_id_ok("110105194912310021")
    assert iban_ok("DE89 3704 0044 0532 0130 00") and not iban_ok("DE88 3704 0044 0532 0130 00")
    # a card-shaped number failing Luhn, an ID with a wrong check character: not flagged by shape alone
    assert not holds_secret("order 4111 1111 1111 1112 shipped")
    assert not holds_secret("ref 110105194912310021 in the ledger")


def test_secrets_written_apart_from_the_detector():
    """benchmarks/secrets_fresh_data.py: 80 secrets and 80 look-alikes written by someone who had not
    read this code. Before the shapes above, 58 of the 80 were flagged."""
    import runpy
    from pathlib import Path

    data = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "secrets_fresh_data.py"))
    missed = [m for m, v in data["SECRETS"] if not any(v in m[f.start:f.end] or m[f.start:f.end] in v
                                                         for f in find_secrets(m))]
    assert not missed, missed
    assert [m for m in data["NOT_SECRETS"] if find_secrets(m)] == []


def test_benchmark_goals_hold():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from secret_detector import measure

    r = measure()
    assert r["recall"] >= 0.95 and r["fpRate"] <= 0.01, r


@pytest.mark.parametrize("text", [
    "the wifi PASSWORD is sunflower99",
    "the wifi paſſword is sunflower99",  # the long s: IGNORECASE reads it as s
    "the door code is 4471 since May",  # the Kelvin sign below reads as k
    "api \u212aey: 9f8e7d6c5b4a39281706",
    "ssn: 123-45-6789",
    "my pİn is 8842",  # the dotted capital I reads as i
    "PIN 0451",
    "card 4111 1111 1111 1111 on file",
    "身份证号 110101199003074578",
    "ssn １２３-４５-６７８９",  # fullwidth digits: the patterns' \d reads them, so must the digit count
])
def test_the_word_checks_before_the_patterns_miss_nothing_the_patterns_find(text):
    """The checks that skip a pattern for a text without its keyword (ASCII stems, digit counts,
    key prefixes) see the text as the patterns' IGNORECASE does: each of these is still found."""
    assert find_secrets(text)
