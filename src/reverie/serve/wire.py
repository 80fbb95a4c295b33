"""The command-line bridge's own framing: a list of strings as length-prefixed UTF-8 fields
(``<byte length>:<bytes>,`` each, netstring style).

Why not JSON: a `reverie` command or hook that a running server answers spends most of its life
starting Python; ``import json`` (with ``re`` and ``enum`` behind it) added ~15 ms of the ~80 ms
such a command took, more than the server's work for a keyword search. This encoding needs nothing
but ``bytes``. The server still speaks JSON to every other client.
"""

from __future__ import annotations

CONTENT_TYPE = "application/x-reverie-fields"


class WireError(ValueError):
    pass


def encode(fields) -> bytes:
    out = []
    for field in fields:
        data = str(field).encode("utf-8")
        out.append(b"%d:%s," % (len(data), data))
    return b"".join(out)


def decode(data: bytes) -> list[str]:
    fields, at, end = [], 0, len(data)
    while at < end:
        colon = data.find(b":", at, at + 21)
        if colon < 0:
            raise WireError("a field without its length")
        digits = data[at:colon]
        if not digits.isdigit():
            raise WireError("a field length that is not a number")
        start = colon + 1
        stop = start + int(digits)
        if stop >= end or data[stop:stop + 1] != b",":
            raise WireError("a field cut short")
        try:
            fields.append(data[start:stop].decode("utf-8"))
        except UnicodeDecodeError:
            raise WireError("a field that is not UTF-8") from None
        at = stop + 1
    return fields


# A command line's request: "1" (this layout), the caller's folder, its standard input, the number
# of environment entries, those entries as name and value, then the command line's words.
LAYOUT = "1"


def command_request(argv: list[str], env: dict, cwd: str, stdin: str) -> bytes:
    fields = [LAYOUT, cwd, stdin, str(len(env))]
    for key, value in env.items():
        fields += [key, value]
    return encode(fields + list(argv))


def read_command_request(data: bytes) -> dict:
    """``{"argv", "env", "cwd", "stdin"}`` of a request made by :func:`command_request`."""
    fields = decode(data)
    if len(fields) < 4 or fields[0] != LAYOUT or not fields[3].isdigit():
        raise WireError("not a command request of this version")
    count = int(fields[3])
    rest = fields[4:]
    if len(rest) < 2 * count:
        raise WireError("a command request cut short")
    env = dict(zip(rest[0:2 * count:2], rest[1:2 * count:2]))
    return {"cwd": fields[1], "stdin": fields[2], "env": env, "argv": rest[2 * count:]}


def command_answer(answer: dict) -> bytes:
    return encode([str(int(answer.get("code", 2))), answer.get("stdout", ""), answer.get("stderr", "")])


def read_command_answer(data: bytes) -> dict:
    fields = decode(data)
    if len(fields) != 3 or not fields[0].lstrip("-").isdigit():
        raise WireError("not a command answer")
    return {"code": int(fields[0]), "stdout": fields[1], "stderr": fields[2]}
