"""Property tests over random legal play of critter capture: cards are conserved, the result is sound."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import bestiary


@settings(max_examples=30, deadline=None)
@given(data=st.data(), players=st.sampled_from([2, 3, 4, 6]), rechoose=st.booleans())
def test_cards_are_conserved_and_the_best_score_wins(data: st.DataObject, players: int, rechoose: bool) -> None:
    game = bestiary.load_game("critter-capture", players=players, rechoose_on_takeover=rechoose,
                              first_player="random")
    state = game.new_initial_state(seed=0)
    corral_sizes = [0] * players
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(data.draw(st.sampled_from([a for a, _ in state.chance_outcomes()])))
        else:
            player = state.current_player()
            state.apply_action(data.draw(st.sampled_from(state.legal_actions(player))), player=player)
        places = [c for deck in state.decks for c in deck] + state.stack + [c for k in state.corrals for c in k]
        assert sorted(places) == list(range(48))  # every card in exactly one place
        sizes = [len(c) for c in state.corrals]
        assert all(now >= before for now, before in zip(sizes, corral_sizes, strict=True))  # corrals only grow
        corral_sizes = sizes
        assert state.plays <= players and 0 <= state.round <= state.rounds
    assert sum(state.returns()) == 1.0
    best = max(state.scores)
    assert all((r > 0) == (s == best) for r, s in zip(state.returns(), state.scores, strict=True))
    assert state.scores == [sum(game.values[c][state.final_attribute] for c in k) for k in state.corrals]
