"""Rule functions on built states: the board, the layout, moves, what each player sees."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from rich.text import Text

import bestiary
from bestiary.core.errors import IllegalActionError, OptionError, StateFormatError
from bestiary.games.crits import flow, rules
from bestiary.games.crits.game import CritsCreatures
from bestiary.games.crits.state import CritsState

ARENA = json.loads((Path(__file__).parent / "arena.json").read_text())


def arena(**pieces: dict[str, object]) -> CritsState:
    game = bestiary.load_game("crits-creatures", width=8, length=12, start_depth=2, first_player=0)
    raw = json.loads(json.dumps(ARENA))
    for number, changes in pieces.items():
        raw["pieces"][number.lstrip("p")].update(changes)
    full = {**game.new_initial_state(seed=0).to_dict(), "state": raw, "history": [], "events": []}
    state = game.state_from_dict(full)
    assert isinstance(state, CritsState)
    return state


def test_default_board_is_ten_by_thirty_and_options_change_it() -> None:
    # CRITS-1
    game = bestiary.load_game("crits-creatures")
    assert isinstance(game, CritsCreatures)
    assert (game.width, game.length, game.tiles) == (10, 30, 300)
    small = bestiary.load_game("crits-creatures", width=8, length=12, start_depth=2)
    assert small.tile_names[-1] == "H12"  # type: ignore[attr-defined]
    with pytest.raises(OptionError, match="start_depth"):
        bestiary.load_game("crits-creatures", length=6, start_depth=3)
    with pytest.raises(OptionError, match="players"):
        bestiary.load_game("crits-creatures", players=3)


def test_preset_layout_puts_every_piece_behind_its_red_line() -> None:
    # CRITS-18, CRITS-30, CRITS-44; CRITS-46: Split Second cards wait off the board.
    game = bestiary.load_game("crits-creatures")
    state = game.new_initial_state(seed=2)
    assert isinstance(state, CritsState) and isinstance(game, CritsCreatures)
    for piece in range(32):
        card = game.cards[state.card[piece]]
        split_second = "split-second" in card.keywords()
        if split_second:
            assert state.where[piece] == rules.RESERVE
        elif state.where[piece] == rules.BOARD:
            assert state.pos[piece] in game.in_zone[state.side[piece]]
        else:
            assert state.where[piece] == rules.EQUIPPED


def test_reachable_counts_diagonals_as_two_and_cuts_corners() -> None:
    # CRITS-6, CRITS-7: a diagonal step may pass between two occupied tiles.
    state = arena(p4={"where": "board", "tile": "B2"}, p5={"where": "board", "tile": "B3"},
                  p6={"where": "board", "tile": "C2"})
    reach = {str(a).split()[2] for a in state.legal_actions() if str(a).startswith("move B2 ")}
    assert "C3" in reach  # the diagonal between B3 and C2
    assert "F2" not in reach and "E3" in reach  # E3: diagonal 2 + two steps
    assert "B2" not in reach


def cheapest_paths(game: CritsCreatures, start: int, blocked: set[int], budget: int) -> set[int]:
    """A plain Dijkstra over the board, the reference for rules.reachable."""
    best = {start: 0}
    frontier = [start]
    while frontier:
        frontier.sort(key=lambda t: best[t])
        tile = frontier.pop(0)
        for steps, cost in ((game.orthogonal[tile], 1), (game.diagonal[tile], 2)):
            for nxt in steps:
                new = best[tile] + cost
                if nxt not in blocked and new <= budget and new < best.get(nxt, budget + 1):
                    best[nxt] = new
                    frontier.append(nxt)
    return set(best) - {start}


@pytest.mark.parametrize("seed", range(20))
def test_reachable_agrees_with_a_plain_search(seed: int) -> None:
    rng = random.Random(seed)
    game = bestiary.load_game("crits-creatures", width=8, length=12, start_depth=2, first_player=0)
    assert isinstance(game, CritsCreatures)
    tiles = rng.sample(range(1, game.tiles - 1), 16)  # the Kings stand on A1 and H12
    pieces = {f"p{n}": {"where": "board", "tile": game.tile_names[t]} for n, t in zip((4, 5, 6, 7, 8, 9, 2, 3,
                                                                                     20, 21, 22, 23, 24, 25, 18, 19),
                                                                                    tiles, strict=True)}
    state = arena(**pieces)
    blocked = {state.pos[p] for p in range(32) if state.where[p] == rules.BOARD}
    free = game.all_tiles & ~sum(1 << t for t in blocked)
    for piece in (4, 7, 2):
        expected = cheapest_paths(game, state.pos[piece], blocked, game.moves[state.card[piece]])
        assert set(rules.reachable(state, piece, free, free)) == expected


def test_every_card_in_battle_is_open_and_reserve_cards_are_hidden() -> None:
    # CRITS-49, CRITS-50, CRITS-46
    state = arena(p10={"where": "reserve", "tile": None})
    mine, theirs = state.observation(0), state.observation(1)
    assert any(p["id"] == "wraith" for p in mine["pieces"])
    assert not any(p["id"] == "wraith" for p in theirs["pieces"])
    assert theirs["reserve"] == [1, 0]
    assert {p["id"] for p in theirs["pieces"] if p["side"] == 0} >= {"lich-lord", "bone-shield"}
    # determinize resamples which Split Second card P1 holds, never what P2 sees
    rng = random.Random(1)
    seen = {state.determinize(1, rng).card[10] for _ in range(30)}
    assert len(seen) > 1
    assert all(state.determinize(1, rng).observation(1) == theirs for _ in range(5))


def test_render_draws_the_board_and_escapes_brackets() -> None:
    state = arena(p4={"where": "board", "tile": "D5"})
    observation = state.observation(0)
    lich = next(p for p in observation["pieces"] if p["id"] == "lich-lord")
    lich["name"] = "[bold]Trick"
    text = Text.from_markup(state.game.render(observation)).plain
    assert "[bold]Trick" in text
    assert " 12 " in text and "Oak Warden" in text


def test_the_map_marks_a_dropped_item_under_a_standing_piece() -> None:
    """CRITS-36: a dropped item lies under a piece that stands on its tile; the map shows it with `i` before the
    label (the King keeps its `*`), and alone on a tile as `i`."""
    state = arena(p4={"where": "board", "tile": "D5"}, p12={"where": "dropped", "tile": "D5"},
                  p13={"where": "dropped", "tile": "F5"})
    rows = Text.from_markup(state.game.render(state.observation(0))).plain.splitlines()
    row_5 = next(line for line in rows if line.startswith("   5 "))
    cells = [row_5[5 + 4 * column:9 + 4 * column] for column in range(8)]
    assert cells[3].startswith("i") and cells[3][1:].strip() and cells[5].strip() == "i"
    assert "(before a label: lying under that piece)" in "\n".join(rows)


def test_bad_state_is_refused() -> None:
    with pytest.raises(StateFormatError, match="two pieces stand on A1"):
        arena(p4={"where": "board", "tile": "A1"})
    with pytest.raises(StateFormatError, match="no tile named"):
        arena(p4={"where": "board", "tile": "Z99"})
    # CRITS-45: the roll-off dice are d20s
    game = bestiary.load_game("crits-creatures", width=8, length=12, start_depth=2, first_player=0)
    full = game.new_initial_state(seed=0).to_dict()
    for rolls in ([25, -1], [0, 3], [4]):
        with pytest.raises(StateFormatError, match="first_rolls"):
            game.state_from_dict({**full, "state": {**full["state"], "first_rolls": rolls}})


def test_a_full_game_between_heuristic_agents_finishes() -> None:
    from bestiary.core.chance import sample_chance

    game = bestiary.load_game("crits-creatures")
    policy = game.heuristic_policy()
    assert policy is not None
    rng = random.Random(5)
    state = game.new_initial_state(seed=5)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        player = state.players_to_act()[0]
        state.apply_action(policy(state.observation(player), state.legal_actions(player), player, rng),
                           player=player)
    assert len(state.returns()) == 2


def test_manual_placement_ends_with_the_roll_off() -> None:
    # CRITS-44, CRITS-45: P1 places every piece, then P2, then the d20 roll-off.
    game = bestiary.load_game("crits-creatures", placement="manual")
    state = game.new_initial_state(seed=3)
    assert isinstance(state, CritsState) and isinstance(game, CritsCreatures)
    placed_by = []
    while state.phase == rules.PLACE:
        placed_by.append(state.current_player())
        state.apply_action(state.legal_actions()[-1])
    assert placed_by == sorted(placed_by) and set(placed_by) == {0, 1}
    assert state.phase == rules.FIRST_ROLL
    for piece in range(32):
        if state.where[piece] == rules.BOARD:
            assert state.pos[piece] in game.in_zone[state.side[piece]]


def test_a_refusal_in_a_window_says_what_is_awaited() -> None:
    # CRITS-52, CRITS-11: the engine's reason, which the terminal prints
    state = arena(p7={"where": "board", "tile": "D2"}, p19={"where": "board", "tile": "D5"})
    state.apply_action("attack D2 D5")
    with pytest.raises(IllegalActionError, match="waits for your answer"):
        state.apply_action("end turn", player=1)


def test_two_items_dropped_on_one_tile_can_be_attacked() -> None:
    # CRITS-36, CRITS-37: items dropped on one tile lie there together, and either may be attacked; both the
    # compiled list and its Python twin offer the attack
    state = arena(p0={"where": "board", "tile": "G12"}, p17={"where": "board", "tile": "C12"},
                  p11={"where": "dropped", "tile": "G11", "holder": -1},
                  p27={"where": "dropped", "tile": "G11", "holder": -1})
    assert state.dropped_at(state.game.tile_index["G11"]) == [11, 27]
    assert "attack G12 G11" in [str(a) for a in flow.python_turn_actions(state)]
    assert "attack G12 G11" in [str(a) for a in state.legal_actions()]
