"""Merge rules used when message chunks are added (as langchain-core's).

Streamed pieces of one message are glued together with these rules: strings concatenate,
dicts merge key by key, list items that carry the same ``index`` are merged into one,
integers add up. They are langchain-core's rules, kept exactly, because streamed
transcripts must reassemble to the same message in both libraries. The inputs are never
mutated.
"""

from __future__ import annotations

from typing import Any

# String values under these keys are identities, not text: equal ones are not doubled.
# langchain-core's own set, used by chunk addition (``AIMessageChunk.__add__``).
IDENTITY_KEYS = frozenset(("id", "output_version", "model_provider"))
# The set the stream readers use: providers repeat identities in every chunk (a tool
# call's ``name``, OpenRouter's ``reasoning_details[].format``), which langchain-core's
# set would concatenate (``lookuplookup``). Unequal values under these keys still
# concatenate, so a name streamed in fragments is joined as before.
STREAM_IDENTITY_KEYS = IDENTITY_KEYS | frozenset(
    (
        "name",
        "type",
        "format",
        "role",
        "model",
        "model_name",
        "object",
        "system_fingerprint",
        "service_tier",
        "finish_reason",
        "status",
    )
)
# Integer values under these keys are positions or times: the newer one wins.
_LATEST_INT_KEYS = frozenset(("index", "created", "timestamp"))


def _is_mergeable_index(value: Any) -> bool:
    # bool counts as int here, as it does in langchain-core
    return isinstance(value, int) or (isinstance(value, str) and value.startswith("lc_"))


def merge_dicts(
    left: dict[str, Any], *others: dict[str, Any], identities: frozenset[str] = IDENTITY_KEYS
) -> dict[str, Any]:
    """Merge dicts left to right by the chunk rules; raises TypeError on a type clash.

    Equal strings under a key in ``identities`` are kept once instead of concatenated.
    """
    merged = dict(left)
    for right in others:
        for key, value in right.items():
            current = merged.get(key)
            if key not in merged or (current is None and value is not None):
                merged[key] = value
            elif value is None:
                continue
            elif type(current) is not type(value):
                raise TypeError(
                    f'additional_kwargs["{key}"] already exists in this message,'
                    " but with a different type."
                )
            elif isinstance(current, str):
                if (key == "index" and current.startswith("lc_")) or (
                    key in identities and current == value
                ):
                    continue
                merged[key] = current + value
            elif isinstance(current, dict):
                merged[key] = merge_dicts(current, value, identities=identities)
            elif isinstance(current, list):
                merged[key] = merge_lists(current, value, identities=identities)
            elif current == value:
                continue
            elif isinstance(current, int) and not isinstance(current, bool):
                merged[key] = value if key in _LATEST_INT_KEYS else current + value
            else:
                raise TypeError(
                    f"Additional kwargs key {key} already exists in left dict and "
                    f"value has unsupported type {type(current)}."
                )
    return merged


def _ids_compatible(a: Any, b: Any) -> bool:
    return a in (None, "") or b in (None, "") or a == b


def merge_lists(
    left: list[Any] | None,
    *others: list[Any] | None,
    identities: frozenset[str] = IDENTITY_KEYS,
) -> list[Any] | None:
    """Concatenate lists, merging dict items that share an integer (or ``lc_``) index."""
    merged = list(left) if left is not None else None
    for other in others:
        if other is None:
            continue
        if merged is None:
            merged = list(other)
            continue
        for item in other:
            if not (isinstance(item, dict) and _is_mergeable_index(item.get("index", None))):
                merged.append(item)
                continue
            target = next(
                (
                    pos
                    for pos, earlier in enumerate(merged)
                    if isinstance(earlier, dict)
                    and "index" in earlier
                    and earlier["index"] == item["index"]
                    and _ids_compatible(earlier.get("id"), item.get("id"))
                ),
                None,
            )
            if target is None:
                merged.append(item)
                continue
            merged[target] = merge_dicts(
                merged[target], _mergeable_part(merged[target], item), identities=identities
            )
    return merged


def _mergeable_part(earlier: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """What of ``item`` is merged into ``earlier``: its fields without ``type``.

    A ``non_standard`` wrapper arriving for a typed block contributes its value's fields
    as ``extras``; for another ``non_standard`` block, as its ``value``.
    """
    if earlier.get("type") and item.get("type") == "non_standard" and "value" in item:
        fields = {k: v for k, v in item["value"].items() if k != "type"}
        if earlier["type"] != "non_standard":
            return {"extras": fields}
        part: dict[str, Any] = {"value": fields}
        part["index"] = item["index"]
        return part
    if "type" in item:
        return {k: v for k, v in item.items() if k != "type"}
    return item


def merge_obj(left: Any, right: Any) -> Any:
    """Merge two values of the same kind (used for ToolMessage artifacts)."""
    if left is None or right is None:
        return left if left is not None else right
    if type(left) is not type(right):
        raise TypeError(
            f"left and right are of different types. Left type:  {type(left)}. "
            f"Right type: {type(right)}."
        )
    if isinstance(left, str):
        return left + right
    if isinstance(left, dict):
        return merge_dicts(left, right)
    if isinstance(left, list):
        return merge_lists(left, right)
    if left == right:
        return left
    raise ValueError(
        f"Unable to merge {left=} and {right=}. Both must be of type str, dict, or "
        "list, or else be two equal objects."
    )


def merge_content(first: Any, *rest: Any) -> Any:
    """Merge message contents: str+str concatenates, str+list prepends, list+list merges.

    A string after a list is appended to a trailing string item, ignored when empty, and
    dropped when the list is empty (langchain's quirk §13.4, kept here; the ``merge``
    operation fixes it on its own level).
    """
    merged = "" if first is None else first
    for content in rest:
        if isinstance(merged, str):
            merged = merged + content if isinstance(content, str) else [merged, *content]
        elif isinstance(content, list):
            merged = merge_lists(merged, content)
        elif merged and isinstance(merged[-1], str):
            merged = [*merged[:-1], merged[-1] + content]
        elif content == "":
            pass
        elif merged:
            merged = [*merged, content]
    return merged
