"""The subagents of a Claude Code session, each a conversation of its own
(``--include-subagents``), linked to the Task call that started it.

A subagent's messages are found, best first, in its own transcript beside the session's
file (``<session>/subagents/agent-<id>.jsonl``), in the session file's ``isSidechain``
lines (older versions), or in the ``agent_progress`` lines that copy them as they come.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..errors import ChatpipeError, Location
from ..model import AIMessage, Conversation, HumanMessage, ToolMessage
from .claude_code_session import _absorbable, _Line, conversation_of, read_session, subagent_file
from .exports import ReadOptions
from .session_tree import Node, Tree, choose_branches

_TASK_TOOLS = ("Task", "Agent")


def subagents(
    threads: list[Conversation],
    side: dict[str, list[Node]],
    session: Any,
    options: ReadOptions,
    location: Location,
    handle: Callable[[ChatpipeError], None] | None,
) -> Iterator[Conversation]:
    """The subagents' conversations (of the main thread's branches, ``threads``), in the
    order of the calls that started them."""
    main = threads[0]
    messages = [m for thread in threads for m in thread.messages]
    calls = _task_calls(messages)
    agents: dict[str, str | None] = {}  # agent id -> the call that started it
    for message in messages:
        if not isinstance(message, ToolMessage):
            continue
        for fields in (message.artifact, message.additional_kwargs.get("claude_code")):
            if isinstance(fields, dict) and isinstance(fields.get("agentId"), str):
                agents.setdefault(fields["agentId"], message.tool_call_id)
    for agent, found in session.progress.items():
        agents.setdefault(agent, found["tool"] if isinstance(found["tool"], str) else None)
    groups = _sidechains(side)
    for agent in groups:
        agents.setdefault(agent, None)
    found_conversations = []
    for agent, call in agents.items():
        conversation = _subagent(agent, main, groups, session, options, location, handle)
        if conversation is None:
            continue
        call = call or _call_by_prompt(conversation, calls)
        meta = conversation.meta
        meta["id"] = f"agent-{agent}"
        meta["agentId"] = agent
        meta["parent_tool_call_id"] = call
        if "id" in main.meta:
            meta["parent_session_id"] = main.meta["id"]
        args = calls.get(call or "", {})
        if isinstance(args.get("description"), str):
            meta["title"] = args["description"]
        if isinstance(args.get("subagent_type"), str):
            meta["subagent_type"] = args["subagent_type"]
        order = list(calls).index(call) if call in calls else len(calls)
        found_conversations.append((order, conversation))
    for _, conversation in sorted(found_conversations, key=lambda c: c[0]):
        yield conversation


def _task_calls(messages: list[Any]) -> dict[str, dict[str, Any]]:
    """The main thread's Task calls: id -> arguments, in order."""
    return {
        call["id"]: call["args"]
        for message in messages
        if isinstance(message, AIMessage)
        for call in message.tool_calls
        if call["name"] in _TASK_TOOLS and call["id"]
    }


def _call_by_prompt(conversation: Conversation, calls: dict[str, dict[str, Any]]) -> str | None:
    """The Task call whose prompt opens the subagent's conversation (older sidechains
    name no call)."""
    first = next((m for m in conversation.messages if isinstance(m, HumanMessage)), None)
    if first is None:
        return None
    text = first.text.strip()
    return next(
        (ident for ident, args in calls.items() if str(args.get("prompt", "")).strip() == text),
        None,
    )


def _sidechains(side: dict[str, list[Node]]) -> dict[str, list[Node]]:
    """Sidechain lines by agent: the lines linked by their parents are one sidechain, named
    by the agent id any of them gives (older versions give it on some lines only), or by
    the line it starts from."""
    nodes = sorted((n for group in side.values() for n in group), key=lambda n: n.number)
    agents = {n.ident: agent for agent, group in side.items() for n in group}
    root: dict[str, str] = {}

    def find(ident: str) -> str:
        while root[ident] != ident:
            root[ident] = root[root[ident]]
            ident = root[ident]
        return ident

    for node in nodes:
        root[node.ident] = node.ident
    for node in nodes:
        if node.parent in root:
            root[find(node.ident)] = find(node.parent)
    names: dict[str, str] = {}
    for node in nodes:
        top = find(node.ident)
        if agents[node.ident] and top not in names:
            names[top] = agents[node.ident]
    groups: dict[str, list[Node]] = {}
    for node in nodes:
        top = find(node.ident)
        groups.setdefault(names.get(top) or f"sidechain-{top}", []).append(node)
    return groups


def _subagent(
    agent: str,
    main: Conversation,
    groups: dict[str, list[Node]],
    session: Any,
    options: ReadOptions,
    location: Location,
    handle: Callable[[ChatpipeError], None] | None,
) -> Conversation | None:
    path = subagent_file(location, main.meta.get("id"), agent)
    if path is not None:
        own = _read_file(path, handle)
        nodes = [n for group in own.side.values() for n in group] or own.main
        source = "file"
    elif agent in groups:
        nodes, own, source = groups[agent], session, "sidechain"
    elif agent in session.progress:
        nodes, own, source = _progress_nodes(session.progress[agent]["lines"]), None, "progress"
    else:
        return None
    tree = Tree(nodes)
    messages = [n for n in tree.order if n.is_message]
    if not messages:
        return None
    one = ReadOptions("active" if options.branch == "all" else options.branch)
    [branch], _ = choose_branches(tree, messages[-1], _absorbable(), one, location)
    conversation = conversation_of(branch, own, location)
    conversation.meta["subagent_source"] = source
    if source == "file":
        conversation.meta["file"] = path
    return conversation


def _read_file(path: str, handle: Callable[[ChatpipeError], None] | None) -> Any:
    from ..io.readers import read_records
    from ..io.sources import Source

    return read_session(read_records(Source(path)), handle, False)


def _progress_nodes(lines: list[tuple[dict[str, Any], Location]]) -> list[Node]:
    """The copies of a subagent's lines in progress lines, which name no parent: each
    follows the one before."""
    nodes = []
    parent = None
    for number, (line, at) in enumerate(lines):
        kind = line.get("type")
        if kind not in ("user", "assistant") or not isinstance(line.get("message"), dict):
            continue
        ident = str(line.get("uuid") or f"progress-{number}")
        nodes.append(Node(ident, parent, number, _Line(line, at), True, line.get("timestamp")))
        parent = ident
    return nodes
