"""The records of a run written as Parquet rows (the extra ``chatpipe[parquet]``).

The columns are the records' keys in the order first seen. A column whose values are all
text, all whole numbers or all true/false is that Parquet type; a column of lists of
whole numbers that int32 holds (token ids, masks) is a list of int32; a column of message
lists whose every message has the fields of a chat dataset (OpenAI
``role``/``content``/``name``/``tool_call_id``/``tool_calls``, or ShareGPT
``from``/``value``) is a list of structs, as Hugging Face chat datasets are published;
every other column is JSON text, one value per row, so that no field is lost or changed
(Parquet holds one type per column: a float among integers, a key that only some tool
calls have, content given as a list of parts would otherwise be widened, dropped or
refused). The choice is made on the first row group and said in the file's metadata; a
later row that does not fit turns its column into JSON text, the row groups written
before it rewritten. A line that is not a JSON object is refused (``not_rows``).
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

import orjson

from ..errors import DataError
from .encode import dumps
from .json_numbers import loads
from .parquet import META_KEY, not_rows, pyarrow, without_nulls

_ROWS_PER_GROUP = 8192  # rows of a row group written
_BYTES_PER_GROUP = 8 << 20  # or fewer, when their JSON passes this size (memory: about 10x)


_OPENAI_TEXT = ("role", "content", "name", "tool_call_id")
_SHAREGPT_TEXT = ("from", "value")


def _message_types() -> dict[str, Any]:
    import pyarrow as pa

    text = pa.string()
    function = pa.struct([("name", text), ("arguments", text)])
    call = pa.struct([("id", text), ("type", text), ("function", function)])
    openai = pa.struct([*((k, text) for k in _OPENAI_TEXT), ("tool_calls", pa.list_(call))])
    sharegpt = pa.struct([(k, text) for k in _SHAREGPT_TEXT])
    return {"openai": pa.list_(openai), "sharegpt": pa.list_(sharegpt)}


def _plain_types() -> dict[str, Any]:
    import pyarrow as pa

    return {"json": pa.string(), "int32s": pa.list_(pa.int32())}


def _fits_openai(message: Any) -> bool:
    if type(message) is not dict or type(message.get("role")) is not str:
        return False
    if "content" not in message:
        return False
    for key, value in message.items():
        if key in _OPENAI_TEXT:
            if type(value) is not str and not (key == "content" and value is None):
                return False
        elif key != "tool_calls" or not _fits_calls(value):
            return False
    return True


def _fits_calls(calls: Any) -> bool:
    if type(calls) is not list:
        return False
    for call in calls:
        if type(call) is not dict or set(call) - {"id", "type", "function"}:
            return False
        if not all(type(call[k]) is str for k in ("id", "type") if k in call):
            return False
        function = call.get("function", {})
        if (
            type(function) is not dict
            or set(function) - {"name", "arguments"}
            or not all(type(v) is str for v in function.values())
        ):
            return False
    return True


def _fits_sharegpt(message: Any) -> bool:
    return (
        type(message) is dict
        and set(message) == set(_SHAREGPT_TEXT)
        and all(type(v) is str for v in message.values())
    )


def _fits_int32s(value: Any) -> bool:
    """A list of whole numbers that int32 holds (token ids, masks, labels)."""
    return type(value) is list and (
        not value
        or (set(map(type, value)) == {int} and min(value) >= -(1 << 31) and max(value) < 1 << 31)
    )


_FITS = {
    "string": lambda v: type(v) is str,
    "int64": lambda v: type(v) is int and -(1 << 63) <= v < (1 << 63),
    "bool": lambda v: type(v) is bool,
    "openai": lambda v: type(v) is list and all(_fits_openai(m) for m in v),
    "sharegpt": lambda v: type(v) is list and all(_fits_sharegpt(m) for m in v),
    "int32s": _fits_int32s,
}


def _kind_of(values: list[Any]) -> str:
    """How a column of the first row group is stored (a missing value is None)."""
    present = [v for v in values if v is not _ABSENT]
    # lists of numbers (token ids: chatpipe tokenize) are int32 lists; empty lists alone
    # say nothing of what they hold, and stay what they were (message lists)
    numbers = ("int32s",) if any(type(v) is list and v for v in present) else ()
    for kind in ("string", "int64", "bool", *numbers, "openai", "sharegpt"):
        if present and all(_FITS[kind](v) for v in present):
            return kind
    return "json"


_ABSENT: Any = object()


class ParquetOutput:
    """The sink of a run written as Parquet: JSON lines in, rows out, a row group at a
    time, into ``path`` (a temporary file the caller moves into place)."""

    def __init__(self, path: str) -> None:
        pyarrow()
        self.path = path
        self.rows: list[dict[str, Any]] = []
        self.size = 0
        self.pending = b""
        self.kinds: dict[str, str] = {}  # column -> kind, once the first group is written
        self.writer: Any = None
        self.groups = 0

    # the sink interface: lines of JSON records
    def line(self, data: bytes) -> None:
        self.borrowed(data + b"\n")

    def raw(self, data: bytes) -> None:
        self.borrowed(data)

    def borrowed(self, data: Any) -> None:
        data = self.pending + bytes(data)
        lines = data.split(b"\n")
        self.pending = lines.pop()
        for line in lines:
            if not line.strip():
                continue
            try:
                record = loads(line)
            except (ValueError, DataError):  # (orjson's JSONDecodeError is a ValueError)
                record = None
            if type(record) is not dict:
                raise not_rows()
            self.rows.append(record)
            self.size += len(line)
            if len(self.rows) >= _ROWS_PER_GROUP or self.size >= _BYTES_PER_GROUP:
                self._write_group()

    def flush(self) -> None:
        pass

    def close(self) -> None:
        """Write what is left; the file is complete after this."""
        if self.pending.strip():
            self.borrowed(b"\n")
        if self.rows or self.writer is None:
            self._write_group()
        self.writer.close()
        self.writer = None
        with open(self.path, "rb+") as written:  # on the disk before it is renamed
            os.fsync(written.fileno())

    def abort(self) -> None:
        """Stop writing (the caller removes the file)."""
        if self.writer is not None:
            with contextlib.suppress(Exception):
                self.writer.close()
            self.writer = None

    def _write_group(self) -> None:
        import pyarrow as pa

        rows, self.rows, self.size = self.rows, [], 0
        columns: dict[str, list[Any]] = {}
        for number, row in enumerate(rows):
            for key in row:
                if key not in columns:
                    columns[key] = [_ABSENT] * number
            for key, values in columns.items():
                values.append(row.get(key, _ABSENT))
        if self.writer is None:
            self.kinds = {key: _kind_of(values) for key, values in columns.items()}
        else:
            changed = {
                key
                for key, values in columns.items()
                if key not in self.kinds
                or (
                    self.kinds[key] != "json"
                    and not all(v is _ABSENT or _FITS[self.kinds[key]](v) for v in values)
                )
            }
            if changed:
                self._rewrite_as_json(changed)
        for key in self.kinds:
            columns.setdefault(key, [_ABSENT] * len(rows))
        schema = self._schema()
        arrays = [
            pa.array(_stored(columns[f.name], self.kinds[f.name]), type=f.type) for f in schema
        ]
        table = pa.Table.from_arrays(arrays, schema=schema)
        if self.writer is None:
            self.writer = pyarrow().ParquetWriter(self.path, schema)
        self.writer.write_table(table)
        self.groups += 1

    def _schema(self) -> Any:
        import pyarrow as pa

        messages = _message_types()
        fields = []
        for key, kind in self.kinds.items():
            kind_type = messages.get(kind) or _plain_types().get(kind) or kind
            fields.append(pa.field(key, kind_type))
        said = {
            "json": [k for k, v in self.kinds.items() if v == "json"],
            "messages": [k for k, v in self.kinds.items() if v in messages],
        }
        return pa.schema(fields, metadata={META_KEY: orjson.dumps(said)})

    def _rewrite_as_json(self, columns: set[str]) -> None:
        """Columns that a later row does not fit become JSON text, in the row groups
        written before it as well (read back from the file)."""
        import pyarrow as pa

        self.writer.close()
        before, self.kinds = (
            dict(self.kinds),
            {
                **self.kinds,
                **{key: "json" for key in columns},
            },
        )
        schema = self._schema()
        old = self.path + ".old"
        os.replace(self.path, old)
        try:
            parquet = pyarrow().ParquetFile(old)
            self.writer = pyarrow().ParquetWriter(self.path, schema)
            for group in range(parquet.num_row_groups):
                table = parquet.read_row_group(group)
                arrays = []
                for field in schema:
                    if field.name not in before:
                        arrays.append(pa.nulls(table.num_rows, pa.string()))
                        continue
                    column = table.column(field.name)
                    if field.name in columns and before[field.name] != "json":
                        values = [
                            _ABSENT if v is None else _back(v, before[field.name])
                            for v in column.to_pylist()
                        ]
                        column = pa.array(_stored(values, "json"), type=pa.string())
                    arrays.append(column)
                self.writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
            parquet.close()
        finally:
            os.unlink(old)


def _back(value: Any, kind: str) -> Any:
    """A value read back from a column of ``kind``, as it was given."""
    if kind in ("openai", "sharegpt"):
        return [without_nulls(m) for m in value]
    return value


def _stored(values: list[Any], kind: str) -> list[Any]:
    if kind == "json":
        return [None if v is _ABSENT else dumps(v).decode() for v in values]
    return [None if v is _ABSENT else v for v in values]
