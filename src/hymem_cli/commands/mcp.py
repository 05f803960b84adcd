"""`hymem mcp`: serve the bank to agents over the Model Context Protocol (stdio)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from hymem_cli._errors import HymemError
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BackendOpt, BankOpt, BaseUrlOpt, ProtocolOpt, QuietOpt


def mcp(
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Writer model for add_memory: a GGUF path or name (llama), or a served model name (openai).",
                                                 show_default=False)] = None,
    backend: BackendOpt = None,
    base_url: BaseUrlOpt = None,
    protocol: ProtocolOpt = None,
    bank: BankOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Serve the bank to an agent over MCP on stdin/stdout: search, add, read, history, update, delete, log, revert.

    An MCP client starts it; stdout carries only the protocol, messages go to stderr. The bank is
    the one every command here uses: started in a project (see `hymem init`), that project's bank.
    add_memory goes through the configured memory writer (writer.* settings, or the flags here),
    whose model loads on the first add and stays loaded; without one it stores messages as they are.
    Install the SDK first: pip install 'hymem[mcp]'.

    Examples:

      claude mcp add hymem -- hymem mcp

      printf '%s\\n' '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "sh", "version": "1"}}}' | hymem mcp | jq -r .result.serverInfo.name

      hymem mcp --bank work.db --backend openai --base-url http://localhost:8000/v1
    """
    ctx = Context.start(quiet=quiet, bank=bank, writer__model=model, writer__backend=backend, writer__base_url=base_url,
                        writer__protocol=protocol)
    try:
        from hymem_cli import mcp_server
    except ImportError as exc:
        raise HymemError(f"the MCP SDK is not installed ({exc.name or exc})", hint="pip install 'hymem[mcp]' (or: pip install 'mcp>=2,<3')") from None
    from hymem_cli.memory_service import MemoryService

    choice = ctx.memory.bank_choice
    service = MemoryService(ctx.memory)
    ctx.out.info(f"hymem mcp: serving {choice.path} ({choice.detail}) on stdio")
    mcp_server.serve(service)
