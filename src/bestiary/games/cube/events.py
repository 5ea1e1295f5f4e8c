"""What Cube Creatures writes into the event log, one function per entry, and the names it gives seats and spots.

The rules log an entry with `state._log_later(entry, *values)`; its text is written only when someone reads
the log, so the values passed are ones that never change (seats, card indices, numbers, tuples, the game).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestiary.core.api import Event

if TYPE_CHECKING:
    from bestiary.games.cube.game import CubeCreatures

# CUBE-40.1 to CUBE-40.6: the rule of each face of the attack die
FACE_RULES = {"+2": "CUBE-40.1", "+1": "CUBE-40.2", "-1": "CUBE-40.3", "-2": "CUBE-40.4", "2x": "CUBE-40.5",
              "miss": "CUBE-40.6"}


def seat(player: int) -> str:
    return f"P{player + 1}"


def spot_name(spot: int) -> str:
    # CUBE-12: the first spot is the Guard position.
    return "guard" if spot == 0 else f"spot {spot + 1}"


def winners_text(winners: tuple[int, ...]) -> str:
    return f"{' and '.join(seat(p) for p in winners)} win{'s' if len(winners) == 1 else ''}"


# -- setup and turns ------------------------------------------------------------------------------
def went_first(player: int) -> Event:
    return Event("first", f"{seat(player)} goes first.", None, {"player": player}, rules=("CUBE-17",))


def mulligan(player: int) -> Event:
    return Event("mulligan", f"{seat(player)} had fewer than 2 creatures, shuffles the hand back and redraws.",
                 None, {"player": player}, rules=("CUBE-18",))


def reshuffled(deck_size: int) -> Event:
    return Event("reshuffle", f"The deck is empty: the discard pile is shuffled into a new deck of {deck_size} "
                 "card(s).", rules=("CUBE-52",))


def heading(turn: int) -> str:
    """The start of the public line of a turn's own draw (turn 0: a draw by a card)."""
    return f"Turn {turn}: " if turn else ""


def drew(turn: int, player: int) -> Event:
    data = {"player": player, "turn": turn} if turn else {"player": player}  # a turn's own draw starts it
    return Event("draw", f"{heading(turn)}{seat(player)} draws a card.", None, data,
                 rules=("CUBE-19", "CUBE-21") if turn else ("CUBE-59",))


def drew_privately(game: CubeCreatures, player: int, card: int, turn: int) -> Event:
    return Event("draw-private", f"{seat(player)} drew {game.cards[card].name}.", (player,),
                 {"player": player, "card": game.ids[card], "exposure": "drawn"},
                 rules=("CUBE-21",) if turn else ("CUBE-59",))


def dealt_privately(game: CubeCreatures, player: int, hand: tuple[int, ...], redrawn: bool) -> Event:
    names = ", ".join(game.cards[card].name for card in hand)
    return Event("deal-private", f"{seat(player)} is dealt {names}.", (player,),
                 {"player": player, "cards": [game.ids[card] for card in hand], "exposure": "dealt"},
                 rules=("CUBE-15", "CUBE-18") if redrawn else ("CUBE-15",))


def cannot_draw(turn: int, player: int) -> Event:
    return Event("draw", f"{heading(turn)}{seat(player)} cannot draw: the deck and the discard pile are empty.",
                 None, {"player": player}, rules=("CUBE-21", "CUBE-52"))


def refilled(game: CubeCreatures, player: int, found: int, shuffled_back: int) -> Event:
    return Event("refill", f"{seat(player)} has an empty battlefield and no creature in hand: draws until "
                 f"{game.cards[found].name} comes and shuffles {shuffled_back} other card(s) back into the deck.",
                 None, {"player": player, "card": game.ids[found], "shuffled_back": shuffled_back, "exposure": "drawn"},
                 rules=("CUBE-25",))


def knocked_out(player: int) -> Event:
    return Event("out", f"{seat(player)} has no creatures left anywhere and is out of the game.", None,
                 {"player": player}, rules=("CUBE-54",))


def ended_turn(player: int) -> Event:
    return Event("end-turn", f"{seat(player)} cannot attack and ends the turn.", None, {"player": player},
                 rules=("CUBE-55",))


def game_over(reason: str, winners: tuple[int, ...], rules: tuple[str, ...], ending: str) -> Event:
    """`ending`: "turn limit" where the limit ended the game, else "decided" (for the analysis)."""
    return Event("end", f"Game over: {reason}. {winners_text(winners)}.", None,
                 {"winners": list(winners), "ending": ending}, rules=rules)


# -- the main phase -------------------------------------------------------------------------------
def played_creature(game: CubeCreatures, player: int, creature: int, spot: int, rules: tuple[str, ...]) -> Event:
    return Event("creature", f"{seat(player)} plays {game.cards[creature].name} ({spot_name(spot)}, "
                 f"attack {game.attack[creature]}, health {game.health[creature]}).", None,
                 {"player": player, "card": game.ids[creature], "spot": spot}, rules=rules)


def attached(game: CubeCreatures, player: int, upgrade: int, creature: int, what: str) -> Event:
    return Event("upgrade", f"{seat(player)} attaches {game.cards[upgrade].name} (+{game.bonus[upgrade]} {what}) "
                 f"to {game.cards[creature].name}.", None,
                 {"player": player, "card": game.ids[upgrade], "creature": game.ids[creature]}, rules=("CUBE-27",))


def new_guard(game: CubeCreatures, player: int, guard: int) -> Event:
    return Event("guard", f"{seat(player)} makes {game.cards[guard].name} the Guard.", None,
                 {"player": player, "card": game.ids[guard]}, rules=("CUBE-34",))


def played_action(game: CubeCreatures, player: int, card: int) -> Event:
    return Event("action", f"{seat(player)} plays {game.cards[card].name}: {game.cards[card].text}", None,
                 {"player": player, "card": game.ids[card]}, rules=("CUBE-26",))


def used_power(game: CubeCreatures, player: int, creature: int) -> Event:
    return Event("power", f"{seat(player)} uses {game.cards[creature].name}'s power: {game.cards[creature].power}",
                 None, {"player": player, "card": game.ids[creature]}, rules=("CUBE-30", "CUBE-33"))


def targeted(game: CubeCreatures, player: int, owner: int, target: int) -> Event:
    return Event("target", f"{seat(player)} targets {seat(owner)}'s {game.cards[target].name}.", None,
                 {"player": player, "card": game.ids[target]}, rules=("CUBE-59",))


# -- response windows -----------------------------------------------------------------------------
def reacted(game: CubeCreatures, player: int, card: int) -> Event:
    return Event("reaction", f"{seat(player)} reacts with {game.cards[card].name}: {game.cards[card].text}", None,
                 {"player": player, "card": game.ids[card]}, rules=("CUBE-47",))


def passed(player: int) -> Event:
    return Event("pass", f"{seat(player)} passes.", None, {"player": player}, rules=("CUBE-51",))


# -- the attack -----------------------------------------------------------------------------------
def attacked(game: CubeCreatures, player: int, attacker: int, points: int, target_player: int, defender: int,
             health: int) -> Event:
    return Event("attack", f"{seat(player)}'s {game.cards[attacker].name} (attack {points}) attacks "
                 f"{seat(target_player)}'s {game.cards[defender].name} (health {health}).", None,
                 {"player": player, "attacker": game.ids[attacker], "defender": game.ids[defender]},
                 rules=("CUBE-37", "CUBE-35"))


def attack_off() -> Event:
    return Event("attack", "The attack is off: a creature in it has been defeated.", rules=("CUBE-51",))


def rolled(game: CubeCreatures, player: int, face: str, damage: int, defender: int, left: int) -> Event:
    if face == "miss":
        text = f"{seat(player)} rolls miss: the attack misses."
    else:
        text = f"{seat(player)} rolls {face}: {damage} damage to {game.cards[defender].name}"
        text += f" ({left} health left)." if left > 0 else "."
    return Event("roll", text, None, {"player": player, "face": face, "damage": damage},
                 rules=("CUBE-39", FACE_RULES[face]) if face == "miss" else ("CUBE-39", FACE_RULES[face], "CUBE-42"))


def defeated(game: CubeCreatures, owner: int, creature: int, by_player: int, pile: int, guard: int | None) -> Event:
    text = (f"{seat(owner)}'s {game.cards[creature].name} is defeated and goes to {seat(by_player)}'s victory pile "
            f"({pile} of {game.options.win_at}).")
    if guard is not None:
        text += f" {game.cards[guard].name} is now {seat(owner)}'s Guard."
    # `cards` and `gain`: the creature goes to the victor's victory pile, which is the score.
    return Event("defeat", text, None, {"player": by_player, "owner": owner, "cards": [game.ids[creature]],
                                        "gain": 1}, rules=("CUBE-45", "CUBE-53") if guard is not None else ("CUBE-45",))


# -- card effects ---------------------------------------------------------------------------------
def took_damage(game: CubeCreatures, creature: int, amount: int) -> Event:
    return Event("effect", f"{game.cards[creature].name} takes {amount} damage.", None, {"card": game.ids[creature]},
                 rules=("CUBE-59", "CUBE-44"))


def healed(game: CubeCreatures, creature: int, amount: int, health: int) -> Event:
    return Event("effect", f"{game.cards[creature].name} heals {amount} (health {health}).", None,
                 {"card": game.ids[creature]}, rules=("CUBE-59", "CUBE-44"))


def upgrade_destroyed(game: CubeCreatures, upgrade: int, creature: int) -> Event:
    return Event("effect", f"{game.cards[upgrade].name} on {game.cards[creature].name} is destroyed.", None,
                 {"card": game.ids[upgrade]}, rules=("CUBE-59", "CUBE-29"))


def power_reset(game: CubeCreatures, creature: int) -> Event:
    return Event("effect", f"{game.cards[creature].name}'s power is ready again.", None,
                 {"card": game.ids[creature]}, rules=("CUBE-33",))


def attack_boosted(player: int, amount: int) -> Event:
    return Event("effect", f"{seat(player)}'s attack this turn gets +{amount}.", rules=("CUBE-59", "CUBE-39"))


def may_attack_any(player: int) -> Event:
    return Event("effect", f"{seat(player)} may attack any enemy creature this turn, not only a Guard.",
                 rules=("CUBE-35",))


def battlefield_widened(player: int, limit: int) -> Event:
    return Event("effect", f"{seat(player)}'s battlefield now holds up to {limit} creatures.", rules=("CUBE-23",))


def attack_stopped() -> Event:
    return Event("effect", "The attack is stopped.", rules=("CUBE-47",))


def damage_reduced(amount: int) -> Event:
    return Event("effect", f"The attack will deal {amount} less damage.", rules=("CUBE-47", "CUBE-42"))


def effect_cancelled() -> Event:
    return Event("effect", "The effect is cancelled.", rules=("CUBE-47",))
