"""The local provider passes the reusable provider contract (dsh_lsp.testing.fs_contract)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from dsh_lsp.fs_tools import FileSystem
from dsh_lsp.fs_tools.local import LocalFileSystem, WorkspacePaths
from dsh_lsp.testing.fs_contract import (
    FS_CONTRACT,
    ContractCase,
    FsWorld,
    check_filesystem,
    run_contract_case,
)


@asynccontextmanager
async def local_provider(world: FsWorld) -> AsyncIterator[FileSystem]:
    yield LocalFileSystem(WorkspacePaths([str(world.workspace)]))


@pytest.mark.parametrize("case", FS_CONTRACT, ids=lambda case: case.name)
async def test_local_provider_meets_the_contract(case: ContractCase, tmp_path: Path) -> None:
    await run_contract_case(case, local_provider, tmp_path)


async def test_the_runner_catches_undeclared_changes(tmp_path: Path) -> None:
    async def sloppy(fs: FileSystem, world: FsWorld) -> None:
        world.put("stray.tmp", "left behind")

    case = ContractCase(name="sloppy", run=sloppy)
    with pytest.raises(AssertionError, match=r"ws/stray\.tmp changed"):
        await run_contract_case(case, local_provider, tmp_path)


async def test_check_filesystem_runs_every_case(tmp_path: Path) -> None:
    await check_filesystem(local_provider, tmp_path)
    assert _names(tmp_path) == sorted(case.name for case in FS_CONTRACT)


def _names(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())
