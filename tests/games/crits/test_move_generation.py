"""The fast legal-move generation against a plain one, and the bit sets it reads against the board."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

import bestiary
from bestiary.core.api import CHANCE, Action
from bestiary.core.conformance import random_step
from bestiary.games.crits import flow, rules
from bestiary.games.crits.actions import Move, Word
from bestiary.games.crits.game import CritsCreatures
from bestiary.games.crits.rules import SIDE
from bestiary.games.crits.state import CritsState

ARENA = (Path(__file__).parent / "arena.json").read_text()
CONFIGURATIONS = [{}, {"allies_block": False}, {"placement": "manual", "width": 8, "length": 12, "start_depth": 2}]


def plain_reachable(state: CritsState, piece: int, passable: set[int], free: set[int]) -> list[int]:
    """CRITS-6, CRITS-7 by a search over coordinates: orthogonal steps cost 1, diagonal steps 2, through passable
    tiles, within the piece's M:, ending on a free tile."""
    game = state.game
    budget = game.moves[state.card[piece]]
    cost = {state.pos[piece]: 0}
    frontier = [state.pos[piece]]
    while frontier:
        tile = frontier.pop()
        x, y = tile % game.width, tile // game.width
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)):
            nx, ny, step = x + dx, y + dy, 2 if dx and dy else 1
            to = ny * game.width + nx
            if 0 <= nx < game.width and 0 <= ny < game.length and to in passable \
                    and cost[tile] + step <= budget and cost[tile] + step < cost.get(to, budget + 1):
                cost[to] = cost[tile] + step
                frontier.append(to)
    return sorted(t for t in cost if t in free)


def plain_turn_actions(state: CritsState) -> list[Action]:
    """The turn's legal actions, piece by piece and rule by rule, with no bit set but the board's free tiles."""
    game = state.game
    player = state.player
    board_pieces = [p for p in range(2 * SIDE) if state.where[p] == rules.BOARD]
    occupied = {state.pos[p] for p in board_pieces}
    own = {state.pos[p] for p in board_pieces if state.side[p] == player}
    free = set(range(game.tiles)) - occupied
    passable = free if game.options.allies_block else free | own
    mine = [p for p in range(player * SIDE, player * SIDE + SIDE) if state.where[p] == rules.BOARD]
    out: list[Action] = []
    for piece in mine:
        may_move = not state.moved >> piece & 1 and (state.moves_made < rules.MOVES_PER_TURN
                                                      or rules.moves_freely(state, piece))
        if game.kind[state.card[piece]] != "item" and may_move:
            out += [game.move_actions[state.pos[piece], t] for t in plain_reachable(state, piece, passable, free)]
    if not state.attacked:
        for piece in mine:
            if rules.can_attack(state, piece):
                tiles = rules.attack_tiles(state, piece)
                out += [game.attack_actions[state.pos[piece], t] for t in tiles]
                if len(tiles) > 1 and len(game.attack_dice[state.card[piece]]) > 1:
                    out.append(game.split_actions[state.pos[piece]])
        enemies = sorted(state.pos[p] for p in board_pieces if state.side[p] != player)
        out += [game.pincer_actions[t] for t in enemies if rules.pincer_pair(state, t, player)]
    out += plain_effect_actions(state, player)
    out += [game.drop_crown_actions[t] for t in rules.crown_drop_tiles(state, player)]
    out.append(game.words["end turn"])
    return out


def plain_effect_actions(state: CritsState, player: int) -> list[Action]:
    """The player's Use actions (an effect with a target, rule by rule) and Deploy actions (CRITS-23, CRITS-46)."""
    game = state.game
    out: list[Action] = []
    for piece in range(2 * SIDE):
        if state.side[piece] == player and state.where[piece] in (rules.BOARD, rules.EQUIPPED) \
                and rules.effect_targets(state, piece):
            held = state.where[piece] == rules.EQUIPPED
            out.append(game.use_actions[rules.effect_source_tile(state, piece)][held])
    if any(state.board[t] < 0 for t in game.start_zone[player]):
        reserve = {state.card[p] for p in range(player * SIDE, player * SIDE + SIDE) if state.where[p] == rules.RESERVE}
        out += [game.deploy_actions[c] for c in sorted(reserve)]
    return out


def check_bit_sets(state: CritsState) -> None:
    game = state.game
    for side in (0, 1):
        pieces = [p for p in range(2 * SIDE) if state.where[p] == rules.BOARD and state.side[p] == side]
        assert state.occupancy[side] == sum(1 << state.pos[p] for p in pieces)
        for kind, bits in (("creature", state.creature_tiles[side]), ("titan", state.titan_tiles[side])):
            assert bits == sum(1 << state.pos[p] for p in pieces if game.kind[state.card[p]] == kind)
        assert state.fighters[side] == [p for p in pieces if game.kind[state.card[p]] != "item"]


def playouts(game: CritsCreatures, seeds: range) -> list[CritsState]:
    """Every state met along random playouts of the given seeds."""
    met = []
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            assert isinstance(state, CritsState)
            met.append(state.clone())
            player, action = random_step(state, rng)
            state.apply_action(action, player=None if player == CHANCE else player)
    return met


def fight_biased_game(game: CritsCreatures, seed: int, fights: float = 0.5) -> Iterator[CritsState]:
    """Each state of a seeded random game, handed out before its step is taken (and its step taken after the
    caller is done with it); in the turn phase, with probability `fights`, the step is a random one of the
    attacks, pincers, effects and other actions that are not a move or a word, so that fights come more often
    than uniform play brings them."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        assert isinstance(state, CritsState)
        yield state
        if state.phase == rules.TURN and rng.random() < fights:
            picks = [a for a in state.legal_actions() if not isinstance(a, Move | Word)]
            if picks:
                state.apply_action(rng.choice(picks))
                continue
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)


@pytest.mark.parametrize("options", CONFIGURATIONS)
def test_turn_actions_match_a_plain_generation_cold_and_warm(options: dict[str, object]) -> None:
    game = bestiary.load_game("crits-creatures", **options)
    assert isinstance(game, CritsCreatures)
    states = [s for s in playouts(game, range(4)) if s.phase == rules.TURN]
    assert len(states) > 50
    for _ in range(2):  # the first pass fills the game's memo of moves, the second reads from it
        for state in states:
            plain = plain_turn_actions(state)
            assert flow.python_turn_actions(state.clone()) == plain
            assert state.clone().legal_actions() == plain  # the compiled twin, where it is built
    assert game.reach_memo


def test_a_full_memo_starts_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "REACH_MEMO_SIZE", 8)
    game = bestiary.load_game("crits-creatures")
    assert isinstance(game, CritsCreatures)
    for state in [s for s in playouts(game, range(2)) if s.phase == rules.TURN]:
        assert flow.python_turn_actions(state) == plain_turn_actions(state)
        assert len(game.reach_memo) <= 8


@pytest.mark.parametrize("options", CONFIGURATIONS)
def test_bit_sets_follow_the_board_through_play_copies_and_json(options: dict[str, object]) -> None:
    game = bestiary.load_game("crits-creatures", **options)
    assert isinstance(game, CritsCreatures)
    rng = random.Random(0)
    for state in playouts(game, range(3)):
        check_bit_sets(state)
        guess = state.determinize(state.player, rng)
        assert guess.activators == game.activators(guess.card)
        restored = game.state_from_json(state.to_json())
        assert isinstance(restored, CritsState)
        check_bit_sets(restored)
        for piece in state.activators:
            if state.where[piece] in (rules.BOARD, rules.EQUIPPED):  # the only ones usable_effects asks about
                assert rules.has_effect_target(state, piece) == bool(rules.effect_targets(state, piece))


def test_moves_through_allies_are_kept_apart_from_moves_blocked_by_enemies() -> None:
    # CRITS-7 with allies_block=false: the same tiles taken, by allies or by enemies, are different positions.
    game = bestiary.load_game("crits-creatures", width=8, length=12, start_depth=2, first_player=0,
                              allies_block=False)
    assert isinstance(game, CritsCreatures)
    moves = []
    for wall in ((2, 3, 5, 6), (20, 21, 22, 23)):  # four of P1's pieces, then four of P2's, on A6 to D6
        raw = json.loads(ARENA)
        raw["pieces"]["4"].update(where="board", tile="A5")
        for piece, tile in zip(wall, ("A6", "B6", "C6", "D6"), strict=True):
            raw["pieces"][str(piece)].update(where="board", tile=tile)
        state = game.state_from_dict({**game.new_initial_state(seed=0).to_dict(), "state": raw, "history": [],
                                      "events": []})
        assert isinstance(state, CritsState)
        assert state.legal_actions() == plain_turn_actions(state)
        moves.append({str(a) for a in state.legal_actions() if str(a).startswith("move A5 ")})
    assert "move A5 A7" in moves[0] and "move A5 A7" not in moves[1]


SMALL = {"width": 8, "length": 12, "start_depth": 2}  # armies meet within a few turns


@pytest.mark.parametrize("options", [{}, SMALL, {**SMALL, "allies_block": False},
                                     {**SMALL, "counter_reach": "any", "kingless_turns": "with-fall",
                                      "titan_moves": "free"}])
def test_every_step_of_seeded_random_games_matches_the_plain_rules(options: dict[str, object]) -> None:
    # The fast paths (memo of moves, bit-set reach, the fighters and Deploy lists kept with the board, effect
    # tests on bit sets, dropped items found by counting) against plain rule-by-rule versions, at every step.
    game = bestiary.load_game("crits-creatures", **options)
    assert isinstance(game, CritsCreatures)
    seen_phases = set()
    for seed in range(6):
        for state in fight_biased_game(game, seed):
            check_bit_sets(state)
            player = state.current_player()
            seen_phases.add(state.phase)
            if state.phase == rules.TURN:
                plain = plain_turn_actions(state)
                assert flow.python_turn_actions(state) == plain
                assert state.legal_actions() == plain  # the compiled twin, where it is built
            elif state.phase == rules.RESPOND:
                assert state.legal_actions() == [*plain_effect_actions(state, player), game.words["pass"]]
            for tile in {state.pos[p] for p in range(2 * SIDE) if state.pos[p] >= 0}:
                assert state.dropped_at(tile) == [p for p in range(2 * SIDE)
                                                  if state.where[p] == rules.DROPPED and state.pos[p] == tile]
    assert {rules.TURN, rules.TARGET} <= seen_phases
    if options:
        assert rules.ROLL in seen_phases
