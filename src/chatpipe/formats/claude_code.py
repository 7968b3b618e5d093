"""Claude Code session transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

Each line is an event. ``user`` and ``assistant`` lines carry an Anthropic message in an
envelope (``uuid``, ``parentUuid``, ``sessionId``, ``timestamp``, ``cwd``, ``gitBranch``,
``version``, ``requestId``, ``toolUseResult``, ...); the rest are not turns:
``system`` lines (hooks, commands, turn durations, API errors, compaction boundaries),
``progress`` lines (hooks, shell output, and copies of a subagent's messages),
``file-history-snapshot``, ``queue-operation``, ``summary`` and title lines. What a person
would want of those is kept: system lines and API errors as the conversation's ``notes``
(each with ``at``, the number of messages before it), titles and pull requests as its
fields.

- One API response is written as several lines sharing ``message.id`` (thinking, text,
  each tool call): they make one AI message, its usage counted once (the last line's).
- ``parentUuid`` makes a tree (``session_tree``): the live conversation ends at the last
  message line, or at the last one below the line a ``last-prompt`` line names (a
  ``summary``'s ``leafUuid`` only titles its chain); ``--branch all`` gives every branch
  (a rewind: two prompts under one parent). After a ``compact_boundary`` the chain goes
  on from ``logicalParentUuid``; the ``isCompactSummary`` line after it is a generated
  summary, read as a system message (its envelope says ``isCompactSummary``), as are
  ``isMeta`` lines Claude Code adds.
- Sidechains (``isSidechain`` lines, ``subagents/agent-<id>.jsonl`` files, the
  ``agent_progress`` copies) are a subagent's conversation: never in the main thread;
  ``--include-subagents`` gives each as a conversation of its own after the main one,
  its ``parent_tool_call_id`` naming the Task call that started it.

Fields every line repeats (session id, cwd, branch, version, ...) are the
conversation's; a message's own envelope is kept in ``additional_kwargs["claude_code"]``.
The tree needs the whole file: the lines that can become messages or notes are held, the
payloads of progress and snapshot lines are not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, Location
from ..model import Conversation
from .base import SessionDialect
from .claude_code_agents import subagents
from .claude_code_session import _conversations, is_claude_code_line, read_session
from .exports import ReadOptions

__all__ = ["ClaudeCodeDialect", "is_claude_code_line"]

SUBAGENTS = "subagents' conversations left out (--include-subagents writes them)"
# a line whose uuid an earlier line has, with another message: the tree holds the first
REPEATED = "lines that repeat an earlier line's uuid with another message (the first is read)"


class ClaudeCodeDialect(SessionDialect):
    name = "claude-code"
    description = "Claude Code session transcripts (~/.claude/projects/*/<session>.jsonl)"
    example = "claude_code__entire_2026_exit_resume_branch_lines1_53.jsonl"
    extras_key = "claude_code"  # (the rest of each record, under additional_kwargs)

    def is_stream_event(self, value: Any) -> bool:
        return is_claude_code_line(value)

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        options = options if isinstance(options, ReadOptions) else ReadOptions()
        session = read_session(records, handle, options.include_subagents)
        main, side = session.main, session.side
        if not any(n.is_message for n in main) and side:
            # a subagent's own file: its sidechain is the thread
            main, side = [n for nodes in side.values() for n in nodes], {}
        conversations = list(_conversations(main, session, options, location))
        if not options.include_subagents and (side or session.agents_seen):
            for conversation in conversations:
                conversation.left_out = [SUBAGENTS]
        if session.repeated:
            for conversation in conversations:
                conversation.left_out = [*(conversation.left_out or ()), REPEATED]
        yield from conversations
        if options.include_subagents and conversations:
            yield from subagents(conversations, side, session, options, location, handle)
