"""The editor's language servers as agent tools, end to end: a real server process, a
client that advertises ``experimental.dsh.editor`` and answers ``dsh/editor/*`` from its own
buffers, with the Neovim and VS Code capability sets; only the model's network is scripted."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator

import anyio
import pytest
import pytest_asyncio

from dsh_lsp.testing import ToolCallSpec, completion
from tests.server.editor_model import Json
from tests.server.support import (
    CLIENTS,
    DshClient,
    ModelScript,
    Rig,
    change_document,
    open_document,
    running_server,
)

from .language_servers import EDITOR_CAPS, LanguageServers, editor_client

pytestmark = pytest.mark.asyncio(loop_scope="module")

TIMEOUT_MS = 400
"""``editor.diagnosticsTimeoutMs`` of these servers (short: one test waits it out)."""
REQUEST_MS = 400
"""``editor.requestTimeoutMs`` of these servers."""


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=CLIENTS)
async def rig(
    request: pytest.FixtureRequest, model: ModelScript, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Rig]:
    """A server whose client lends every ``dsh/editor/*`` method."""
    root = tmp_path_factory.mktemp("intel")
    client, servers = editor_client()
    options = {
        "editor": {"diagnosticsTimeoutMs": TIMEOUT_MS, "requestTimeoutMs": REQUEST_MS},
        "permissions": {"shell": "allow"},
    }
    async with running_server(
        request.param,
        model,
        root,
        experimental=EDITOR_CAPS,
        client=client,
        init_options=options,
    ) as started:
        started.extra["servers"] = servers
        yield started


@pytest.fixture
def servers(rig: Rig) -> Iterator[LanguageServers]:
    """The client's language servers, answering fresh diagnostics unless a test says not."""
    found = rig.extra["servers"]
    assert isinstance(found, LanguageServers)
    found.mode, found.answers, found.asked, found.withdrawn = "fresh", {}, [], []
    yield found
    found.mode = "fresh"


def _call(name: str, call_id: str = "c1", **args: Json) -> ToolCallSpec:
    return ToolCallSpec(id=call_id, name=name, arguments=json.dumps(args))


def _edit(path: str, old: str, new: str, call_id: str = "e1") -> ToolCallSpec:
    return _call("edit", call_id, file_path=path, old_string=old, new_string=new)


def _tool_results(rig: Rig) -> list[str]:
    body = rig.model.requests()[-1]
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


async def _run(rig: Rig, client: DshClient, *calls: ToolCallSpec) -> str:
    """One turn: each call in its own step, then a final answer; returns the session id."""
    rig.model.enqueue(*(completion(tool_calls=[call]) for call in calls), completion(text="done"))
    session = await client.new_session()
    assert (await client.prompt(session, "go"))["stopReason"] == "end_turn"
    return session


def _write(rig: Rig, client: DshClient, name: str, text: str) -> str:
    (rig.workspace / name).write_text(text)
    uri = rig.uri(name)
    open_document(client, uri, text)
    return uri


async def _read_then_edit(
    rig: Rig,
    client: DshClient,
    name: str,
    text: str,
    edit: tuple[str, str],
    *then: ToolCallSpec,
) -> str:
    """Opens *name* holding *text*; one turn reads it, edits ``edit[0]`` to ``edit[1]`` and
    makes the calls *then*; returns the file's URI."""
    uri = _write(rig, client, name, text)
    await _run(rig, client, _call("read", "r1", file_path=name), _edit(name, *edit), *then)
    return uri


def _location(uri: str, line: int, start: int, end: int) -> Json:
    """An LSP ``Location`` on one line, from character *start* to *end*."""
    return {
        "uri": uri,
        "range": {
            "start": {"line": line, "character": start},
            "end": {"line": line, "character": end},
        },
    }


async def test_every_tool_is_offered_with_its_prompt_section(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    rig.model.enqueue(completion(text="hi"))
    session = await client.new_session()
    await client.prompt(session, "hello")
    body = rig.model.requests()[-1]
    names = {tool["function"]["name"] for tool in body["tools"]}
    assert {"diagnostics", "definition", "references", "symbols", "hover"} <= names
    system = body["messages"][0]["content"]
    assert "`definition`" in system
    assert "`diagnostics`" in system
    assert "`symbols`" in system


async def test_an_edit_that_introduces_an_error_reports_it_for_that_version(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    uri = await _read_then_edit(
        rig, client, "intro.py", "def f():\n    return 1\n", ("return 1", "return bogus")
    )
    result = _tool_results(rig)[-1]
    version = client.editor.buffers[uri].version
    assert f"New problems in the lines you changed (version {version}):" in result
    assert "intro.py:2:12: error: Undefined name `bogus` [Ruff F821]" in result
    assert "    return bogus" in result
    asked = [p for m, p in servers.asked if m == "diagnostics" and "version" in p]
    assert asked == [{"uri": uri, "version": version, "timeoutMs": TIMEOUT_MS}]


async def test_fixing_it_gives_no_new_problems(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    await _read_then_edit(rig, client, "fix.py", "x = bogus\ny = 2\n", ("x = bogus", "x = 1"))
    # set off from the edit's own text, not run on after its last line
    assert _tool_results(rig)[-1].endswith("\n\nNo new problems.")


async def test_a_problem_that_was_there_before_is_not_new(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    await _read_then_edit(rig, client, "old.py", "x = bogus + 1\n", ("bogus + 1", "bogus + 2"))
    assert _tool_results(rig)[-1].endswith("No new problems.")


async def test_diagnostics_of_an_older_version_are_never_reported_as_current(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    servers.mode = "stale"
    await _read_then_edit(
        rig, client, "stale.py", "def f():\n    return 1\n", ("return 1", "return bogus")
    )
    result = _tool_results(rig)[-1]
    assert "had not reported on this version of stale.py" in result
    assert "New problems" not in result
    assert "No new problems" not in result


async def test_a_client_that_never_answers_does_not_hold_the_turn(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    servers.mode = "silent"
    await _read_then_edit(
        rig,
        client,
        "quiet.py",
        "def f():\n    return 1\n",
        ("return 1", "return 2"),
        _call("definition", "d1", path="quiet.py", line=1, symbol="f"),
    )
    edit_result, definition_result = _tool_results(rig)[-2:]
    assert "had not reported on this version of quiet.py yet" in edit_result
    assert definition_result.startswith("The editor did not answer")
    # Every request given up on is withdrawn: the one before the edit, the one for its
    # version, and the definition.
    await client.until(lambda: len(servers.withdrawn) == 3)
    assert sorted(servers.withdrawn) == ["definition", "diagnostics", "diagnostics"]


async def test_a_malformed_answer_is_a_clear_tool_error_and_the_server_goes_on(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    servers.mode = "malformed"
    _write(rig, client, "bad.py", "def f():\n    pass\n")
    await _run(rig, client, _call("references", "x1", path="bad.py", line=1, symbol="f"))
    result = _tool_results(rig)[-1]
    assert result.startswith("Error:")
    assert "dsh/editor/references is malformed" in result
    servers.mode = "fresh"
    await _run(rig, client, _call("diagnostics", "x2", path="bad.py"))
    assert _tool_results(rig)[-1] == "No problems reported for bad.py."


async def test_definition_resolves_the_symbol_in_the_negotiated_encoding(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    text = 'greeting = "h\U0001f600llo wörld"; call(foo)\n'
    uri = _write(rig, client, "uses.py", text)
    target = rig.uri("lib.py")
    (rig.workspace / "lib.py").write_text("# lib\n\ndef foo():\n    return 1\n")
    servers.answers["definition"] = {"locations": [_location(target, 2, 4, 7)]}
    session = await _run(
        rig, client, _call("definition", "d1", path="uses.py", line=1, symbol="foo")
    )
    ((_method, params),) = [(m, p) for m, p in servers.asked if m == "definition"]
    index = text.index("foo")
    encoding = client.editor.behaviour.encoding
    units = len(
        text[:index].encode(
            encoding.replace("utf-", "utf-") + ("-le" if encoding != "utf-8" else "")
        )
    )
    width = {"utf-8": 1, "utf-16": 2, "utf-32": 4}[encoding]
    assert params == {
        "textDocument": {"uri": uri},
        "position": {"line": 0, "character": units // width},
    }
    assert _tool_results(rig)[-1] == "lib.py:3: def foo():"
    cards = [c for c in client.tool_calls(session) if c["toolCallId"] == "d1"]
    assert cards[-1]["locations"] == [{"path": str(rig.workspace / "lib.py"), "line": 3}]


async def test_a_symbol_not_on_the_line_is_a_clear_error(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    _write(rig, client, "miss.py", "a = 1\nb = 2\n")
    await _run(rig, client, _call("hover", "h1", path="miss.py", line=2, symbol="a"))
    result = _tool_results(rig)[-1]
    assert "'a' is not on line 2 of miss.py" in result
    assert not [m for m, _ in servers.asked if m == "hover"]


async def test_references_are_bounded_and_say_how_many_were_left_out(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    lines = "".join(f"use_{n} = thing\n" for n in range(60))
    uri = _write(rig, client, "many.py", "thing = 1\n" + lines)
    servers.answers["references"] = {"locations": [_location(uri, n, 0, 5) for n in range(61)]}
    await _run(rig, client, _call("references", "f1", path="many.py", line=1, symbol="thing"))
    result = _tool_results(rig)[-1].splitlines()
    assert result[0] == "many.py:1: thing = 1"
    assert result[1] == "many.py:2: use_0 = thing"
    assert result[-1] == "(11 more references not shown.)"
    assert len(result) == 51


async def test_symbols_and_hover(rig: Rig, client: DshClient, servers: LanguageServers) -> None:
    uri = _write(rig, client, "sym.py", "class Store:\n    pass\n")
    servers.answers["symbols"] = {
        "symbols": [
            {
                "name": "Store",
                "kind": 5,
                "location": _location(uri, 0, 6, 11),
            }
        ]
    }
    servers.answers["hover"] = {"contents": "```python\nclass Store()\n```"}
    await _run(
        rig,
        client,
        _call("symbols", "s1", query="Store"),
        _call("hover", "h1", path="sym.py", line=1, symbol="Store"),
    )
    symbols, hover = _tool_results(rig)[-2:]
    assert symbols == "Store (class) sym.py:1"
    assert hover == "```python\nclass Store()\n```"
    ((_, params),) = [(m, p) for m, p in servers.asked if m == "hover"]
    assert params["position"] == {"line": 0, "character": 6}


def _rewrite(name: str, text: str, *, then: str = "") -> ToolCallSpec:
    script = f"open({name!r}, 'w').write({text!r}); print('writ' + 'ten', flush=True); {then}"
    command = f"{sys.executable} -c {json.dumps(script)}"
    return _call("bash", "b1", command=command, description="rewrite a file")


async def test_an_open_file_a_command_changed_gets_the_diagnostics_of_its_new_text(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    uri = _write(rig, client, "gen.py", "x = 1\n")
    fifo = rig.workspace / "go.fifo"
    if fifo.exists():
        fifo.unlink()
    os.mkfifo(fifo)
    new_text = "x = bogus\n"
    rig.model.enqueue(
        completion(tool_calls=[_rewrite("gen.py", new_text, then="open('go.fifo').read()")]),
        completion(text="done"),
    )
    session = await client.new_session()
    async with client.prompting(session, "regenerate") as outcome:
        # The editor's file watcher: once the command wrote the file (its output says so;
        # the card's command holds the word only in two halves), the buffer reloads (a
        # didChange with the disk text), then the command is let go.
        await client.until(lambda: "written" in json.dumps(client.updates[session]))
        change_document(client, uri, new_text, version=2)
        await anyio.to_thread.run_sync(fifo.write_text, "go")
    assert outcome["result"]["stopReason"] == "end_turn"
    result = _tool_results(rig)[-1]
    assert "Diagnostics of gen.py, which the command changed: New problems" in result
    assert "gen.py:1:5: error: Undefined name `bogus` [Ruff F821]" in result


async def test_a_changed_file_the_editor_does_not_reload_is_said_so(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    _write(rig, client, "keep.py", "x = 1\n")
    await _run(rig, client, _rewrite("keep.py", "x = 2\n"))
    result = _tool_results(rig)[-1]
    assert "keep.py, which the command changed: the editor has not shown the new text yet" in result


async def test_the_diagnostics_tool_lists_problems_with_their_lines_and_locations(
    rig: Rig, client: DshClient, servers: LanguageServers
) -> None:
    _write(rig, client, "one.py", "a = 1\nb = bogus\n")
    _write(rig, client, "two.py", 'ü = "\U0001f600"; bogus()\n')
    session = await _run(rig, client, _call("diagnostics", "g1"))
    rows = _tool_results(rig)[-1].splitlines()
    assert "one.py:2:5: error: Undefined name `bogus` [Ruff F821]" in rows
    assert "two.py:1:10: error: Undefined name `bogus` [Ruff F821]" in rows  # characters
    assert '    ü = "\U0001f600"; bogus()' in rows
    cards = [c for c in client.tool_calls(session) if c["toolCallId"] == "g1"]
    locations = cards[-1]["locations"]
    assert {"path": str(rig.workspace / "one.py"), "line": 2} in locations
    assert {"path": str(rig.workspace / "two.py"), "line": 1} in locations
