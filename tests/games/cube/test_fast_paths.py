"""The per-card tables and quick tests the engine keeps for speed agree with the cards and rules they stand for."""

from __future__ import annotations

import pytest

import bestiary
from bestiary.games.cube import effects
from bestiary.games.cube.actions import Play
from bestiary.games.cube.game import CubeCreatures
from tests.random_play import states_along_random_games

from .helpers import position


@pytest.fixture(params=[False, True], ids=["standard", "grandma"])
def game(request: pytest.FixtureRequest) -> CubeCreatures:
    loaded = bestiary.load_game("cube-creatures", players=3, grandma=request.param)
    assert isinstance(loaded, CubeCreatures)
    return loaded


def test_per_card_tables_follow_the_cards(game: CubeCreatures) -> None:
    """CUBE-19: each card's table entry is the part its type takes in the main phase, and only that."""
    for index, card in enumerate(game.cards):
        play = game.creature_plays[index]
        assert (play is not None) == (card.type == "creature")
        if play is not None:
            assert isinstance(play, Play) and play.card == card.id
        action = game.action_plays[index]
        assert (action is not None) == (card.type == "action")
        if action is not None:
            assert action[0].card == card.id
        attach = game.upgrade_attaches[index]
        assert (attach is not None) == (card.type == "upgrade")
        if attach is not None:
            assert attach[1] == (card.kind == "weapon")
            assert {a.card for a in attach[0]} == {card.id}
        # CUBE-51: what a reaction answers, and its effect's keyword and target
        assert game.trigger[index] == card.responds_to
        if card.type == "reaction":
            assert card.effect is not None
            assert game.reaction_effects[index] == (card.effect.keyword, card.effect.params.get("target"))
        else:
            assert index not in game.reaction_effects
        # CUBE-50: Grandma's Rules drop every creature power
        assert (game.power_tests[index] is None) == (game.options.grandma or card.power_effect is None)


def test_quick_playable_tests_agree_with_listing_the_candidates(game: CubeCreatures) -> None:
    """CUBE-58: the quick test of an effect with a chosen target says yes exactly when there is a target."""
    chosen = [card.effect for card in game.cards if card.effect is not None and effects.needs_choice(card.effect)]
    chosen += [card.power_effect for card in game.cards
               if card.power_effect is not None and effects.needs_choice(card.power_effect)]
    assert chosen
    checked = 0
    for state in states_along_random_games(game, 3)[::5]:
        for player in range(game.num_players):
            for effect in chosen:
                assert effect is not None
                quick = effects.playable_test(effect)(state, player)
                assert quick == bool(effects.candidates(state, player, effect)), (effect, state.to_json())
                checked += quick
    assert checked  # the states reached include positions where targets exist


def test_a_full_battlefield_lists_no_creature_play() -> None:
    """CUBE-22, CUBE-23: a creature is played only while the battlefield has a free spot."""
    hand = [["cube-ant", "dust-bunny"], []]
    full = position(battlefields=[["thunder-cube", "cubic-crab", "moss-cube"], ["anvil-tortoise"]], hands=hand,
                    limits=[3, 3])
    room = position(battlefields=[["thunder-cube", "cubic-crab"], ["anvil-tortoise"]], hands=hand, limits=[3, 3])
    assert not [a for a in full.legal_actions(0) if isinstance(a, Play)]
    assert {a.card for a in room.legal_actions(0) if isinstance(a, Play)} == {"cube-ant", "dust-bunny"}
