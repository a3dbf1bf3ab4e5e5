"""Project instructions: found in the root and the touched folders, bounded, in the system
prompt of every request, and named to the user once per session."""

from __future__ import annotations

import json
from pathlib import Path

from dsh_lsp.agent import AgentOptions, AgentSpec
from dsh_lsp.fs_tools import FsPolicyPlugin, FsToolsPlugin
from dsh_lsp.fs_tools.local import LocalFileSystemPlugin, LocalSearchPlugin
from dsh_lsp.instructions import INSTRUCTIONS_LOADED, InstructionsPlugin, find_sources, render
from dsh_lsp.testing.openai_chunks import ToolCallSpec
from dsh_lsp.testing.scripted_model import text_reply, tool_reply
from tests.agent_loop.harness import MODEL, loop_harness, of_type

NAMES = ("AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md")


def _tree(root: Path) -> None:
    (root / "AGENTS.md").write_text("Use tabs.\n")
    (root / ".github").mkdir()
    (root / ".github" / "copilot-instructions.md").write_text("Be brief.\n")
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "CLAUDE.md").write_text("pkg rules\n")
    (root / "pkg" / "sub" / "AGENTS.md").write_text("sub rules\n")
    (root / "pkg" / "sub" / "code.py").write_text("x = 1\n")
    (root.parent / "AGENTS.md").write_text("outside the workspace\n")


def test_sources_come_from_the_root_then_down_to_each_touched_folder(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    _tree(root)
    plain = find_sources(str(root), (), NAMES, 1000)
    assert [s.path for s in plain] == ["AGENTS.md", ".github/copilot-instructions.md"]
    deep = find_sources(str(root), (str(root / "pkg" / "sub"),), NAMES, 1000)
    assert [s.path for s in deep] == [
        "AGENTS.md",
        ".github/copilot-instructions.md",
        "pkg/CLAUDE.md",
        "pkg/sub/AGENTS.md",
    ]
    outside = find_sources(str(root), (str(tmp_path),), NAMES, 1000)
    assert "outside the workspace\n" not in [s.text for s in outside]


def test_the_section_is_bounded(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("rule\n" * 2000)
    (tmp_path / "CLAUDE.md").write_text("more\n" * 2000)
    sources = find_sources(str(tmp_path), (), NAMES, 4096)
    assert sources[0].truncated
    text, included = render(sources, 6000)
    assert len(text.encode()) <= 6000
    assert included[0] == "AGENTS.md"
    assert "[… cut to fit …]" in text


async def test_requests_carry_the_instructions_and_the_user_is_told_once(tmp_path: Path) -> None:
    _tree_root = tmp_path / "ws"
    _tree_root.mkdir()
    _tree(_tree_root)
    read = ToolCallSpec(
        id="r1", name="read", arguments=json.dumps({"file_path": "pkg/sub/code.py"})
    )
    plugins = (
        (LocalFileSystemPlugin(), {"roots": [str(_tree_root)]}),
        (LocalSearchPlugin(), None),
        (FsPolicyPlugin(), None),
        (FsToolsPlugin(), None),
        (InstructionsPlugin(), None),
    )
    async with loop_harness(
        tool_reply(read), text_reply("ok"), text_reply("again"), models=plugins
    ) as h:
        spec = AgentSpec(options=AgentOptions(model=MODEL), cwd=str(_tree_root))
        handle = await h.agents.create(spec)
        agent = handle.agent
        agent.send("look")
        await agent.when_idle()
        agent.send("and again")
        await agent.when_idle()
        loaded = of_type(agent.session, INSTRUCTIONS_LOADED)
        systems = [request.system or "" for request in h.model.requests]
        await handle.dispose()
    assert "Use tabs." in systems[0]
    assert "pkg rules" not in systems[0]
    assert "sub rules" in systems[1], "the folder of the file read joins the next request"
    assert loaded == [
        {"sources": ["AGENTS.md", ".github/copilot-instructions.md"]},
        {"sources": ["pkg/CLAUDE.md", "pkg/sub/AGENTS.md"]},
    ]
    assert "sub rules" in systems[2]
