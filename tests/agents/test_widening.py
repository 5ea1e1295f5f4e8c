"""Progressive widening (`widen=K`): a node opens a new move only while few are open for its visits."""

from __future__ import annotations

import random

import pytest

from bestiary.agents import parse_settings
from bestiary.agents.search import Edge, Node, ucb_choice
from bestiary.core.errors import OptionError
from tests.agents.toy_games import Move

MOVES = [Move(i, f"m{i}") for i in range(10)]


def node_with_visits(visits: dict[int, int]) -> Node:
    node = Node()
    for index, count in visits.items():
        edge = node.edges[(0, MOVES[index])] = Edge()
        edge.visits, edge.total, edge.available = count, count * 0.5, count
    return node


def test_a_new_move_opens_only_while_fewer_than_widen_sqrt_visits_are_open() -> None:
    # Two moves open with 8 visits between them: widen=1 allows 3 (sqrt 9), so a third one opens;
    # with 3 open and 8 visits, no fourth does, and one of the open moves is chosen.
    two_open = node_with_visits({0: 4, 1: 4})
    assert ucb_choice(two_open, 0, MOVES, 1.0, random.Random(1), widen=1.0) not in MOVES[:2]
    three_open = node_with_visits({0: 3, 1: 3, 2: 2})
    for seed in range(10):
        assert ucb_choice(three_open, 0, MOVES, 1.0, random.Random(seed), widen=1.0) in MOVES[:3]
    # Without widening every move is tried before any is scored.
    assert ucb_choice(node_with_visits({0: 3, 1: 3, 2: 2}), 0, MOVES, 1.0, random.Random(1)) not in MOVES[:3]


def test_the_heuristics_move_opens_first_whatever_the_widening() -> None:
    node = node_with_visits({0: 3, 1: 3, 2: 2})
    assert ucb_choice(node, 0, MOVES, 1.0, random.Random(1), order=[MOVES[7]], prior=1.0, widen=1.0) == MOVES[7]


def test_new_moves_open_in_the_heuristics_order() -> None:
    # The heuristic ranks m5 first, then m2, then m8: with m5 open and visited, m2 opens next, then m8,
    # then the unranked rest at random.
    order = [MOVES[5], MOVES[2], MOVES[8]]
    assert ucb_choice(node_with_visits({5: 3}), 0, MOVES, 1.0, random.Random(1), order=order, widen=1.0) == MOVES[2]
    assert ucb_choice(node_with_visits({5: 3, 2: 3}), 0, MOVES, 1.0, random.Random(1), order=order,
                      widen=1.0) == MOVES[8]
    rest = {ucb_choice(node_with_visits({5: 3, 2: 3, 8: 3}), 0, MOVES, 1.0, random.Random(seed), order=order)
            for seed in range(20)}
    assert len(rest) > 1 and not rest & set(order)
    # A ranked move not legal here (another determinization's) is skipped.
    assert ucb_choice(Node(), 0, MOVES[:5], 1.0, random.Random(1), order=[MOVES[9], MOVES[3]]) == MOVES[3]


def test_widen_setting_by_name_and_its_bad_values() -> None:
    assert parse_settings("widen=1.5").widen == 1.5
    assert parse_settings("").widen == 0.0
    with pytest.raises(OptionError, match="widen must not be negative"):
        parse_settings("widen=-1")
