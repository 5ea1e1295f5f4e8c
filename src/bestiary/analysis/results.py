"""Simulation results on disk: JSON Lines (always available) or Parquet (with the `analysis` extra).

A results file holds a header (game, rules version, options, card set, agents, master seed) and one record
per game. `load` reads either kind back as a pandas DataFrame, the header in `frame.attrs["header"]`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from bestiary.core.errors import BestiaryError

if TYPE_CHECKING:
    import pandas

RESULTS_FORMAT = "bestiary-simulation/1"
SUFFIXES = (".jsonl", ".parquet")
NESTED = ("agents", "returns", "winners", "scores", "card_events", "event_counts", "event_values", "decisions",
          "score_kinds", "exposures", "exposure_kinds", "factions", "ranking")
PARQUET_BATCH = 2000

Record = dict[str, Any]


class ResultsError(BestiaryError, ValueError):
    """A results file that cannot be read or written."""


def check_suffix(path: str | Path) -> Path:
    path = Path(path)
    if path.suffix not in SUFFIXES:
        raise ResultsError(f"{path}: results files end in {' or '.join(SUFFIXES)}")
    return path


def write_results(path: str | Path, header: dict[str, Any], records: Iterable[Record]) -> int:
    """Write the header and records (streamed, so a long run needs little memory); the number written.

    The file is written beside its place and moved there once complete: a run that fails (no Ray cluster,
    a broken game) leaves no half-written file and an earlier file of that name as it was."""
    path = check_suffix(path)
    header = {"format": RESULTS_FORMAT, **header}
    partial = path.with_name(f".{path.name}.part")
    try:
        if path.suffix == ".parquet":
            count = _write_parquet(partial, header, records)
        else:
            with partial.open("w", encoding="utf-8") as out:
                count = _write_jsonl(out, header, records)
        partial.replace(path)
        return count
    except OSError as error:
        raise ResultsError(f"{path}: cannot write: {error.strerror or error}") from None
    finally:
        partial.unlink(missing_ok=True)


def _write_jsonl(out: IO[str], header: dict[str, Any], records: Iterable[Record]) -> int:
    out.write(json.dumps(header) + "\n")
    count = 0
    for record in records:
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
        count += 1
    return count


def _write_parquet(path: Path, header: dict[str, Any], records: Iterable[Record]) -> int:
    pa, pq = _pyarrow()
    writer = None
    count = 0
    batch: list[Record] = []

    def flush() -> None:
        nonlocal writer
        table = pa.Table.from_pylist([_flatten(r) for r in batch])
        if writer is None:
            schema = table.schema.with_metadata({"bestiary": json.dumps(header)})
            writer = pq.ParquetWriter(str(path), schema)
        writer.write_table(table.replace_schema_metadata(writer.schema.metadata))
        batch.clear()

    try:
        for record in records:
            batch.append(record)
            count += 1
            if len(batch) == PARQUET_BATCH:
                flush()
        if batch:
            flush()
    finally:
        if writer is not None:
            writer.close()
    return count


def _flatten(record: Record) -> Record:
    # nested fields travel as JSON text, so every game's records share one flat schema
    return {key: json.dumps(value) if key in NESTED else value for key, value in record.items()}


def read_results(path: str | Path) -> tuple[dict[str, Any], Iterator[Record]]:
    """The header and an iterator over the records, without holding them all in memory."""
    path = check_suffix(path)
    if not path.is_file():
        raise ResultsError(f"{path}: no such results file")
    if path.suffix == ".parquet":
        return _read_parquet(path)
    return _read_jsonl(path)


def _read_jsonl(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    try:
        stream = path.open(encoding="utf-8")
        first = stream.readline()
    except (OSError, UnicodeDecodeError) as error:
        raise ResultsError(f"{path}: cannot read: {error}") from None
    header = _parse_line(path, first, 1)
    _check_header(path, header)

    def records() -> Iterator[Record]:
        with stream:
            for number, line in enumerate(stream, start=2):
                if line.strip():
                    yield _parse_line(path, line, number)

    return header, records()


def _parse_line(path: Path, line: str, number: int) -> Record:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as error:
        raise ResultsError(f"{path}:{number}: not JSON: {error}") from None
    if not isinstance(value, dict):
        raise ResultsError(f"{path}:{number}: expected a JSON object")
    return _intern(value)


def _intern(record: Record) -> Record:
    # card ids repeat in every record: one string object each keeps a large run small in memory
    for key in ("card_events", "exposures"):
        events = record.get(key)
        if isinstance(events, dict):
            for seats in events.values():
                for seat, cards in seats.items():
                    seats[seat] = [sys.intern(c) for c in cards]
    return record


def _check_header(path: Path, header: Record) -> None:
    if header.get("format") != RESULTS_FORMAT:
        raise ResultsError(f"{path}: not a Bestiary results file (expected \"format\": \"{RESULTS_FORMAT}\")")


def _read_parquet(path: Path) -> tuple[dict[str, Any], Iterator[Record]]:
    pa, pq = _pyarrow()
    try:
        source = pq.ParquetFile(str(path))
    except (OSError, pa.ArrowInvalid) as error:
        raise ResultsError(f"{path}: cannot read as Parquet: {error}") from None
    raw = (source.schema_arrow.metadata or {}).get(b"bestiary")
    header = json.loads(raw) if raw else {}
    _check_header(path, header)

    def records() -> Iterator[Record]:
        for batch in source.iter_batches():
            for row in batch.to_pylist():
                yield _intern({key: json.loads(value) if key in NESTED and value is not None else value
                               for key, value in row.items()})

    return header, records()


def load(path: str | Path) -> pandas.DataFrame:
    """A results file as a pandas DataFrame, one row per game; the run's header in `.attrs["header"]`."""
    try:
        import pandas
    except ImportError:
        raise ResultsError("load() needs pandas: pip install 'bestiary[analysis]'") from None
    header, records = read_results(path)
    frame = pandas.DataFrame.from_records(list(records))
    frame.attrs["header"] = header
    return frame


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise ResultsError("Parquet files need pyarrow: pip install 'bestiary[analysis]', or use .jsonl") from None
    return pyarrow, pyarrow.parquet
