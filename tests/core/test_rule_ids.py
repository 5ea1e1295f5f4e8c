"""Every event names the rules that made it happen, and every refusal the rules that forbid it (each id a rule
of the game's own rules document), along seeded random games of every game at every player count."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bestiary.core.api import Game, State
from bestiary.core.errors import ActionParseError, IllegalActionError, UnreachableActionError
from bestiary.core.registry import game_info, list_games, load_game
from bestiary.core.rulebook import rule_index

GAMES_PER_COUNT = 2
REFUSALS_PER_STEP = 3

CASES = [(name, players) for name in list_games() for players in game_info(name).player_counts]


def _check_events(state: State, mark: object, known: dict[str, object], where: str) -> object:
    events, mark = state.events_after(mark)  # type: ignore[arg-type]
    assert events is not None
    for event in events:
        assert event.rules, f"{where}: event '{event.kind}' names no rule: {event.text}"
        unknown = [rule for rule in event.rules if rule not in known]
        assert not unknown, f"{where}: event '{event.text}' names {unknown}, not rules of the game"
    return mark


def _refused(state: State, action: object, player: int | None) -> IllegalActionError | None:
    """The refusal of `action` by `player`, or None where the game takes it (on a clone, left alone)."""
    trial = state.clone()
    try:
        trial.apply_action(action, player)  # type: ignore[arg-type]
    except IllegalActionError as error:
        return error
    return None


def _check_refusal(error: IllegalActionError, known: dict[str, object], where: str) -> None:
    assert error.rules, f"{where}: refusal names no rule: {error}"
    unknown = [rule for rule in error.rules if rule not in known]
    assert not unknown, f"{where}: refusal '{error}' names {unknown}, not rules of the game"
    assert all(rule in str(error) for rule in error.rules), f"{where}: the message leaves out a rule: {error}"


def _board_texts(game: Game, rng: random.Random) -> list[str]:
    """Texts of moves and attacks between two tiles of a board game's board, most of them out of any piece's
    reach (a real move of the game that no position allows)."""
    options = game.options_dict()
    if "width" not in options or "length" not in options:
        return []

    def tile() -> str:
        return f"{chr(ord('A') + rng.randrange(options['width']))}{rng.randrange(options['length']) + 1}"

    return [f"{verb} {tile()} {tile()}" for verb in ("move", "attack")]


CARD_VERBS = ("play", "react", "attach", "commit", "boost", "deploy", "raise")


def _refusals_tried(game: Game, state: State, rng: random.Random) -> list[tuple[object, int | None]]:
    """A sample of actions of the game to try now, by any seat: any action of the table, one that names a card
    (most often one the seat does not hold), and texts of moves out of reach."""
    table = game.player_action_table()
    seats = list(range(game.num_players))
    tried: list[tuple[object, int | None]] = [(rng.choice(table), rng.choice(seats)) for _ in range(REFUSALS_PER_STEP)]
    naming_cards = [action for action in table if str(action).split()[0] in CARD_VERBS]
    to_act = state.players_to_act()
    if naming_cards and to_act:
        tried.append((rng.choice(naming_cards), rng.choice(to_act)))
    tried += [(text, rng.choice(to_act or seats)) for text in _board_texts(game, rng)]
    return tried


@pytest.mark.parametrize(("name", "players"), CASES)
def test_every_event_and_refusal_names_its_rules(name: str, players: int) -> None:
    game = load_game(name, players=players)
    known = rule_index(game.info.rules_doc)
    for seed in range(GAMES_PER_COUNT):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        mark = _check_events(state, None, known, f"{name} {players}p seed {seed} start")
        step = 0
        while not state.is_terminal():
            where = f"{name} {players}p seed {seed} step {step}"
            for action, player in _refusals_tried(game, state, rng):
                error = _refused(state, action, player)
                if error is not None:
                    _check_refusal(error, known, f"{where}: {action} by P{(player or 0) + 1}")
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(rng))
            else:
                player = rng.choice(state.players_to_act())
                state.apply_action(rng.choice(state.legal_actions(player)), player)
            mark = _check_events(state, mark, known, where)
            step += 1
        error = _refused(state, game.player_action_table()[0], 0)
        assert error is not None
        _check_refusal(error, known, f"{name} {players}p seed {seed} at the end")


def test_a_move_out_of_reach_is_refused_by_the_movement_rule() -> None:
    """CRITS-6, CRITS-7: 'move A3 A30' is a real move of the game, out of every piece's reach: it is refused
    with the movement rule, at parsing and when played."""
    game = load_game("crits-creatures", players=2)
    with pytest.raises(UnreachableActionError) as parsed:
        game.parse_action("move A3 A30")
    assert parsed.value.rules == ("CRITS-6", "CRITS-7")
    state = game.new_initial_state(seed=0)
    error = _refused(state, "move A3 A30", None)
    assert error is not None and error.rules == ("CRITS-6", "CRITS-7") and "CRITS-7" in str(error)
    with pytest.raises(UnreachableActionError) as diagonal:
        game.parse_action("attack B2 C3")
    assert diagonal.value.rules == ("CRITS-65",)
    with pytest.raises(ActionParseError) as off_board:
        game.parse_action("move A3 Z99")
    assert not isinstance(off_board.value, IllegalActionError)


def test_a_parse_error_names_no_rule() -> None:
    """Text that names no action of a game at all is the one refusal without a rule."""
    for name in list_games():
        game = load_game(name, players=game_info(name).player_counts[0])
        state = game.new_initial_state(seed=0)
        with pytest.raises(ActionParseError):
            game.parse_action("juggle the moon")
        error = _refused(state, "juggle the moon", None)
        assert error is not None and error.rules == ()


def test_a_refusal_message_ends_with_the_rules_it_does_not_name() -> None:
    error = IllegalActionError("end turn", 0, "not now: the attack is required", ("CUBE-31",))
    assert str(error) == "illegal action 'end turn' by P1: not now: the attack is required (CUBE-31)"
    named = IllegalActionError("end turn", 0, "the attack is required (CUBE-31)", ("CUBE-31",))
    assert str(named).count("CUBE-31") == 1


def _first_state(game: Game, wanted: Callable[[State], bool], seeds: int = 20) -> State:
    """The first state along seeded random games where `wanted` holds."""
    for seed in range(seeds):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            if wanted(state):
                return state
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(rng))
            else:
                player = rng.choice(state.players_to_act())
                state.apply_action(rng.choice(state.legal_actions(player)), player)
    raise AssertionError("no such state along the random games")


def test_cube_ending_the_turn_while_an_attack_is_possible_names_the_required_attack() -> None:
    # CUBE-37: the attack is required while one is possible
    game = load_game("cube-creatures", players=2)
    state = _first_state(game, lambda s: s.decision_kind() == "turn" and any(
        str(a).startswith("attack") for a in s.legal_actions()))
    error = _refused(state, "end turn", None)
    assert error is not None and error.rules == ("CUBE-37",)
    assert str(error).endswith("an attack is possible, and the attack is required (CUBE-37)")


def test_a_card_not_held_is_refused_by_the_rule_of_playing_it() -> None:
    # LUNGO-31: a card is played from your hand; CUBE-22 / CUBE-26: a creature or action card from yours
    for name, rules in (("creatures-of-lungo", {"LUNGO-31"}), ("cube-creatures", {"CUBE-22", "CUBE-26"})):
        game = load_game(name, players=2)
        state = _first_state(game, lambda s: s.decision_kind() == "turn" and any(
            str(a).startswith("play") for a in s.legal_actions()))
        player = state.players_to_act()[0]
        hand = {card["id"] for card in state.observation(player)["hand"]}
        not_held = next(a for a in game.player_action_table()
                        if str(a).startswith("play ") and getattr(a, "card", None) not in hand)
        error = _refused(state, not_held, player)
        assert error is not None and "is not in your hand" in error.reason
        assert set(error.rules) <= rules and error.rules, error


def test_critters_an_empty_deck_is_refused_by_its_rule() -> None:
    # CRITTERS-39: an empty colour deck cannot be drawn from
    game = load_game("critter-capture", players=2)
    state = _first_state(game, lambda s: not s.is_chance_node() and not s.is_terminal()
                         and any(n == 0 for n in s.observation(None)["decks"].values())
                         and str(s.legal_actions()[0]).startswith("draw"))
    empty = next(colour for colour, n in state.observation(None)["decks"].items() if n == 0)
    error = _refused(state, f"draw {empty}", None)
    assert error is not None and error.rules == ("CRITTERS-39",)


def test_crits_a_piece_moves_once_a_turn() -> None:
    # CRITS-56: five different pieces a turn, each once
    game = load_game("crits-creatures", players=2)
    state = _first_state(game, lambda s: s.decision_kind() == "turn" and any(
        str(a).startswith("move") for a in s.legal_actions()))
    move = next(a for a in state.legal_actions() if str(a).startswith("move"))
    state.apply_action(move)
    back = f"move {move.to} {move.origin}"  # type: ignore[attr-defined]
    error = _refused(state, back, None)
    assert error is not None and error.rules == ("CRITS-56",), error


@settings(max_examples=12, deadline=None)
@given(name=st.sampled_from(list_games()), seed=st.integers(0, 10_000), steps=st.integers(0, 120),
       picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=8))
def test_any_action_of_the_table_refused_anywhere_names_rules_of_the_game(
        name: str, seed: int, steps: int, picks: list[int]) -> None:
    """Property: at any state of a random game, any action of the game's table that is refused by any seat is
    refused with at least one rule of the game's own rules document."""
    info = game_info(name)
    game = load_game(name, players=info.player_counts[seed % len(info.player_counts)])
    known = rule_index(info.rules_doc)
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(state.sample_chance_outcome(rng))
        else:
            player = rng.choice(state.players_to_act())
            state.apply_action(rng.choice(state.legal_actions(player)), player)
    table = game.player_action_table()
    for pick in picks:
        action, seat = table[pick % len(table)], pick % game.num_players
        error = _refused(state, action, seat)
        if error is not None:
            _check_refusal(error, known, f"{name} seed {seed} after {steps} steps: {action} by P{seat + 1}")
