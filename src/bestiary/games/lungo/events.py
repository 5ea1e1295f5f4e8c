"""What Creatures of Lungo writes into the event log, one function per entry.

The rules log an entry with `state._log_later(entry, *values)`; its text is written only when someone reads
the log, so the values passed are ones that never change (seats, card indices, numbers, tuples, the game).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestiary.core.api import Event

if TYPE_CHECKING:
    from bestiary.games.lungo.game import CreaturesOfLungo


def seat(player: int) -> str:
    return f"P{player + 1}"


def names(game: CreaturesOfLungo, cards: tuple[int, ...], between: str) -> str:
    return between.join(game.names[c] for c in cards)


# -- setup, drawing and turns ---------------------------------------------------------------------
def goal_dealt(player: int) -> Event:
    return Event("goal", f"{seat(player)} is dealt a secret goal.", None, {"player": player}, rules=("LUNGO-22",))


def goal_shown(game: CreaturesOfLungo, player: int, goal: int) -> Event:
    return Event("goal-private", f"Your secret goal: {game.goal_cards[goal].name}.", (player,),
                 {"player": player, "card": game.goal_cards[goal].id, "exposure": "goal"},
                 rules=("LUNGO-22", "LUNGO-26"))


def pile_refilled() -> Event:
    return Event("refill", "The discard pile becomes the new draw pile.", rules=("LUNGO-58",))


def battle_on_top() -> Event:
    return Event("battle-on-top", "A battle card is on top of the draw pile: battle mode is coming up!",
                 rules=("LUNGO-12",))


def battle_shuffled_back(game: CreaturesOfLungo, player: int, card: int, rules: tuple[str, ...]) -> Event:
    return Event("battle-back", f"{seat(player)} draws {game.names[card]}, a battle card, and shuffles it back.",
                 None, {"player": player}, rules=rules)


def slimed(player: int, rules: tuple[str, ...]) -> Event:
    return Event("slime", f"{seat(player)} draws Toxic Slime: it goes face up in front of them.", None,
                 {"player": player}, rules=rules)


def drew(player: int, rules: tuple[str, ...]) -> Event:
    return Event("draw", f"{seat(player)} draws a card.", None, {"player": player}, rules=rules)


def drew_privately(game: CreaturesOfLungo, player: int, card: int, rules: tuple[str, ...], exposure: str) -> Event:
    """`exposure`: "dealt" for the opening hand, "drawn" afterwards (for the analysis's card effects)."""
    return Event("draw-private", f"You draw {game.names[card]}.", (player,),
                 {"player": player, "card": game.ids[card], "exposure": exposure}, rules=rules)


def stole(player: int, victim: int) -> Event:
    return Event("steal", f"{seat(player)} takes a random card from {seat(victim)}.", None,
                 {"player": player, "victim": victim}, rules=("LUNGO-63",))


def stole_privately(game: CreaturesOfLungo, player: int, victim: int, card: int) -> Event:
    return Event("steal-private", f"{seat(player)} takes {game.names[card]} from {seat(victim)}.", (player, victim),
                 {"card": game.ids[card]}, rules=("LUNGO-63",))


def discarded_at_random(game: CreaturesOfLungo, player: int, card: int) -> Event:
    return Event("discard", f"{seat(player)} discards {game.names[card]} at random.", None,
                 {"player": player, "card": game.ids[card]}, rules=("LUNGO-63",))


def rolled(player: int, pips: int) -> Event:
    return Event("roll", f"{seat(player)} rolls {pips}.", None, {"player": player, "pips": pips}, rules=("LUNGO-18",))


def turn_limit(limit: int) -> Event:
    return Event("limit", f"The turn limit ({limit}) is reached: nobody wins.", None, {"ending": "turn limit"},
                 rules=("LUNGO-59",))


def turn_started(turn: int, player: int) -> Event:
    return Event("turn", f"Turn {turn}: {seat(player)} to play.", None, {"player": player}, rules=("LUNGO-30",))


def ended_turn(player: int) -> Event:
    return Event("end-turn", f"{seat(player)} ends their turn.", None, {"player": player}, rules=("LUNGO-33",))


# -- playing cards --------------------------------------------------------------------------------
def played(game: CreaturesOfLungo, player: int, card: int) -> Event:
    return Event("play", f"{seat(player)} plays {game.names[card]}.", None, {"player": player, "card": game.ids[card]},
                 rules=("LUNGO-28",) if game.kinds[card] == "poison" else ("LUNGO-31",))


def aimed(game: CreaturesOfLungo, player: int, card: int, target: int) -> Event:
    return Event("target", f"{seat(player)} aims {game.names[card]} at {seat(target)}.", None,
                 {"player": player, "target": target},
                 rules=("LUNGO-28",) if game.kinds[card] == "poison" else ("LUNGO-63",))


def responded(game: CreaturesOfLungo, player: int, card: int) -> Event:
    return Event("respond", f"{seat(player)} answers with {game.names[card]}.", None,
                 {"player": player, "card": game.ids[card]}, rules=("LUNGO-72",))


def no_response(player: int) -> Event:
    return Event("no-response", f"{seat(player)} lets it happen.", None, {"player": player}, rules=("LUNGO-72",))


def poisoned(player: int) -> Event:
    return Event("poisoned", f"{seat(player)} is poisoned.", None, {"player": player}, rules=("LUNGO-28", "LUNGO-15"))


def swapped_hands(player: int, target: int) -> Event:
    return Event("swap", f"{seat(player)} and {seat(target)} swap hands, poison and slime included.",
                 rules=("LUNGO-63", "LUNGO-17"))


def affliction_passed(game: CreaturesOfLungo, player: int, card: int, target: int) -> Event:
    return Event("pass-affliction", f"{seat(player)} moves {game.names[card]} to {seat(target)}.",
                 rules=("LUNGO-63", "LUNGO-15"))


def cleansed(game: CreaturesOfLungo, player: int, removed: tuple[int, ...]) -> Event:
    return Event("cleanse", f"{seat(player)} removes {names(game, removed, ', ')}.", rules=("LUNGO-17",))


def cancelled(game: CreaturesOfLungo, card: int) -> Event:
    return Event("cancel", f"{game.names[card]} has no effect.", rules=("LUNGO-63", "LUNGO-72"))


# -- battles --------------------------------------------------------------------------------------
def battle_revealed(game: CreaturesOfLungo, drawer: int, card: int) -> Event:
    return Event("battle", f"{seat(drawer)} reveals a battle card: {game.names[card]}! {game.cards[card].text}",
                 None, {"player": drawer, "card": game.ids[card]}, rules=("LUNGO-35", "LUNGO-37"))


def no_battle() -> Event:
    return Event("no-battle", "Nobody holds a card: the battle is called off.", rules=("LUNGO-65",))


def committed(player: int) -> Event:
    return Event("commit", f"{seat(player)} puts a card face down.", None, {"player": player},
                 rules=("LUNGO-39", "LUNGO-41"))


def committed_privately(game: CreaturesOfLungo, player: int, card: int) -> Event:
    return Event("commit-private", f"You put down {game.names[card]}.", (player,), {"player": player},
                 rules=("LUNGO-39", "LUNGO-41"))


def boosted(player: int) -> Event:
    return Event("boost", f"{seat(player)} adds a second card face down.", None, {"player": player},
                 rules=("LUNGO-40", "LUNGO-70"))


def boosted_privately(game: CreaturesOfLungo, player: int, card: int) -> Event:
    return Event("boost-private", f"You add {game.names[card]}.", (player,), {"player": player},
                 rules=("LUNGO-40", "LUNGO-70"))


def revealed(game: CreaturesOfLungo, player: int, cards: tuple[int, ...], power: int) -> Event:
    return Event("reveal", f"{seat(player)} reveals {names(game, cards, ' + ')} (power {power}).", None,
                 {"player": player, "cards": [game.ids[c] for c in cards]}, rules=("LUNGO-42",))


def cage_to_drawer(drawer: int) -> Event:
    return Event("cage", f"Nobody played a creature: {seat(drawer)} takes the winnings.", rules=("LUNGO-48",))


def roll_off_won(winner: int) -> Event:
    return Event("tie-won", f"{seat(winner)} wins the roll-off.", None, {"player": winner},
                 rules=("LUNGO-46", "LUNGO-69"))


def tied(champion: int, challenger: int) -> Event:
    return Event("tie", f"{seat(champion)} and {seat(challenger)} tie: they roll the die.", rules=("LUNGO-46",))


def pairing(winner: int, loser: int) -> Event:
    return Event("pairing", f"{seat(winner)} beats {seat(loser)}.", None, {"winner": winner, "loser": loser},
                 rules=("LUNGO-43", "LUNGO-44", "LUNGO-45"))


def battle_won(game: CreaturesOfLungo, winner: int, battle: int, rules: tuple[str, ...]) -> Event:
    return Event("battle-won", f"{seat(winner)} wins {game.names[battle]}.", None, {"player": winner}, rules=rules)


def dice_tie(tied: tuple[int, ...], best: int) -> Event:
    return Event("dice-tie", f"{', '.join(seat(p) for p in tied)} tie on {best} and roll again.",
                 rules=("LUNGO-68", "LUNGO-69"))


def battle_lost(game: CreaturesOfLungo, loser: int, battle: int) -> Event:
    return Event("battle-lost", f"{seat(loser)} rolls lowest in {game.names[battle]}.", None, {"player": loser},
                 rules=("LUNGO-50",))


def swat_card(game: CreaturesOfLungo, player: int, card: int) -> Event:
    insect = " - an insect!" if game.is_insect[card] else ""
    return Event("swat-card", f"{seat(player)} turns up {game.names[card]}{insect}", None,
                 {"player": player, "card": game.ids[card]}, rules=("LUNGO-51", "LUNGO-53"))


def swat_over() -> Event:
    return Event("swat-over", "No more cards can be turned up: the central pile is discarded.", rules=("LUNGO-67",))


def swatted_insect(player: int) -> Event:
    return Event("swat", f"{seat(player)} swats the insect first!", None, {"player": player},
                 rules=("LUNGO-53", "LUNGO-54"))


def wrong_swat(game: CreaturesOfLungo, player: int, card: int, hand_size: int) -> Event:
    return Event("wrong-swat", f"{seat(player)} swats {game.names[card]}, no insect: their {hand_size} card(s) go "
                 "under the pile.", None, {"player": player}, rules=("LUNGO-55",))


def wrong_swat_out(game: CreaturesOfLungo, player: int, card: int) -> Event:
    return Event("wrong-swat", f"{seat(player)} swats {game.names[card]}, no insect, with no hand: out of this "
                 "battle.", None, {"player": player}, rules=("LUNGO-55",))


def took_played(game: CreaturesOfLungo, winner: int, taken: tuple[int, ...]) -> Event:
    return Event("winnings", f"{seat(winner)} takes {names(game, taken, ', ')}.", rules=("LUNGO-47", "LUNGO-73"))


def winnings_drawn(winner: int, count: int) -> Event:
    return Event("winnings", f"{seat(winner)} draws {count} card(s).", rules=("LUNGO-73",))


def lost_random(loser: int, count: int) -> Event:
    return Event("penalty", f"{seat(loser)} loses {count} random card(s).", rules=("LUNGO-73",))


def took_pile(winner: int, count: int) -> Event:
    return Event("winnings", f"{seat(winner)} takes the central pile ({count} card(s)).",
                 rules=("LUNGO-53", "LUNGO-67"))


# -- goals and tokens -----------------------------------------------------------------------------
def first_token(player: int) -> Event:
    return Event("token", f"{seat(player)} meets their goal and takes a token! Race for the rest!", None,
                 {"player": player}, rules=("LUNGO-21", "LUNGO-56", "LUNGO-57"))


def discreet_token(player: int) -> Event:
    return Event("token", f"{seat(player)} meets their goal and takes a token, discreetly: nobody has noticed "
                 "yet.", (player,), {"player": player}, rules=("LUNGO-56", "LUNGO-57"))


def noticed_token(noticer: int, taker: int) -> Event:
    who = "Everyone sees" if noticer < 0 else f"{seat(noticer)} notices"
    return Event("token", f"{who} that a token is missing: {seat(taker)} took it! Race for the rest!", None,
                 {"player": taker}, rules=("LUNGO-57",))


def grabbed_token(player: int) -> Event:
    return Event("token", f"{seat(player)} grabs a token.", None, {"player": player}, rules=("LUNGO-57", "LUNGO-60"))


def left_without_token(loser: int) -> Event:
    return Event("loser", f"{seat(loser)} is left without a token: the loser.", None, {"player": loser},
                 rules=("LUNGO-60",))
