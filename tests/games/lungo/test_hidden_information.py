"""What each player sees of the draw pile, the top card's back but never the card, and what determinize keeps
(LUNGO-12, LUNGO-56, LUNGO-58, LUNGO-75)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text

import bestiary
from bestiary.core.api import CHANCE
from bestiary.core.conformance import random_step
from bestiary.games.lungo import phases, rules
from bestiary.games.lungo.state import LungoState


def draws_after_a_back(state: LungoState) -> list[int] | None:
    """The cards a draw due now may take, when a back is shown; else None."""
    jobs = state.jobs
    if not jobs or state.top == phases.UNSEEN:
        return None
    kind, player, _ = jobs[0]
    if kind in phases.DRAW_JOBS or (kind == phases.SWAT and not state.hands[player]):
        return [state.game.index_of[str(a)[5:]] for a, _ in state.chance_outcomes()]
    return None


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 4))
def test_the_top_cards_back_is_public_and_true_and_determinize_keeps_it(seed: int, players: int) -> None:
    """Along a random game: a drawn card always has the back that was shown; every seat and a spectator see
    the same back; determinize keeps it, with a pile that holds a card behind it; and the card behind it is
    never named in anyone's observation."""
    game = bestiary.load_game("creatures-of-lungo", players=players, turn_limit=30)
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    shown_backs = 0
    while not state.is_terminal():
        views = [state.observation(viewer) for viewer in [*range(players), None]]
        assert len({view["battle_on_top"] for view in views}) == 1
        if state.top != phases.UNSEEN:
            shown_backs += 1
            assert views[0]["battle_on_top"] == (state.top == phases.BATTLE)
            assert any(game.is_battle[c] == state.top for c in state.pile)
        drawable = draws_after_a_back(state)
        if drawable is not None:
            assert drawable and all(game.is_battle[c] == state.top for c in drawable)
        viewer = rng.randrange(players)
        sample = state.determinize(viewer, random.Random(seed))
        assert sample.observation(viewer) == views[viewer]
        assert sample.top == state.top
        assert sorted(game.is_battle[c] for c in sample.pile) == sorted(game.is_battle[c] for c in state.pile)
        assert all(not game.is_battle[c] for p in range(players) for c in sample.hands[p])
        # LUNGO-56: whether another seat was offered a grab would tell whether its goal is met
        assert all(sample.offered[p] == rules.may_take_token(sample, p) for p in range(players) if p != viewer)
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    assert shown_backs > 0


def test_the_back_is_drawn_at_the_piles_odds() -> None:
    """LUNGO-12, LUNGO-58: the back's odds are the pile's share of battle cards, so that a draw is still any
    card of the pile, each as likely as a shuffled deck would make it."""
    game = bestiary.load_game("creatures-of-lungo", players=2)
    state = game.new_initial_state(seed=1)
    for _ in range(2):
        state.apply_action(state.chance_outcomes()[0][0])  # the goals
    odds = {str(action): p for action, p in state.chance_outcomes()}
    battles = sum(game.is_battle)
    assert odds == {"top other": 1 - battles / len(game.cards), "top battle": battles / len(game.cards)}
    state.apply_action("top battle")
    draws = state.chance_outcomes()
    assert len(draws) == battles and all(p == 1 / battles for _, p in draws)


def test_an_unseen_card_swapped_with_a_hand_changes_nothing_but_a_battle_card_would() -> None:
    """LUNGO-75: P1 cannot tell P2's cards from the pile's of the same back; the back itself is seen."""
    game = bestiary.load_game("creatures-of-lungo", players=2)
    state = game.new_initial_state(seed=5)
    while state.is_chance_node() or state.phase != phases.PLAY:
        player, action = random_step(state, random.Random(5))
        state.apply_action(action, player=None if player == CHANCE else player)
    if state.top == phases.UNSEEN:
        state.apply_action("top other")
    before = state.observation(0)
    other = state.clone()
    plain = next(c for c in other.pile if not game.is_battle[c])
    other.pile.remove(plain)
    other.pile.append(other.hands[1].pop())
    other.pile.sort()
    other.hands[1].append(plain)
    assert other.observation(0) == before
    flipped = state.clone()
    flipped.top = phases.BATTLE if state.top == phases.OTHER else phases.OTHER
    assert flipped.observation(0) != before
    battle_on_top = state if state.top == phases.BATTLE else flipped
    screens = [Text.from_markup(game.render(s.observation(0))).plain for s in (battle_on_top, state, flipped)]
    assert "a battle card is on top" in screens[0]  # LUNGO-12: the terminal says it
    assert sum("a battle card is on top" in screen for screen in screens) == 2
