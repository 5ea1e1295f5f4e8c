"""Critter capture beyond single scenarios: player counts, observations, chance, the heuristic."""

from __future__ import annotations

import random

import pytest

import bestiary
from bestiary.agents import HeuristicAgent, RandomAgent, SeatView
from bestiary.core.api import CHANCE
from bestiary.core.chance import sample_chance
from bestiary.core.conformance import play_randomly
from bestiary.core.errors import IllegalActionError, OptionError, UnknownGameError


@pytest.mark.parametrize(("players", "rounds"), [(2, 24), (3, 16), (4, 12), (6, 8)])
def test_rounds_follow_from_48_cards(players: int, rounds: int) -> None:
    # CRITTERS-4, CRITTERS-31: one ecoregion deck plays 2, 3, 4 or 6; every card is played.
    game = bestiary.load_game("critter-capture", players=players)
    state = play_randomly(game, seed=players)
    assert state.rounds == rounds
    assert sum(len(c) for c in state.corrals) == 48
    flips = [a for p, a in state.history() if p == CHANCE]
    assert len(flips) == 48 and len({str(a) for a in flips}) == 48


@pytest.mark.parametrize("players", [5, 7, 9, 1, 49])
def test_other_counts_are_refused_with_the_ecoregions_they_need(players: int) -> None:
    # CRITTERS-36
    with pytest.raises(OptionError) as caught:
        bestiary.load_game("critter-capture", players=players)
    message = str(caught.value)
    assert "critter-capture" in message and "players" in message


def test_more_players_with_several_ecoregions() -> None:
    # CRITTERS-36: 8 players need 2 decks; 5 players need 5.
    with pytest.raises(OptionError, match="8 players need ecoregions=2"):
        bestiary.load_game("critter-capture", players=8)
    game = bestiary.load_game("critter-capture", players=8, ecoregions=2)
    state = play_randomly(game, seed=1)
    assert state.rounds == 12 and sum(len(c) for c in state.corrals) == 96
    assert "bluegill#2" in game.instance_ids
    with pytest.raises(OptionError, match="ecoregions=5"):
        bestiary.load_game("critter-capture", players=5)
    assert bestiary.load_game("critter-capture", players=5, ecoregions=5).num_players == 5


def test_unknown_options_and_variants_are_refused() -> None:
    with pytest.raises(OptionError, match="unknown option 'colours'"):
        bestiary.load_game("critter-capture", players=2, colours=3)
    with pytest.raises(OptionError, match="first_player"):
        bestiary.load_game("critter-capture", players=2, first_player=2)
    # CRITTERS-34: critter challenge and the memory game have no rules yet.
    for variant in ("critter-challenge", "critter-memory-game"):
        with pytest.raises(UnknownGameError, match="critter-capture"):
            bestiary.load_game(variant)


def test_everyone_sees_the_corrals_and_nobody_sees_an_unflipped_card() -> None:
    # CRITTERS-41: corral contents are public; CRITTERS-3: a drawn card shows only its colour until flipped.
    game = bestiary.load_game("critter-capture", players=3)
    rng = random.Random(5)
    state = game.new_initial_state(seed=5)
    while not state.is_terminal():
        views = [state.observation(p) for p in (None, 0, 1, 2)]
        for view in views[1:]:
            assert {k: v for k, v in view.items() if k != "viewer"} == \
                {k: v for k, v in views[0].items() if k != "viewer"}
        if state.phase in ("active-choose", "active-flip", "challenge-flip"):
            assert set(views[0]["face_down_card"]) == {"colour", "drawn_by"}
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    final = state.observation(1)
    assert [len(c) for c in final["corrals"]] == [len(c) for c in state.corrals]
    assert final["corrals"][0]
    assert {"id", "name", "colour", "commonness", "size", "ability"} <= set(final["corrals"][0][0])


def test_flips_are_uniform_over_the_cards_left_in_the_chosen_deck() -> None:
    # CRITTERS-38
    game = bestiary.load_game("critter-capture", players=2)
    state = game.new_initial_state(seed=0)
    state.apply_action("draw bird")
    state.apply_action("choose size")
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 12 and all(abs(p - 1 / 12) < 1e-12 for _, p in outcomes)
    assert {str(a).split()[1] for a, _ in outcomes} == {c.id for c in game.cards if c.colour == "bird"}
    with pytest.raises(IllegalActionError, match="not a possible chance outcome"):
        state.apply_action("flip brook-trout")


def test_illegal_actions_name_the_action_and_reason_and_change_nothing() -> None:
    game = bestiary.load_game("critter-capture", players=2)
    state = game.new_initial_state(seed=0)
    before = state.to_json()
    for action, player, reason in [("choose size", 0, "only before the active card is flipped"),
                                   ("draw fish", 1, "may not act now"),
                                   ("flip brook-trout", None, "not legal now"),
                                   ("jump", 0, "no action reads 'jump'"),
                                   (99, 0, "no action has index 99")]:
        with pytest.raises(IllegalActionError) as caught:
            state.apply_action(action, player=player)
        assert reason in str(caught.value) and str(action) in str(caught.value)
        assert state.to_json() == before


def test_the_heuristic_beats_random_play() -> None:
    game = bestiary.load_game("critter-capture", players=2)
    agents = [HeuristicAgent(), RandomAgent()]
    wins = 0.0
    games = 60
    for number in range(games):
        rng = random.Random(number)
        state = game.new_initial_state(seed=number)
        heuristic_seat = number % 2
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            player = state.current_player()
            agent = agents[0] if player == heuristic_seat else agents[1]
            state.apply_action(agent.act(SeatView(state, player), rng), player=player)
        wins += state.returns()[heuristic_seat]
    assert wins / games > 0.6


def test_face_down_corrals_render_counts_only() -> None:
    """CRITTERS-41: by default a person's view shows how many cards a corral holds, not which; option open."""
    for corrals, shown in (("face-down", False), ("open", True)):
        game = bestiary.load_game("critter-capture", players=4, corrals=corrals)
        state = game.new_initial_state()  # no seed: every flip is a chance outcome
        for text in ("draw fish", "choose size", "flip brook-trout", "draw other", "flip common-snapping-turtle"):
            state.apply_action(text)
        corrals_part = game.render(state.observation(2)).split("Corrals")[1]
        assert "P2: 1 card(s)" in corrals_part
        assert ("Brook trout" in corrals_part) is shown
        assert ("commonness" in corrals_part) is shown
