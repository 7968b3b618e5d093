"""Parquet (the extra ``chatpipe[parquet]``, pyarrow): a file's rows as records, one row
group at a time (the records of a run written as rows: parquet_writer.py).

Each row is a record, its columns the record's keys; a column that is null in a row is a
key the row does not have, and so is a null field of a struct inside a list (a message's
``name``), except a message's ``content``, which stays. Columns that chatpipe wrote as
JSON text (the file's metadata names them), and text columns named as chat columns are
(``messages``, ``conversations``, ``chosen``, ``rejected``, ``prompt``) whose values are
JSON arrays or objects, are parsed back. Every value becomes one JSON holds, nothing lost:
bytes as base64 text, dates and decimals as text, a map as an object (a list of
``{"key", "value"}`` objects when its keys are not distinct strings). A float JSON has
no number for (NaN, Infinity) makes its row a bad record, as it does in JSON text.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import IO, Any

import orjson

from ..errors import DataError, Location, UsageError, install_hint
from .json_numbers import loads
from .records import BadRecord, Record

META_KEY = b"chatpipe"  # the file's metadata: which columns hold JSON text, which messages
_CHAT_COLUMNS = ("messages", "conversations", "chosen", "rejected", "prompt")
_READ_BATCH = 256  # rows converted to Python values at a time


def pyarrow() -> Any:
    """pyarrow's parquet module, or an error naming the extra."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError(
            "reading or writing Parquet needs pyarrow",
            hint=install_hint("parquet"),
        ) from None
    return pq


def not_rows() -> UsageError:
    """The error for an output that is not records (text, a document) asked for as Parquet."""
    return UsageError(
        "Parquet holds records, a JSON object a row, and this output is text, not records",
        hint="write it to a file of another name, without --to-format parquet, "
        "or write records: --to canonical, openai, ...",
    )


def is_parquet(head: bytes, suffix: str) -> bool:
    return suffix == ".parquet" or head[:4] == b"PAR1"


def parquet_records(name: str, stream: IO[bytes]) -> Iterator[Record]:
    """The rows of a Parquet file as records, located ``FILE:ROW`` (rows counted from
    1). ``stream`` must be seekable (stdin is read whole first)."""
    pq = pyarrow()
    if not stream.seekable():
        import io

        stream = io.BytesIO(stream.read())
    try:
        parquet = pq.ParquetFile(stream)
    except Exception as exc:  # pyarrow's errors: ArrowInvalid, OSError, ...
        raise DataError(
            f"not a readable Parquet file ({_first_line(exc)})",
            Location(name),
            "check that the file was written completely",
        ) from None
    return rows_of(parquet, name, range(parquet.num_row_groups), 0)


def rows_of(parquet: Any, name: str, groups: range, first_row: int) -> Iterator[Record]:
    """The records of some row groups of an open ParquetFile; ``first_row`` rows come
    before the first group."""
    json_columns, _ = _written_as(parquet.schema_arrow.metadata)
    guessed = [
        f.name
        for f in parquet.schema_arrow
        if f.name in _CHAT_COLUMNS and f.name not in json_columns and _is_text(f.type)
    ]
    maps = {f.name: f.type for f in parquet.schema_arrow if _holds_map(f.type)}
    number = first_row
    try:
        # a row group at a time (iter_batches reads ahead and holds more), turned into
        # Python values a batch at a time
        for group in groups:
            table = parquet.read_row_group(group)
            for batch in table.to_batches(_READ_BATCH):
                for row in batch.to_pylist():
                    number += 1
                    try:
                        value = _record(row, json_columns, guessed, maps)
                    except _NotFinite as exc:
                        yield BadRecord(exc.error(Location(name, number)))
                        continue
                    yield Record(value, Location(name, number))
            del table
    except DataError:
        raise
    except Exception as exc:
        raise DataError(
            f"cannot read row {number + 1} ({_first_line(exc)})",
            Location(name),
            "check that the file was written completely",
        ) from None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _written_as(metadata: dict[bytes, bytes] | None) -> tuple[set[str], set[str]]:
    """The columns a file of chatpipe's holds as JSON text, and as message structs."""
    said = orjson.loads(metadata[META_KEY]) if metadata and META_KEY in metadata else {}
    return set(said.get("json", ())), set(said.get("messages", ()))


def _record(
    row: dict[str, Any], json_columns: set[str], guessed: list[str], maps: dict[str, Any]
) -> dict[str, Any]:
    record = {}
    for key, value in row.items():
        if value is None:
            continue
        if key in json_columns:
            value = loads(value)
        elif key in guessed and value[:1] in ("[", "{"):
            with contextlib.suppress(orjson.JSONDecodeError, DataError):
                value = loads(value)
        elif isinstance(value, list):
            value = [without_nulls(v) for v in value]
        elif isinstance(value, dict):
            value = without_nulls(value)
        if key in maps:  # (after the structs' nulls: a map's pairs are kept whole)
            value = _mapped(value, maps[key])
        try:
            record[key] = _plain(value)
        except _NotFinite as exc:
            exc.column = key
            raise
    return record


class _NotFinite(Exception):
    """A float JSON has no number for (NaN, Infinity), met in a row's ``column``."""

    def __init__(self, value: float) -> None:
        super().__init__(value)
        self.value = value
        self.column = ""

    def error(self, location: Location) -> DataError:
        said = "NaN" if self.value != self.value else ("-" if self.value < 0 else "") + "Infinity"
        return DataError(
            f"column {self.column!r} holds {said}, which JSON has no number for",
            location,
            "write it as null or as text first; --on-error skip leaves such rows out",
        )


def _holds_map(kind: Any) -> bool:
    """Whether values of this Arrow type hold a map (read as lists of pairs)."""
    import pyarrow as pa

    if pa.types.is_map(kind):
        return True
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return _holds_map(kind.value_type)
    if pa.types.is_struct(kind):
        return any(_holds_map(kind.field(i).type) for i in range(kind.num_fields))
    return False


def _mapped(value: Any, kind: Any) -> Any:
    """A value of a type that holds maps, each map (pyarrow's list of (key, value) pairs)
    made what JSON holds: an object when its keys are distinct strings, else a list of
    ``{"key", "value"}`` objects (Arrow's own shape for a map), nothing lost."""
    import pyarrow as pa

    if value is None or not _holds_map(kind):
        return value
    if pa.types.is_map(kind):
        pairs = [(k, _mapped(v, kind.item_type)) for k, v in value]
        keys = [k for k, _ in pairs]
        if all(type(k) is str for k in keys) and len(set(keys)) == len(keys):
            return dict(pairs)
        return [{"key": k, "value": v} for k, v in pairs]
    if pa.types.is_struct(kind):
        types = {kind.field(i).name: kind.field(i).type for i in range(kind.num_fields)}
        return {k: _mapped(v, types[k]) for k, v in value.items()}  # (its nulls left out)
    return [_mapped(v, kind.value_type) for v in value]  # (a list: _holds_map says)


def without_nulls(value: Any) -> Any:
    """A struct's null fields are fields it does not have (a message's content stays)."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None or k == "content"}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def _plain(value: Any) -> Any:
    """Values JSON holds: bytes as base64 text, dates and decimals as text; a float JSON
    has no number for (NaN, Infinity) raises _NotFinite."""
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, float):
        if value - value != 0:  # NaN, or an infinity (inf - inf is NaN)
            raise _NotFinite(value)
        return value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        import base64

        return base64.b64encode(value).decode()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)
