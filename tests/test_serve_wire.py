"""The command-line bridge's framing (reverie.serve.wire): what goes in comes out, and a broken
message is refused rather than half read."""

from __future__ import annotations

import pytest

from reverie.serve import wire


def test_fields_round_trip_whatever_they_hold():
    fields = ["", "plain", "a:b,c", "12:ab,", "杭州 酒店 🏨", "line\nbreak\r\n", "nul\x00inside", "x" * 70000]
    assert wire.decode(wire.encode(fields)) == fields


def test_a_command_request_and_answer_round_trip():
    env = {"REVERIE_AGENT": "work", "TZ": "Asia/Shanghai", "EMPTY": ""}
    data = wire.command_request(["--home", "/h", "search", "--json", "湖景"], env, "/tmp/x", '{"prompt": "hi"}\n')
    req = wire.read_command_request(data)
    assert req == {"argv": ["--home", "/h", "search", "--json", "湖景"], "env": env, "cwd": "/tmp/x",
                   "stdin": '{"prompt": "hi"}\n'}
    answer = {"code": 1, "stdout": "", "stderr": "reverie: error: nope\n"}
    assert wire.read_command_answer(wire.command_answer(answer)) == answer


@pytest.mark.parametrize("data", [b"5:abc,", b"3:abc", b"3:abcd", b"abc", b"-1:,", b"3:ab\xff,", b":abc,",
                                  b"99999999999999999999999:x,"])
def test_broken_fields_are_refused(data):
    with pytest.raises(wire.WireError):
        wire.decode(data)


def test_a_request_of_another_layout_or_cut_short_is_refused():
    with pytest.raises(wire.WireError):
        wire.read_command_request(wire.encode(["2", "/", "", "0", "status"]))
    with pytest.raises(wire.WireError):
        wire.read_command_request(wire.encode(["1", "/", "", "3", "A", "b"]))
    with pytest.raises(wire.WireError):
        wire.read_command_answer(wire.encode(["zero", "", ""]))
