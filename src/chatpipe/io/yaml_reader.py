"""YAML documents as records: safe loading only (no tags that build objects), timestamps
kept as text, positions from the composed nodes, and aliases measured before anything is
built ("billion laughs" refused at once)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import DataError, Location, kind_of
from .limits import LIMITS
from .sources import UTF8_BOM as BOM


def _yaml_loader_class() -> Any:
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[misc, valid-type]
        """Safe loading; timestamps stay text, as they would in JSON."""

    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    return Loader


def yaml_records(source: Any, data: bytes, line_offset: int = 0) -> Iterator[Any]:
    import yaml

    from .records import Record

    if data.startswith(BOM):
        data = data[3:]
    _check_encoding(source, data, line_offset)
    _check_nesting(source, data, line_offset)
    loader = _yaml_loader_class()(data)
    name = source.name
    try:
        while loader.check_node():
            node = loader.get_node()
            _check_yaml_size(node, source, len(data))
            try:
                value = loader.construct_document(node)
            except ValueError as exc:  # an int of more digits than Python converts
                raise DataError(
                    f"cannot read a value: {str(exc).split(':')[0].lower()}",
                    _where(source, node, line_offset),
                    "write such a number as a string",
                ) from None
            if isinstance(value, list) and isinstance(node, yaml.SequenceNode):
                for item, item_node in zip(value, node.value, strict=True):
                    mark = item_node.start_mark
                    yield Record(item, Location(name, mark.line + 1 + line_offset, mark.column + 1))
            elif isinstance(value, (dict, list)):
                mark = node.start_mark
                yield Record(value, Location(name, mark.line + 1 + line_offset, mark.column + 1))
            elif value is not None:
                mark = node.start_mark
                raise DataError(
                    f"expected a list or a mapping, got {kind_of(value)}",
                    Location(name, mark.line + 1 + line_offset, mark.column + 1),
                    "is this a chat log?",
                )
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        location = (
            Location(name, mark.line + 1 + line_offset, mark.column + 1) if mark else Location(name)
        )
        problem = exc.problem or exc.context or "cannot parse"
        raise DataError(f"invalid YAML: {problem}", location) from None
    except yaml.YAMLError as exc:
        raise DataError(f"invalid YAML: {exc}", Location(name)) from None
    finally:
        loader.dispose()


def _where(source: Any, node: Any, line_offset: int) -> Location:
    mark = node.start_mark
    return Location(source.name, mark.line + 1 + line_offset, mark.column + 1)


def _check_encoding(source: Any, data: bytes, line_offset: int) -> None:
    """YAML read as JSON is: UTF-8 only, a bad byte named with its line and column."""
    from .records import utf8_error

    error = utf8_error(source, data, line_offset)
    if error is not None:
        raise error


def _check_nesting(source: Any, data: bytes, line_offset: int) -> None:
    """Refuse a document nested past the depth limit before it is composed: the loader
    recurses once a level, and 30,000 levels (60 KB of ``[``) crash the process. The
    parser's events are counted, without recursion, only when the bytes could nest that
    deep at all (flow brackets, or block sequences begun on one line: ``- - -``)."""
    import yaml

    limit = LIMITS.depth
    if data.count(b"[") + data.count(b"{") + data.count(b"- ") + data.count(b": ") <= limit:
        return
    try:
        mark = _past_depth(_yaml_loader_class()(data), limit)
    except yaml.YAMLError as exc:
        if "nesting depth" not in str(exc):
            return  # the load that follows says what is wrong, and where
        # LibYAML 0.2.6 (PyYAML 6.0.4's wheels) refuses flow collections nested 1,000 deep
        # while it scans ahead, before its events reach the limit: the Python parser, which
        # scans no further than it needs, finds the place (it too recurses nowhere)
        try:
            mark = _past_depth(yaml.SafeLoader(data), limit)
        except yaml.YAMLError:
            return
    if mark is not None:
        raise DataError(
            f"a record nested deeper than {limit} levels",
            Location(source.name, mark.line + 1 + line_offset, mark.column + 1),
            "raise the limit with chatpipe --max-depth N",
        )


def _past_depth(loader: Any, limit: int) -> Any:
    """The place of the first collection nested past ``limit`` levels, or None."""
    import yaml

    depth = 0
    opening = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    closing = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, opening):
                depth += 1
                if depth > limit:
                    return event.start_mark
            elif isinstance(event, closing):
                depth -= 1
        return None
    finally:
        loader.dispose()


def _check_yaml_size(root: Any, source: Any, size: int) -> None:
    """Refuse documents whose aliases expand past the value limit, or that nest too deep.

    Each distinct node is measured once (aliases share nodes), without recursion and
    without building anything: a "billion laughs" file ends here at once.
    """
    limit, depth_limit = LIMITS.yaml_values, LIMITS.depth
    # the text aliases may expand to: the record limit, or the document's own size
    byte_limit = max(LIMITS.record_bytes, size)
    measured: dict[int, tuple[int, int, int]] = {}  # node -> (values, depth, bytes)
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        kids = _yaml_children(node)
        if not children_done:
            if key in measured:
                continue
            measured[key] = (0, 0, 0)  # a node on its own path (a recursive alias): 0
            stack.append((node, True))
            stack.extend((child, False) for child in kids if id(child) not in measured)
            continue
        values = 1 + sum(measured[id(c)][0] for c in kids)
        depth = 1 + max((measured[id(c)][1] for c in kids), default=0)
        text = sum(measured[id(c)][2] for c in kids) if kids else _scalar_bytes(node)
        measured[key] = (values, depth, text)
        mark = root.start_mark
        where = Location(source.name, mark.line + 1, mark.column + 1)
        if text > byte_limit:
            raise DataError(
                f"YAML aliases expand to more than {byte_limit:,} characters of text",
                where,
                "raise the limit with chatpipe --max-record-bytes N",
            )
        if values > limit:
            raise DataError(
                f"YAML aliases expand to more than {limit:,} values",
                where,
                "raise the limit with chatpipe --max-yaml-values N",
            )
        if depth > depth_limit:
            raise DataError(
                f"a record nested deeper than {depth_limit} levels",
                where,
                "raise the limit with chatpipe --max-depth N",
            )


def _scalar_bytes(node: Any) -> int:
    value = node.value
    return len(value) if isinstance(value, str) else 0


def _yaml_children(node: Any) -> list[Any]:
    if not isinstance(node.value, list):
        return []
    kids = []
    for child in node.value:
        kids.extend(child if isinstance(child, tuple) else (child,))
    return kids
