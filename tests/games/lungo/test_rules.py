"""Lungo rule functions on hand-built states, hidden information, and the table drawn as text."""

from __future__ import annotations

import json
import random

import pytest
from rich.text import Text

import bestiary
from bestiary.agents import make_agent
from bestiary.agents.base import SeatView
from bestiary.core.api import SIMULTANEOUS
from bestiary.core.conformance import checked_playout
from bestiary.core.errors import OptionError
from bestiary.games.lungo import flow, phases, rules
from bestiary.games.lungo.cards import STARTER_CARDS
from tests.games.lungo.conftest import dealt

HANDS = [["ember-eel", "magma-koi", "forage"], ["tide-pike", "snatch", "antidote"]]


@pytest.mark.parametrize(("mine", "theirs", "winner"), [
    ("ember-eel", "tide-pike", 1),  # fire (5) is weak to water (4)
    ("tide-pike", "burrow-ant", 1),  # water (4) is weak to earth (4)
    ("burrow-ant", "ember-eel", 1),  # earth (4) is weak to fire (5)
    ("tide-pike", "ember-eel", 0),
    ("ember-eel", "magma-koi", 0),  # same element: 5 beats 3
    ("glass-minnow", "tide-pike", -1),  # same element, 4 and 4: a roll-off
])
def test_fight_weakness_cycle_then_power(mine: str, theirs: str, winner: int) -> None:
    """LUNGO-5, LUNGO-44, LUNGO-45, LUNGO-46: weakness first, then power, a tie to the die."""
    state = dealt([[mine, "forage", "antidote"], [theirs, "snatch", "poison"]],
                  ["goal-fire-trio", "goal-water-trio"], turn_draw="normal-play")
    state.apply_action(f"commit {mine}", player=0)
    state.apply_action(f"commit {theirs}", player=1)
    if winner < 0:
        assert state.is_chance_node() and state.rollers == [0, 1]
    else:
        assert any(f"P{winner + 1} wins Normal Play" in e.text for e in state.events(None))


def test_goal_requirements_count_cards_in_hand() -> None:
    """LUNGO-8, LUNGO-64: every line of the goal is met by cards in hand."""
    state = dealt([["ember-eel", "magma-koi", "forage"], ["tide-pike", "snatch", "antidote"]],
                  ["goal-fire-trio", "goal-balance"])
    assert not rules.goal_met(state, 0) and not rules.goal_met(state, 1)
    state.hands[0].append(state.game.index_of["cinder-wisp"])
    assert rules.goal_met(state, 0)
    state.hands[1] += [state.game.index_of["blaze-golem"], state.game.index_of["burrow-ant"],
                       state.game.index_of["power-fish"]]
    assert not rules.goal_met(state, 1)  # one power card short
    state.hands[1].append(state.game.index_of["power-shell"])
    assert rules.goal_met(state, 1)


def test_token_count_is_one_fewer_than_players() -> None:
    """LUNGO-19, LUNGO-20: one shared count of tokens, players - 1."""
    for players in range(2, 7):
        state = bestiary.load_game("creatures-of-lungo", players=players).new_initial_state(seed=1)
        assert state.tokens == players - 1
        assert state.observation(0)["tokens_left"] == players - 1


def test_empty_pile_is_refilled_from_the_discard_pile() -> None:
    """LUNGO-58: the discard pile becomes the draw pile; with both empty nothing is drawn."""
    state = dealt(HANDS, ["goal-fire-trio", "goal-water-trio"], turn_draw="cinder-wisp")
    state.discard, state.pile = state.pile, []
    flow.refill_pile(state)
    assert len(state.pile) == 91 and state.discard == []
    state.discard, state.pile = [], []
    state.apply_action("end turn", player=0)
    assert state.phase == phases.PLAY and state.active == 1 and len(state.hands[1]) == 3


def test_face_down_choice_is_hidden_until_all_have_chosen() -> None:
    """LUNGO-39, LUNGO-42, LUNGO-75: the other player sees a count, never the card."""
    state = dealt([["scorch-jaguar", "forage", "antidote"], ["tide-pike", "snatch", "poison"]],
                  ["goal-fire-trio", "goal-water-trio"], turn_draw="death-match")
    assert state.current_player() == SIMULTANEOUS and state.players_to_act() == [0, 1]
    state.apply_action("commit scorch-jaguar", player=0)
    seen_by_p2 = json.dumps(state.observation(1)) + " ".join(e.text for e in state.events(1))
    assert "scorch-jaguar" not in seen_by_p2 and "Scorch Jaguar" not in seen_by_p2
    assert "Scorch Jaguar" in " ".join(e.text for e in state.events(0))
    state.apply_action("commit tide-pike", player=1)
    assert "Scorch Jaguar" in " ".join(e.text for e in state.events(1))


def test_opponents_hidden_cards_do_not_change_an_observation() -> None:
    """LUNGO-26, LUNGO-75: permuting what P1 cannot see leaves P1's observation as it was."""
    state = dealt(HANDS, ["goal-fire-trio", "goal-water-trio"], turn_draw="cinder-wisp")
    before = state.observation(0)
    other = state.clone()
    other.hands[1], other.pile[:3] = other.pile[:3], other.hands[1]
    other.goals[1] = state.game.goal_index["goal-shells"]
    assert other.observation(0) == before
    assert other.observation(1) != state.observation(1)
    for seed in range(5):
        sampled = state.determinize(0, random.Random(seed))
        assert sampled.observation(0) == before
        assert sampled.hands[0] == state.hands[0] and sampled.goals[0] == state.goals[0]


def test_reaction_time_model_is_an_option_agents_use() -> None:
    """LUNGO-62: computer players react in reaction_mean +- reaction_spread seconds."""
    game = bestiary.load_game("creatures-of-lungo", players=2, reaction_mean=0.3, reaction_spread=0.1)
    rng = random.Random(1)
    delays = [game.reaction_delay(0, rng) for _ in range(200)]
    assert all(0.2 <= d <= 0.4 for d in delays) and max(delays) - min(delays) > 0.1
    view = SeatView(game.new_initial_state(seed=1), 0)
    assert 0.2 <= make_agent("random").reaction_delay(view, rng) <= 0.4
    with pytest.raises(OptionError, match="reaction_spread"):
        bestiary.load_game("creatures-of-lungo", players=2, reaction_mean=0.3, reaction_spread=0.5)


def test_render_shows_the_battle_and_escapes_brackets(tmp_path) -> None:
    """LUNGO-34: the terminal announces the battle; card names with brackets print as written."""
    path = tmp_path / "bracketed.toml"
    path.write_text(STARTER_CARDS.read_text().replace('name = "Scorch Jaguar"', 'name = "[Boss] Scorch Jaguar"'))
    state = dealt([["scorch-jaguar", "forage", "antidote"], ["tide-pike", "snatch", "poison"]],
                  ["goal-fire-trio", "goal-water-trio"], turn_draw="normal-play", cards=str(path))
    screen = Text.from_markup(state.game.render(state.observation(0))).plain
    assert "Battle! Normal Play, drawn by P1" in screen
    assert "[Boss] Scorch Jaguar (Jungle creature, fire element, power 7" in screen
    assert "P2: 0 card(s) face down (choosing)" in screen
    assert "Your secret goal: Fire Trio" in screen


def test_bad_options_are_refused() -> None:
    with pytest.raises(OptionError, match="first_player"):
        bestiary.load_game("creatures-of-lungo", players=3, first_player=3)
    with pytest.raises(OptionError, match="players"):
        bestiary.load_game("creatures-of-lungo", players=7)


def test_discreet_grabs_keep_every_state_sound() -> None:
    """LUNGO-57 (option token_grab="discreet"): random games check clone, JSON round trip, determinize and
    hidden information at every step while a grab goes unnoticed (seeds that reach one, 3 players)."""
    game = bestiary.load_game("creatures-of-lungo", players=3, token_grab="discreet", token_moment="round")
    for seed in (4, 7):
        state = checked_playout(game, seed)
        assert any("discreetly" in e.text for e in state.all_events())
        assert state.is_terminal() and sorted(state.returns()) == [-1.0, 0.0, 1.0]


def test_a_draw_names_the_rule_that_drew_it() -> None:
    # A card drawn by an action card's effect (Forage) names LUNGO-63; one drawn as a battle's winnings names
    # LUNGO-73; the turn's draw LUNGO-30 and the deal LUNGO-24.
    game = bestiary.load_game("creatures-of-lungo", players=3)
    expected = {"deal": ("LUNGO-24",), "turn": ("LUNGO-30",), "effect": ("LUNGO-63",), "winnings": ("LUNGO-73",)}
    seen = set()
    for seed in range(6):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(rng))
            else:
                player = rng.choice(state.players_to_act())
                state.apply_action(rng.choice(state.legal_actions(player)), player)
        because = "deal"
        for event in state.events():
            if event.kind == "turn":
                because = "turn"
            elif event.kind in ("play", "respond"):
                because = "effect"
            elif event.kind in ("winnings", "battle-won"):
                because = "winnings"
            elif event.kind == "draw":
                assert event.rules == expected[because], (seed, event.text, because)
                seen.add(because)
    assert seen == set(expected)  # the random games drew in every way
