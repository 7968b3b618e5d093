"""Reading a Claude Code session: its lines held as a tree (``session_tree``), the
conversations of its branches built from them. The dialect is claude_code.py's."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, kind_of
from ..model import Conversation
from .claude_code_messages import Builder
from .exports import ReadOptions, branch_meta
from .session_tree import Node, Tree, choose_branches, live_index

# lines that sit in the parentUuid tree
_TREE_LINES = frozenset(("user", "assistant", "system", "progress", "attachment"))
# other lines, and the keys one of which each always has
_OTHER_LINES = {
    "summary": ("leafUuid",),
    "file-history-snapshot": ("snapshot",),
    "queue-operation": ("operation",),
    "custom-title": ("customTitle",),
    "ai-title": ("aiTitle",),
    "pr-link": ("prUrl",),
    "last-prompt": ("leafUuid", "lastPrompt"),
    "permission-mode": ("permissionMode",),
    "mode": ("mode",),
}
# envelope fields that name the session rather than the line: the conversation's
_SESSION_KEYS = (
    "sessionId",
    "cwd",
    "gitBranch",
    "version",
    "slug",
    "userType",
    "isSidechain",
    "agentId",
    "entrypoint",
)


def is_claude_code_line(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if not isinstance(kind, str):
        return False
    if kind in _TREE_LINES:
        message = value.get("message")
        if "systemPayload" in value or (isinstance(message, dict) and "parts" in message):
            return False  # Qwen Code's records: the same envelope, Gemini parts inside
        return isinstance(value.get("uuid"), str) and (
            "parentUuid" in value or "sessionId" in value
        )
    return any(key in value for key in _OTHER_LINES.get(kind, ()))


class _Line:
    """A tree line as kept: the line (None for a progress line) and its place."""

    __slots__ = ("location", "value")

    def __init__(self, value: dict[str, Any] | None, location: Location) -> None:
        self.value = value
        self.location = location


class _Session:
    """What a file's lines say: its tree lines (main thread and sidechains apart), its
    titles and pull requests, and the subagents' messages the progress lines copy."""

    def __init__(self, keep_progress: bool) -> None:
        self.keep_progress = keep_progress
        self.agents_seen = False  # a subagent's messages copied in progress lines
        self.main: list[Node] = []
        self.side: dict[str, list[Node]] = {}  # sidechain lines by agent id
        self.summaries: dict[str, str] = {}  # leafUuid -> the title of the chain it ends
        self.last_prompt: str | None = None  # where the session goes on, when it says
        self.titles: dict[str, str] = {}
        self.pull_requests: list[dict[str, Any]] = []
        self.progress: dict[str, dict[str, Any]] = {}  # agent id -> tool id and lines
        self.last: dict[str, str] = {}  # the last tree line of each chain (main: "")
        self.count = 0
        # what each tree line's uuid first came with: a later line of that uuid with other
        # content is not read (the tree holds one line an id), and is said
        self.first: dict[str, Any] = {}
        self.repeated = 0

    def add(self, value: Any, location: Location) -> None:
        if not isinstance(value, dict) or not is_claude_code_line(value):
            raise DataError(
                "not a Claude Code transcript line",
                location,
                hint="every line has a type (user, assistant, system, ...) and its envelope",
            )
        self.count += 1
        kind = value["type"]
        if kind == "summary":
            if isinstance(value.get("summary"), str):
                self.summaries[str(value["leafUuid"])] = value["summary"]
        elif kind == "last-prompt":
            if isinstance(value.get("leafUuid"), str):
                self.last_prompt = value["leafUuid"]
        elif kind in ("custom-title", "ai-title"):
            title = value.get("customTitle") or value.get("aiTitle")
            if isinstance(title, str):
                self.titles[kind] = title
        elif kind == "pr-link":
            self.pull_requests.append({k: v for k, v in value.items() if k != "type"})
        elif kind in _TREE_LINES:
            self._tree_line(value, location)

    def _tree_line(self, value: dict[str, Any], location: Location) -> None:
        kind = value["type"]
        parent = value.get("parentUuid")
        if parent is None and isinstance(value.get("logicalParentUuid"), str):
            parent = value["logicalParentUuid"]  # a compaction: the chain goes on
        chain = str(value.get("agentId")) if value.get("isSidechain") else ""
        if "parentUuid" not in value and "logicalParentUuid" not in value:
            parent = self.last.get(chain)  # (sessions that link no line: in file order)
        self.last[chain] = value["uuid"]
        if kind in ("user", "assistant"):
            _check_message(value, location)
        keep: dict[str, Any] | None = value
        if kind == "progress":
            keep = None
            data = value.get("data")
            if isinstance(data, dict) and data.get("type") == "agent_progress":
                self.agents_seen = True
                if self.keep_progress:
                    self._agent_progress(value, data, location)
        said = (kind, value.get("message"))
        first = self.first.setdefault(value["uuid"], said)
        if first is not said and first != said:
            self.repeated += 1
        is_message = kind in ("user", "assistant") and not value.get("isApiErrorMessage")
        node = Node(
            value["uuid"],
            parent if isinstance(parent, str) else None,
            self.count,
            _Line(keep, location),
            is_message,
            value.get("timestamp"),
        )
        if value.get("isSidechain"):
            agent = value.get("agentId")
            self.side.setdefault(agent if isinstance(agent, str) else "", []).append(node)
        else:
            self.main.append(node)

    def _agent_progress(self, value: dict[str, Any], data: dict[str, Any], at: Location) -> None:
        agent = data.get("agentId")
        line = data.get("message")
        if not (
            isinstance(agent, str)
            and isinstance(line, dict)
            and line.get("type") in ("user", "assistant")
            and isinstance(line.get("message"), dict)
            and isinstance(line["message"].get("content"), (str, list))
        ):
            return
        found = self.progress.setdefault(agent, {"tool": value.get("parentToolUseID"), "lines": []})
        if all(line.get("uuid") != seen[0].get("uuid") for seen in found["lines"]):
            found["lines"].append((line, at))


def _check_message(value: dict[str, Any], location: Location) -> None:
    message = value.get("message")
    if not isinstance(message, dict):
        raise DataError(
            f'a {value["type"]} line\'s "message" must be an object, got {kind_of(message)}',
            location,
            hint="each user and assistant line holds an Anthropic message",
        )
    content = message.get("content")
    if not isinstance(content, (str, list)):
        raise DataError(
            f'"message.content" must be a string or a list of blocks, got {kind_of(content)}',
            location,
        )
    odd = (
        None
        if isinstance(content, str)
        else next((b for b in content if not isinstance(b, (str, dict))), None)
    )
    if odd is not None:
        raise DataError(
            f'"message.content" holds {kind_of(odd)}, where blocks are objects', location
        )


def _only_results(line: dict[str, Any]) -> bool:
    content = line["message"].get("content")
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    )


def _absorbable() -> Callable[[Node, list[Node]], bool]:
    """Whether a message line off the path belongs beside it: a tool result, or a further
    line of an assistant message on the path."""
    cache: dict[int, set[str]] = {}

    def check(node: Node, path: list[Node]) -> bool:
        line = node.value.value
        if line["type"] == "user":
            return _only_results(line)
        ids = cache.get(id(path))
        if ids is None:
            ids = cache[id(path)] = {
                str(n.value.value["message"].get("id"))
                for n in path
                if n.is_message and n.value.value["type"] == "assistant"
            }
        return str(line["message"].get("id")) in ids

    return check


def read_session(
    records: Iterable[Any], handle: Callable[[ChatpipeError], None] | None, keep_progress: bool
) -> _Session:
    from ..io.records import BadRecord

    session = _Session(keep_progress)
    for record in records:
        error = record.error if isinstance(record, BadRecord) else None
        if error is None:
            try:
                session.add(record.value, record.location)
            except ChatpipeError as exc:
                error = exc.located(record.location)
        if error is not None:
            if handle is None:
                raise error
            handle(error)
    return session


def _conversations(
    nodes: list[Node], session: _Session, options: ReadOptions, location: Location
) -> Iterator[Conversation]:
    tree = Tree(nodes)
    messages = [n for n in tree.order if n.is_message]
    if not messages:  # a file of titles only (Claude Code writes some): its fields
        title = _title([], session) or next(reversed(session.summaries.values()), None)
        yield Conversation([], {"title": title} if title else {}, location)
        return
    live = messages[-1]
    # a last-prompt line names where the session goes on: the last message at or below
    # it (a summary's leafUuid only names the chain it titles, see docs/formats.md)
    if session.last_prompt is not None:
        live = tree.last_message_under(session.last_prompt) or live
    branches, dropped = choose_branches(tree, live, _absorbable(), options, location)
    active = live_index(branches, live) if len(branches) > 1 else None
    for number, branch in enumerate(branches):
        conversation = conversation_of(branch, session, location)
        leaf = next((n for n in reversed(branch) if n.is_message), None)
        ident = [leaf.ident] if leaf is not None else []
        meta = branch_meta(ident, number, len(branches), dropped, leaf_id(ident), options)
        if number == active:
            meta["active"] = True  # the branch the session goes on in
        if options.branch == "all" or dropped:
            conversation.meta["branch"] = meta
        yield conversation


def leaf_id(ident: list[str]) -> str | None:
    return ident[-1] if ident else None


def conversation_of(
    branch: list[Node], session: _Session | None, location: Location
) -> Conversation:
    """The conversation of a branch's lines: messages, their places, its fields and notes."""
    lines = [n.value for n in branch]
    first = next((n.value.value for n in branch if n.is_message), None) or {}
    consts = {k: first[k] for k in _SESSION_KEYS if k in first}
    builder = Builder(consts)
    for node in branch:
        builder.add(node)
    meta: dict[str, Any] = {}
    if "sessionId" in consts:
        meta["id"] = consts["sessionId"]
    title = _title(branch, session)
    if title:
        meta["title"] = title
    times = [n.time for n in branch if isinstance(n.time, str)]
    if times:
        meta["created_at"], meta["updated_at"] = times[0], times[-1]
    meta.update({k: v for k, v in consts.items() if k != "sessionId"})
    if session is not None and session.pull_requests:
        meta["pull_requests"] = session.pull_requests
    if builder.notes:
        meta["notes"] = builder.notes
    where = lines[0].location if lines else location
    conversation = Conversation(builder.messages(), meta, where)
    conversation.places = builder.places
    return conversation


def _title(branch: list[Node], session: _Session | None) -> str | None:
    if session is None:
        return None
    if "custom-title" in session.titles:
        return session.titles["custom-title"]
    for node in reversed(branch):
        if node.ident in session.summaries:
            return session.summaries[node.ident]
    return session.titles.get("ai-title")


def subagent_file(location: Location, session_id: str | None, agent: str) -> str | None:
    """Where Claude Code keeps a subagent's transcript beside the session's file:
    ``<session>/subagents/agent-<id>.jsonl`` (older versions: ``agent-<id>.jsonl``
    beside it); None when there is none."""
    path = location.file
    if not path or path.startswith("<") or not os.path.isfile(path):
        return None
    folder = os.path.dirname(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    names = [os.path.join(folder, stem, "subagents", f"agent-{agent}.jsonl")]
    if session_id:
        names.append(os.path.join(folder, session_id, "subagents", f"agent-{agent}.jsonl"))
    names.append(os.path.join(folder, f"agent-{agent}.jsonl"))
    return next((n for n in names if os.path.isfile(n) and n != path), None)
