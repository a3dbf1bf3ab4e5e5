"""Fixtures of the language-server tests: the module's scripted model server and one real
server per client capability set (module-scoped: tests create their own sessions)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import pytest_asyncio

from dsh_lsp.testing import ScriptedServer

from .support import CLIENTS, DshClient, ModelScript, Rig, ServerOptions, running_server


@pytest.fixture(scope="module")
def model() -> Iterator[ModelScript]:
    """The scripted model server shared by a module."""
    with ScriptedServer() as server:
        yield ModelScript(server)


@pytest.fixture(autouse=True)
def _script_consumed(model: ModelScript) -> Iterator[None]:
    """Each test consumes exactly the answers it scripted; leftovers are drained so the
    next test starts aligned even after a failure."""
    yield
    served = len(model.server.requests)
    leftover = model.expected - served
    for _ in range(max(leftover, 0)):
        with contextlib.suppress(httpx.HTTPError):
            httpx.post(model.base_url + "/drain", content=b"{}", timeout=0.5)
    model.expected = len(model.server.requests)
    assert leftover == 0, f"{leftover} scripted answers were not requested"


@pytest.fixture(scope="module")
def rig_options() -> ServerOptions:
    """How the module's ``rig`` is started (``running_server`` keywords): the defaults. A
    module that needs another server (a plain client, an edit policy) overrides this."""
    return {}


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=CLIENTS)
async def rig(
    request: pytest.FixtureRequest,
    model: ModelScript,
    tmp_path_factory: pytest.TempPathFactory,
    rig_options: ServerOptions,
) -> AsyncIterator[Rig]:
    """A server for the module, once per client capability set, started with
    ``rig_options``."""
    root = tmp_path_factory.mktemp("rig")
    async with running_server(request.param, model, root, **rig_options) as started:
        yield started


@pytest.fixture
def client(rig: Rig) -> Iterator[DshClient]:
    """The rig's client; handlers a test replaces are restored afterwards."""
    client = rig.client
    answer_permission, answer_message = client.answer_permission, client.answer_message
    yield client
    client.answer_permission, client.answer_message = answer_permission, answer_message
