"""Results files: written and read back unchanged in both formats; unreadable files get a clear error."""

import json

import pytest

from bestiary.analysis.results import RESULTS_FORMAT, ResultsError, load, read_results, write_results
from tests.analysis.conftest import critter_spec


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_round_trip(tmp_path, critter_records, suffix):
    path = tmp_path / f"run{suffix}"
    header = critter_spec().header()
    assert write_results(path, header, iter(critter_records)) == len(critter_records)
    read_header, records = read_results(path)
    assert read_header == {"format": RESULTS_FORMAT, **header}
    assert list(records) == critter_records


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_load_gives_a_data_frame(tmp_path, critter_records, suffix):
    path = tmp_path / f"run{suffix}"
    write_results(path, critter_spec().header(), critter_records)
    frame = load(path)
    assert len(frame) == len(critter_records)
    assert list(frame["length"]) == [r["length"] for r in critter_records]
    assert frame.attrs["header"]["game"] == "critter-capture"
    assert frame.loc[3, "card_events"] == critter_records[3]["card_events"]


def test_unreadable_files(tmp_path):
    with pytest.raises(ResultsError, match="no such results file"):
        read_results(tmp_path / "missing.jsonl")
    with pytest.raises(ResultsError, match=r"end in \.jsonl or \.parquet"):
        read_results(tmp_path / "run.csv")
    not_json = tmp_path / "bad.jsonl"
    not_json.write_text("{oops\n")
    with pytest.raises(ResultsError, match=r"bad.jsonl:1: not JSON"):
        read_results(not_json)
    other = tmp_path / "record.jsonl"
    other.write_text(json.dumps({"format": "bestiary-record/1"}) + "\n")
    with pytest.raises(ResultsError, match="not a Bestiary results file"):
        read_results(other)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet at all")
    with pytest.raises(ResultsError, match="cannot read as Parquet"):
        read_results(broken)


def test_a_damaged_line_is_named(tmp_path, critter_records):
    path = tmp_path / "run.jsonl"
    write_results(path, critter_spec().header(), critter_records[:3])
    lines = path.read_text().splitlines()
    lines[2] = lines[2][:40]
    path.write_text("\n".join(lines) + "\n")
    _, records = read_results(path)
    with pytest.raises(ResultsError, match=r"run.jsonl:3: not JSON"):
        list(records)
