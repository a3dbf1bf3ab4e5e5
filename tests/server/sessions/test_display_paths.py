"""Display paths: absolute paths at or below the session's cwd read relative in titles and
progress; other paths, and everything under a root cwd, stay as written."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.server.sessions.display_paths import relative_path, relative_title

_names = st.text(st.sampled_from("abcxyz_-.0129"), min_size=1, max_size=8).filter(
    lambda name: name not in (".", "..")
)
_relative = st.lists(_names, min_size=1, max_size=3).map("/".join)
_verbs = st.sampled_from(["Read", "Edit", "Write", "List", "Grep 'x' in"])


@given(verb=_verbs, rel=_relative, tail=st.sampled_from(["", " (1-20)", ", and more"]))
def test_a_path_under_the_cwd_reads_relative(verb: str, rel: str, tail: str) -> None:
    assert relative_title(f"{verb} /work/ws/{rel}{tail}", "/work/ws") == f"{verb} {rel}{tail}"
    assert relative_path(f"/work/ws/{rel}", "/work/ws/") == rel


@given(verb=_verbs, rel=_relative)
def test_paths_outside_the_cwd_are_kept(verb: str, rel: str) -> None:
    for title in (f"{verb} /work/ws2/{rel}", f"{verb} /other/work/ws/{rel}", f"{verb} {rel}"):
        assert relative_title(title, "/work/ws") == title
    assert relative_path(f"/work/ws2/{rel}", "/work/ws") == f"/work/ws2/{rel}"


def test_the_cwd_itself_reads_as_a_dot() -> None:
    assert relative_title("Grep 'TODO' in /work/ws", "/work/ws") == "Grep 'TODO' in ."
    assert relative_title("List /work/ws/", "/work/ws") == "List ."
    assert relative_title("Glob *.py in '/work/ws', /work/ws/src", "/work/ws") == (
        "Glob *.py in '.', src"
    )
    assert relative_path("/work/ws", "/work/ws") == "."


def test_a_root_or_missing_cwd_changes_nothing() -> None:
    assert relative_title("Read /etc/hosts", "/") == "Read /etc/hosts"
    assert relative_title("Read /etc/hosts", None) == "Read /etc/hosts"
    assert relative_title("Read /w/x", "relative/cwd") == "Read /w/x"
