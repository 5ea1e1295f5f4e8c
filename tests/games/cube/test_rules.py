"""The rule functions on hand-built positions, and the options that change the rules."""

from __future__ import annotations

import pytest

import bestiary
from bestiary.core.api import CHANCE
from bestiary.core.errors import IllegalActionError, OptionError, StateFormatError
from bestiary.games.cube import flow, rules
from bestiary.games.cube.rules import CREATURE, REACTION
from tests.games.cube.helpers import card, position


@pytest.mark.parametrize(("points", "face", "adjusted"), [
    (6, "+2", 8), (6, "+1", 7), (6, "-1", 5), (6, "-2", 4), (6, "2x", 12), (6, "miss", 0), (1, "-2", 0),
])
def test_adjusted_attack(points: int, face: str, adjusted: int) -> None:
    # CUBE-40.1 to CUBE-40.6; CUBE-41: 6 + 1 = 7; never below 0.
    assert rules.adjusted_attack(points, face) == adjusted


def test_die_is_a_fair_six_sided_chance_node() -> None:
    # CUBE-39, CUBE-40: six faces, 1/6 each.
    state = position(battlefields=[["thunder-cube"], ["anvil-tortoise"]])
    state.apply_action("attack P2 guard with guard")
    assert state.current_player() == CHANCE
    outcomes = state.chance_outcomes()
    assert [str(a) for a, _ in outcomes] == ["roll +2", "roll +1", "roll -1", "roll -2", "roll 2x", "roll miss"]
    assert all(p == pytest.approx(1 / 6) for _, p in outcomes)


def test_damage_defeat_and_victory_pile() -> None:
    # CUBE-42, CUBE-43: 10 health attacked for 7 leaves 3; CUBE-45: zero or less defeats.
    state = position(battlefields=[["thunder-cube"], ["cubic-crab", "moss-cube"]])
    crab = card(state, "cubic-crab")
    assert not rules.deal_damage(state, crab, 7, by_player=0)
    assert rules.current_health(state, crab) == 3
    assert rules.deal_damage(state, crab, 3, by_player=0)
    assert state.victory[0] == [crab] and state.fields[1] == [card(state, "moss-cube")]  # CUBE-53


def test_heal_never_above_full_health() -> None:
    # CUBE-44
    state = position(battlefields=[["cubic-crab"], []], damage={"cubic-crab": 2})
    crab = card(state, "cubic-crab")
    assert rules.heal(state, crab, 5) == 2
    assert rules.current_health(state, crab) == 10


def test_upgrade_slots() -> None:
    # CUBE-6, CUBE-28: one weapon and one armor; the bonuses change attack and health.
    state = position(battlefields=[["dust-bunny"], []], hands=[["foam-hammer", "spiked-die", "brick-vest"], []])
    bunny = card(state, "dust-bunny")
    rules.attach_upgrade(state, 0, card(state, "foam-hammer"), bunny)
    assert not rules.upgrade_slot_free(state, card(state, "spiked-die"), bunny)
    assert rules.upgrade_slot_free(state, card(state, "brick-vest"), bunny)
    rules.attach_upgrade(state, 0, card(state, "brick-vest"), bunny)
    assert (rules.attack_points(state, bunny), rules.max_health(state, bunny)) == (3, 12)


def test_refill_draws_to_a_creature_and_shuffles_the_rest_back() -> None:
    # CUBE-25
    state = position(deck=["lure", "brace", "pixel-owl", "zap-bolt"])
    assert rules.refill_empty_battlefield(state, 0)
    assert state.hands[0] == [card(state, "pixel-owl")]
    assert sorted(state.deck) == sorted(card(state, c) for c in ("lure", "brace", "zap-bolt"))


def test_refill_finds_nothing_when_no_creature_is_left() -> None:
    # CUBE-54
    state = position(deck=["lure"], discard=["brace"])
    assert not rules.refill_empty_battlefield(state, 0)
    assert state.hands[0] == [] and len(state.deck) == 2


def test_redraw_hand_keeps_its_size() -> None:
    # CUBE-18
    state = position(hands=[["lure", "brace", "zap-bolt"], []], deck=["pixel-owl", "cube-ant", "rewind"])
    rules.redraw_hand(state, 0)
    assert len(state.hands[0]) == 3 and len(state.deck) == 3


def test_every_dealt_hand_opens_with_two_creatures() -> None:
    # CUBE-15, CUBE-18
    for players in (2, 5):
        game = bestiary.load_game("cube-creatures", players=players)
        for seed in range(20):
            state = game.new_initial_state(seed=seed)
            for hand in state.hands:
                assert len(hand) == 7
                assert sum(game.ctype[c] == CREATURE for c in hand) >= 2


def test_hands_have_no_size_limit() -> None:
    # CUBE-57
    state = position(hands=[["lure", "brace", "zap-bolt", "rewind", "patch-up", "cube-quake", "rally-cry"], []],
                     deck=["dust-bunny", "gravel-goat"])
    rules.draw_card(state, 0)
    assert len(state.hands[0]) == 8


def test_player_counts() -> None:
    # CUBE-2: 2 to 5 players.
    for players in (2, 3, 4, 5):
        assert bestiary.load_game("cube-creatures", players=players).num_players == players
    for players in (1, 6):
        with pytest.raises(OptionError, match="players"):
            bestiary.load_game("cube-creatures", players=players)
    with pytest.raises(OptionError, match="first_player"):
        bestiary.load_game("cube-creatures", players=2, first_player=2)


def test_first_game_tip_takes_the_reactions_out() -> None:
    # CUBE-49
    game = bestiary.load_game("cube-creatures", players=2, reactions=False)
    assert not any(game.ctype[c] == REACTION for c in game.in_play) and len(game.in_play) == 52
    state = game.new_initial_state(seed=0)
    assert all(game.ctype[c] != REACTION for c in state.deck + state.hands[0] + state.hands[1])


def test_grandmas_rules_use_creatures_only_without_powers() -> None:
    # CUBE-50
    game = bestiary.load_game("cube-creatures", players=5, grandma=True)
    assert len(game.in_play) == 32 and all(game.ctype[c] == CREATURE for c in game.in_play)
    state = game.new_initial_state(seed=2)
    assert [len(h) for h in state.hands] == [5] * 5
    while state.phase == flow.PLACE:
        state.apply_action(state.legal_actions()[0])
    assert not any(str(a).startswith("use power") for a in state.legal_actions())


def test_win_at_option() -> None:
    # CUBE-1: "defeat 5 enemy creatures"; a shorter game on request.
    state = position(battlefields=[["thunder-cube"], ["cube-ant", "moss-cube"]])
    game = bestiary.load_game("cube-creatures", players=2, win_at=1)
    short = game.state_from_dict({**state.to_dict(), "options": game.options_dict()})
    rules.deal_damage(short, card(short, "cube-ant"), 20, by_player=0)
    assert short.is_terminal() and short.returns() == [1.0, 0.0]


def test_an_illegal_action_names_the_reason_and_changes_nothing() -> None:
    state = position(battlefields=[["thunder-cube"], ["anvil-tortoise"]], hands=[["zap-bolt"], ["brace"]])
    before = state.to_json()
    with pytest.raises(IllegalActionError, match="lure is not in your hand"):
        state.apply_action("play lure")
    with pytest.raises(IllegalActionError, match="that player may not act now"):
        state.apply_action("react brace", player=1)
    assert state.to_json() == before


def test_a_state_holding_a_card_twice_is_refused() -> None:
    state = position(battlefields=[["thunder-cube"], ["anvil-tortoise"]])
    raw = state.to_dict()
    raw["state"]["hands"] = [["thunder-cube"], []]
    with pytest.raises(StateFormatError, match="appears twice"):
        state.game.state_from_dict(raw)


def test_attack_adds_boost_before_the_die_and_takes_reductions_after() -> None:
    # CUBE-39: attack points + boosts, adjusted by the die; CUBE-42: reactions' reductions come off the result.
    state = position(battlefields=[["thunder-cube"], ["anvil-tortoise"]], boost=2, reduce=3)
    thunder, anvil = card(state, "thunder-cube"), card(state, "anvil-tortoise")
    rules.attack(state, 0, thunder, anvil, "2x")
    assert state.damage[anvil] == (5 + 2) * 2 - 3
    rules.attack(state, 0, thunder, anvil, "miss")
    assert state.damage[anvil] == 11
