"""YAML documents as records: safe loading only (no tags that build objects), timestamps
kept as text, positions from the composed nodes, and aliases measured before anything is
built ("billion laughs" refused at once)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .errors import DataError, Location
from .limits import LIMITS

BOM = b"\xef\xbb\xbf"


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

    from .io import Record

    if data.startswith(BOM):
        data = data[3:]
    loader = _yaml_loader_class()(data)
    name = source.name
    try:
        while loader.check_node():
            node = loader.get_node()
            _check_yaml_size(node, source)
            value = loader.construct_document(node)
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
                    f"expected a list or a mapping, got a {type(value).__name__}",
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


def _check_yaml_size(root: Any, source: Any) -> None:
    """Refuse documents whose aliases expand past the value limit, or that nest too deep.

    Each distinct node is measured once (aliases share nodes), without recursion and
    without building anything: a "billion laughs" file ends here at once.
    """
    limit, depth_limit = LIMITS.yaml_values, LIMITS.depth
    measured: dict[int, tuple[int, int]] = {}  # node -> (expanded values, nesting depth)
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        kids = _yaml_children(node)
        if not children_done:
            if key in measured:
                continue
            measured[key] = (0, 0)  # a node on its own path (a recursive alias) counts as 0
            stack.append((node, True))
            stack.extend((child, False) for child in kids if id(child) not in measured)
            continue
        size = 1 + sum(measured[id(c)][0] for c in kids)
        depth = 1 + max((measured[id(c)][1] for c in kids), default=0)
        measured[key] = (size, depth)
        mark = root.start_mark
        where = Location(source.name, mark.line + 1, mark.column + 1)
        if size > limit:
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


def _yaml_children(node: Any) -> list[Any]:
    if not isinstance(node.value, list):
        return []
    kids = []
    for child in node.value:
        kids.extend(child if isinstance(child, tuple) else (child,))
    return kids
