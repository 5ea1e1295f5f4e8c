"""Ground truth for the card effects: on decks whose cards make no difference nothing is flagged beyond the
stated error rate, and a card planted strong or weak is found (its effect by random exposure).

Sizes are small for CI; docs/balance.md gives the same checks at full size."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from bestiary.analysis.backends import simulate
from bestiary.analysis.simulate import SimulationSpec
from bestiary.analysis.summary import IN_HAND, GroupSummary, summarise
from bestiary.analysis.sweep import to_toml


def shipped_deck(game: str) -> dict:
    path = Path(__file__).parents[2] / "src/bestiary/games" / {"critter-capture": "critters",
                                                              "cube-creatures": "cube"}[game] / "cards"
    return tomllib.loads(next(path.glob("*.toml")).read_text(encoding="utf-8"))


def twin_critter_deck(strong: str | None = None, weak: str | None = None) -> str:
    """Every card 5/5 and blocking its own colour: the four colours play alike and the cards of one colour
    are twins, so no card makes a difference; then `strong` becomes 7/7 and `weak` 3/3."""
    deck = shipped_deck("critter-capture")
    for card in deck["cards"]:
        card.update(commonness=5, size=5, ability=f"block {card['colour']}")
        if card["id"] == strong:
            card.update(commonness=7, size=7)
        if card["id"] == weak:
            card.update(commonness=3, size=3)
    return to_toml(deck)


def cube_deck(strong: str, weak: str) -> str:
    deck = shipped_deck("cube-creatures")
    for card in deck["cards"]:
        if card["id"] == strong:
            card.update(attack=12, health=20)
        if card["id"] == weak:
            card.update(attack=0, health=1)
    return to_toml(deck)


def headline(game: str, players: int, agent: str, games: int, seed: int, cards: str | None = None) -> GroupSummary:
    spec = SimulationSpec(game, {"players": players}, (agent,), seed, cards)
    return summarise(simulate(spec, games))[players]


def ranks(group: GroupSummary) -> dict[str, tuple[int, bool]]:
    return {e.card: (rank, e.flagged) for rank, e in enumerate(group.headline_effects(), start=1)}


@pytest.fixture(scope="module")
def planted_critters() -> GroupSummary:
    return headline("critter-capture", 2, "heuristic", 400, 5, twin_critter_deck("brook-trout", "bluegill"))


def test_critter_twins_flag_nothing_but_the_planted_cards(planted_critters):
    effects = planted_critters.headline_effects()
    assert planted_critters.headline_exposure() == "drawn" and len(effects) == 48
    found = ranks(planted_critters)
    assert found["brook-trout"] == (1, True)
    assert found["bluegill"] == (48, True)
    false_discoveries = [e.card for e in effects if e.flagged and e.card not in ("brook-trout", "bluegill")]
    assert len(false_discoveries) <= 1, false_discoveries  # 46 twins: under 5 % chance of any at all


def test_cube_planted_strong_and_weak_creatures_are_found():
    group = headline("cube-creatures", 2, "random", 700, 3, cube_deck("dicey-boar", "square-toad"))
    assert group.headline_exposure() == IN_HAND
    found = ranks(group)
    assert found["dicey-boar"] == (1, True)
    assert found["square-toad"][0] >= 55 and found["square-toad"][1]


def test_cube_unmodified_deck_one_agent_drifts_only_where_played_cards_mislead():
    # the shipped cards differ on purpose, so a flag here may be real (docs/balance.md): false discoveries are
    # checked on the twin deck above; what this deck checks is the bias of counting what seats played
    group = headline("cube-creatures", 2, "heuristic", 250, 8)
    effects = group.headline_effects()
    assert len(effects) == 60
    assert abs(sum(e.difference for e in effects) / len(effects)) < 0.01  # no drift: a drawn card is a coin flip
    played = group.card_effects("creature")  # what a seat chose: losing seats play more creatures
    assert not played[0].random and sum(e.difference for e in played) / len(played) < -0.02
