"""A session note is written whole and then given its name (sessions/hook.py): a reader or a crash never
meets it empty or half written, two notes of one minute never share a file, and nothing is left behind."""

from __future__ import annotations

import errno
import os

import pytest

from reverie.sessions.hook import _link_new
from test_chat_cli import reverie


def test_two_notes_of_one_minute_each_whole_and_nothing_left_behind(reverie_home):
    r = reverie(reverie_home, "chat", stdin="We picked the Lakeside Hotel.\n/new\nI prefer green tea.\n/new\n")
    assert r.returncode == 0, r.stderr
    folder = reverie_home / "workspace" / "memory"
    notes = sorted(folder.glob("*-*-*-*.md"))
    texts = [p.read_text(encoding="utf-8") for p in notes]
    assert len(notes) == 2 and any("Lakeside" in t for t in texts) and any("green tea" in t for t in texts), texts
    assert not [p.name for p in folder.iterdir() if p.name.startswith(".") and p.name.endswith(".part")]


def test_a_taken_name_is_never_touched(tmp_path):
    tmp, path = tmp_path / ".note.part", tmp_path / "note.md"
    tmp.write_bytes(b"- new\n")
    path.write_bytes(b"- kept\n")
    with pytest.raises(FileExistsError):
        _link_new(tmp, path, b"- new\n")
    assert path.read_bytes() == b"- kept\n"


def test_without_hard_links_the_note_is_written_in_place(tmp_path, monkeypatch):
    def no_links(src, dst, *a, **k):  # (a file system that has none: some network and FUSE mounts)
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    tmp, path = tmp_path / ".note.part", tmp_path / "note.md"
    tmp.write_bytes(b"- whole\n")
    _link_new(tmp, path, b"- whole\n")
    assert path.read_bytes() == b"- whole\n"
    with pytest.raises(FileExistsError):
        _link_new(tmp, path, b"- other\n")
    assert path.read_bytes() == b"- whole\n"
