"""Hands stay hidden: what each player's observation holds, and determinize's resampling."""

from __future__ import annotations

import json
import random

import bestiary
from bestiary.core.api import CHANCE
from bestiary.core.conformance import random_step
from tests.games.cube.helpers import position


def test_no_observation_names_a_card_its_player_cannot_see() -> None:
    # CUBE-60: other hands and the deck never appear; CUBE-13: deck size and discard pile are public.
    game = bestiary.load_game("cube-creatures", players=3)
    rng = random.Random(4)
    state = game.new_initial_state(seed=4)
    while not state.is_terminal():
        for viewer in range(3):
            seen = json.dumps(state.observation(viewer))
            unseen = state.deck + [c for p in range(3) if p != viewer for c in state.hands[p]]
            assert not [game.ids[c] for c in unseen if f'"{game.ids[c]}"' in seen]
            observation = state.observation(viewer)
            assert observation["deck"] == len(state.deck)
            assert observation["hand_sizes"] == [len(h) for h in state.hands]
            assert [c["id"] for c in observation["discard"]] == [game.ids[c] for c in state.discard]
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)


def test_swapping_hidden_cards_changes_nothing_a_player_sees() -> None:
    # CUBE-60
    state = position(hands=[["zap-bolt"], ["brace", "lure"]], deck=["pixel-owl", "rewind", "cube-ant"],
                     battlefields=[["thunder-cube"], ["anvil-tortoise"]])
    before = state.observation(0)
    other = position(hands=[["zap-bolt"], ["rewind", "cube-ant"]], deck=["lure", "brace", "pixel-owl"],
                     battlefields=[["thunder-cube"], ["anvil-tortoise"]])
    assert other.observation(0) == before
    assert other.observation(1) != state.observation(1)


def test_a_draw_is_seen_by_its_drawer_only() -> None:
    # CUBE-21, CUBE-60
    state = position(deck=["pixel-owl", "lure"], battlefields=[["thunder-cube"], ["anvil-tortoise"]])
    state.apply_action("attack P2 guard with guard")
    state.apply_action("roll miss")
    assert any("drew Pixel Owl" in e.text for e in state.events(1))
    assert not any("Pixel Owl" in e.text for e in state.events(0) + state.events(None))


def test_a_window_open_to_every_card_holder_tells_nothing_to_determinize() -> None:
    # CUBE-51, CUBE-60: the window is open to P2 because P2 holds cards, so a sample need not hold a reaction.
    state = position(hands=[["zap-bolt"], ["brace", "lure", "rewind"]],
                     deck=["pixel-owl", "cube-ant", "patch-up", "rally-cry", "group-hug", "double-draw"],
                     battlefields=[["thunder-cube"], ["anvil-tortoise"]])
    state.apply_action("attack P2 guard with guard")
    assert state.players_to_act() == [1]
    with_brace = [("brace" in [state.game.ids[c] for c in state.determinize(0, random.Random(seed)).hands[1]])
                  for seed in range(30)]
    assert any(with_brace) and not all(with_brace)


def test_determinize_keeps_sizes_and_an_answer_for_everyone_asked() -> None:
    # CUBE-51, CUBE-60 (option response_windows="answerers"): the window shows that P2 holds a reaction to an
    # attack; a sample must agree.
    state = position(options={"response_windows": "answerers"}, hands=[["zap-bolt"], ["brace", "lure", "rewind"]],
                     deck=["pixel-owl", "cube-ant", "patch-up", "rally-cry", "group-hug", "double-draw"],
                     battlefields=[["thunder-cube"], ["anvil-tortoise"]])
    state.apply_action("attack P2 guard with guard")
    assert state.players_to_act() == [1]
    hands_seen = set()
    for seed in range(30):
        sample = state.determinize(0, random.Random(seed))
        assert sample.observation(0) == state.observation(0)
        assert sample.hands[0] == state.hands[0] and len(sample.hands[1]) == 3
        assert "brace" in [sample.game.ids[c] for c in sample.hands[1]]
        hands_seen.add(tuple(sorted(sample.hands[1])))
    assert len(hands_seen) > 3  # the rest of the hand really is resampled


def test_determinize_finds_an_answer_even_when_one_card_in_many_fits() -> None:
    # CUBE-51, CUBE-60: P2's one card must be the one attack reaction among 40 unseen cards.
    deck = ["pixel-owl", "cube-ant", "patch-up", "rally-cry", "group-hug", "double-draw", "lure", "rewind",
            "zap-bolt", "cube-quake", "rust-storm", "sneak-attack", "foam-hammer", "spiked-die", "laser-corner",
            "pixel-sword", "cardboard-axe", "bubble-wrap", "pillow-fort", "tin-helmet", "cork-shield", "brick-vest",
            "not-so-fast", "power-outage", "dust-bunny", "gravel-goat", "box-jelly", "moss-cube", "hex-hound",
            "jelly-block", "cinder-cube", "quartz-yak", "loaf-lizard", "sponge-snail", "static-squid", "tumble-cat",
            "mossy-ram", "lantern-newt", "ribbon-eel"]
    state = position(options={"response_windows": "answerers"}, hands=[["dodge-roll"], ["brace"]], deck=deck,
                     battlefields=[["thunder-cube"], ["anvil-tortoise"]])
    state.apply_action("attack P2 guard with guard")
    for seed in range(40):
        sample = state.determinize(0, random.Random(seed))
        assert [sample.game.ids[c] for c in sample.hands[1]] == ["brace"]
        assert sample.hands[0] == state.hands[0]
        assert sample.observation(0) == state.observation(0)
