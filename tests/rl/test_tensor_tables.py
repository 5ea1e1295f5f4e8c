"""The core helpers the fast observation tensors are built from."""

from __future__ import annotations

import gc

import numpy as np

import bestiary
from bestiary.core.tensors import item_writer, one_hot_starts, per_game, seat_positions


def test_per_game_builds_once_per_game_and_answers_each_game_its_own() -> None:
    built: list[int] = []

    def build(game: object) -> int:
        built.append(id(game))
        return len(built)

    tables = per_game(build)
    two, three = (bestiary.load_game("critter-capture", players=n) for n in (2, 3))
    answers = [tables(game) for game in (two, two, three, two, three, three)]
    assert answers == [1, 1, 2, 1, 2, 2] and len(built) == 2
    del two, three, answers
    gc.collect()
    again = bestiary.load_game("critter-capture", players=2)
    assert tables(again) == 3  # a new game object gets its own tables, even at a dead one's address


def test_seat_positions_count_seats_from_the_viewer() -> None:
    positions = seat_positions(10, players=3, rows=2)
    assert positions[0][0] == [10, 11, 12]
    assert positions[0][1] == [12, 10, 11]  # seen from seat 1, seat 1 is relative seat 0
    assert positions[1][2] == [14, 15, 13]  # the second row starts after one value per seat


def test_one_hot_rows_and_item_writes_land_in_the_tensor() -> None:
    out = np.zeros(12, np.float32)
    out[one_hot_starts(2, rows=3, width=3) + np.frombuffer(bytes([0, 2, 1]), np.uint8)] = 1.0
    writer = item_writer(out)
    writer[0] = 0.1
    assert out[0] == np.float32(0.1)
    assert out[2:11].reshape(3, 3).tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
