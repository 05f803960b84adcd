"""`hymem hook claude-code|codex`: answer one agent hook event from stdin (briefing, recall, capture); never fails the agent."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from hymem_cli import hooks


def hook(
    agent: Annotated[str, typer.Argument(help="The agent whose hook payload comes on stdin: claude-code or codex.",
                                         show_default=False)],
) -> None:
    """Answer an agent's hook event: its JSON payload on stdin, what the agent should be told on stdout.

    SessionStart gets a briefing (the project's current memories, the user's own words first, within
    hooks.briefing_tokens); UserPromptSubmit gets the memories relevant to the prompt above the relevance
    floor (search.min_score), within hooks.recall_tokens, and nothing for an unrelated prompt; Stop,
    PreCompact and SessionEnd store the session log's new messages as they are. Memories are framed as
    data, never as instructions. It runs in the payload's cwd, so the bank is that project's. It always
    exits 0: an error (bad payload, an untrusted project's bank) is one line in hooks.log in hymem's data
    directory, and the agent gets no context. `hymem install claude-code` wires it up.

    Examples:

      echo '{"hook_event_name": "SessionStart", "source": "startup", "cwd": "."}' | hymem hook claude-code

      echo '{"hook_event_name": "UserPromptSubmit", "prompt": "where is Alex?"}' | hymem hook claude-code | jq -r .[].additionalContext
    """
    answer = hooks.respond(agent, sys.stdin.buffer.read())
    if answer:
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()
