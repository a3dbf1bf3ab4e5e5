"""A kernel with the model service loaded, for tests that exercise LlmService users."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from dsh_lsp.kernel import Context, Kernel
from dsh_lsp.llm import LLM, LlmPlugin, LlmService


@asynccontextmanager
async def llm_kernel() -> AsyncIterator[tuple[Context, LlmService]]:
    """A running kernel whose root context has ``LlmPlugin`` loaded."""
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(LlmPlugin())
        yield ctx, ctx.require(LLM)
