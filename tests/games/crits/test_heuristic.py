"""The heuristic player is clearly better than random play (a small seeded comparison)."""

from __future__ import annotations

import random

import bestiary
from bestiary.agents.base import SeatView, make_agent
from bestiary.core.chance import sample_chance
from bestiary.games.crits.heuristic import Position, card_facts
from tests.heuristic_match import heuristic_against_random


def test_heuristic_beats_random_play() -> None:
    game = bestiary.load_game("crits-creatures")
    results = [heuristic_against_random(game, seed, seed % 2).returns()[seed % 2] for seed in range(10)]
    assert sum(r > 0 for r in results) >= 8



def test_the_heuristic_reads_the_same_position_from_a_state_as_from_the_observation() -> None:
    # Searches' playouts ask the heuristic straight from a state (on_state): it must see only what the seat
    # sees (the other side's Split Second cards off the board stay hidden) and choose exactly as it does from
    # the observation, the generator's draws included.
    checked = 0
    for options in ({}, {"allies_block": False}):
        game = bestiary.load_game("crits-creatures", **options)
        policy = game.heuristic_policy()
        facts = tuple(card_facts(card) for card in game.cards)
        agents = [make_agent("heuristic"), make_agent("random")]
        for seed in range(5):
            state, rng = game.new_initial_state(seed=seed), random.Random(seed)
            for _ in range(300):
                if state.is_terminal():
                    break
                if state.is_chance_node():
                    state.apply_action(sample_chance(state, rng))
                    continue
                player = state.players_to_act()[0]
                legal = state.legal_actions(player)
                for viewer in (0, 1):
                    seen = Position.from_observation(state.observation(viewer), viewer)
                    assert Position.from_state(state, viewer, facts) == seen
                draws = rng.getrandbits(32)
                chosen = policy.on_state(state, legal, player, random.Random(draws))
                assert chosen is policy(state.observation(player), legal, player, random.Random(draws))
                ranked = policy.rank_on_state(state, legal, player, random.Random(draws))
                assert ranked[0] is chosen and sorted(map(str, ranked)) == sorted(map(str, legal))
                checked += 1
                state.apply_action(agents[player].act(SeatView(state, player), rng), player=player)
    assert checked > 400
