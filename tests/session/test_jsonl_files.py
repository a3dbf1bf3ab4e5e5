"""The JSONL backend's file layout and crash-safe file primitives."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.session import (
    JsonlPersistence,
    SessionError,
    default_sessions_dir,
    default_sqlite_path,
    default_state_dir,
    encode_event,
)
from dsh_lsp.session.durable_files import append, publish
from dsh_lsp.session.jsonl_layout import bucket_name, encode_id, log_path

from .scenarios import complete_turn, new_session

_SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-~")


@given(st.text(), st.text())
def test_id_encoding_is_injective_and_file_safe(a: str, b: str) -> None:
    encoded = encode_id(a)
    assert set(encoded) <= _SAFE
    assert not encoded.startswith(".")
    assert encoded not in ("", ".", "..")
    if a != b:
        assert encoded != encode_id(b)


@pytest.mark.parametrize(
    ("session_id", "encoded"),
    [
        ("abc-1.2_3", "abc-1.2_3"),
        ("a/b", "a~002fb"),
        ("~", "~007e"),
        (".", "~002e"),
        ("..", "~002e."),
        (".hidden", "~002ehidden"),
        ("é", "~00e9"),
        ("😀", "~d83d~de00"),
        ("", "~"),
    ],
)
def test_id_encoding_examples(session_id: str, encoded: str) -> None:
    assert encode_id(session_id) == encoded


def test_buckets_group_by_cwd() -> None:
    assert bucket_name(None) == "_no-cwd"
    assert bucket_name("/a") == bucket_name("/a")
    assert bucket_name("/a") != bucket_name("/b")
    assert bucket_name("/a").startswith("cwd-")
    assert len(bucket_name("/a")) == len("cwd-") + 12
    assert log_path(Path("/r"), "x/y", None) == Path("/r/_no-cwd/x~002fy.jsonl")


def test_default_directories_follow_xdg() -> None:
    env = {"XDG_STATE_HOME": "/state"}
    assert default_state_dir(env) == Path("/state/dsh-lsp")
    assert default_sessions_dir(env) == Path("/state/dsh-lsp/sessions")
    assert default_sqlite_path(env) == Path("/state/dsh-lsp/sessions.sqlite3")
    home = Path.home() / ".local" / "state" / "dsh-lsp"
    assert default_state_dir({}) == home
    assert default_state_dir({"XDG_STATE_HOME": "relative/path"}) == home


def test_publish_creates_private_files_and_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "log.jsonl"
    publish(target, b"one\n")
    assert target.read_bytes() == b"one\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert stat.S_IMODE(target.parent.stat().st_mode) == 0o700
    with pytest.raises(FileExistsError):
        publish(target, b"two\n")
    assert target.read_bytes() == b"one\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["log.jsonl"]


def test_a_failed_append_rolls_back_to_the_previous_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "log"
    target.write_bytes(b"kept\n")
    real_fsync = os.fsync
    calls: list[int] = []

    def failing_fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 1:
            raise OSError(5, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="Input/output error"):
        append(target, b"lost\n")
    assert target.read_bytes() == b"kept\n"
    append(target, b"next\n")
    assert target.read_bytes() == b"kept\nnext\n"


async def test_a_failed_timestamp_update_never_fails_a_durable_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    session = new_session("stamp")
    complete_turn(session)
    backend = JsonlPersistence(tmp_path)
    await backend.create(session.header)
    await backend.append(session.id, session.events[:5])
    stamped: list[object] = []

    def refuse(path: object, *args: object, **kwargs: object) -> None:
        stamped.append(path)
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "utime", refuse)
    await backend.append(session.id, session.events[5:])
    fresh = new_session("stamp-new")
    complete_turn(fresh)
    await backend.create(fresh.header)
    await backend.append(fresh.id, fresh.events[:])
    monkeypatch.undo()
    assert len(stamped) == 2
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"could not stamp {path}: [Errno 1] Operation not permitted"
        for path in (backend.path_of(session.header), backend.path_of(fresh.header))
    ]
    for stored in (session, fresh):
        loaded = await JsonlPersistence(tmp_path).load(stored.id)
        assert not loaded.repaired
        assert [encode_event(e) for e in loaded.events] == [encode_event(e) for e in stored.events]
    complete_turn(session)
    await backend.append(session.id, session.events[len(loaded.events) :])


async def test_an_id_stored_under_another_workspace_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    stored = new_session("taken")
    complete_turn(stored)
    first = JsonlPersistence(tmp_path)
    await first.create(stored.header)
    await first.append(stored.id, stored.events)
    backend = JsonlPersistence(tmp_path)
    elsewhere = replace(stored.header, cwd="/elsewhere")  # another bucket: create cannot tell
    await backend.create(elsewhere)
    with pytest.raises(SessionError) as caught:
        await backend.append(elsewhere.id, stored.events[:2])
    assert caught.value.code == "SESSION_EXISTS"
    assert str(backend.path_of(stored.header)) in str(caught.value)
    assert not backend.path_of(elsewhere).exists()
    loaded = await JsonlPersistence(tmp_path).load(stored.id)
    assert [encode_event(e) for e in loaded.events] == [encode_event(e) for e in stored.events]


@pytest.mark.skipif(not hasattr(os, "O_TMPFILE"), reason="no O_TMPFILE on this system")
def test_publish_never_names_a_temp_file_where_the_system_has_unnamed_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_named_temp(nbytes: int) -> str:
        raise AssertionError("publish fell back to a named temp file")

    monkeypatch.setattr("dsh_lsp.session.durable_files.secrets.token_hex", no_named_temp)
    target = tmp_path / "logs" / "s.jsonl"
    publish(target, b"header\n")
    assert target.read_bytes() == b"header\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["s.jsonl"]
    with pytest.raises(FileExistsError):
        publish(target, b"other\n")
    assert target.read_bytes() == b"header\n"
