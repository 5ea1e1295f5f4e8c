"""Cube Creatures' rules on the table: one small function per rule (ids in docs/rules/cube-creatures.md).

The turn's order (whose move, response windows, the attack's steps) is in flow.py; card effects are in
effects.py. Creatures and cards are integer indices into the game's card tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from bestiary.games.cube import events
from bestiary.games.cube.events import seat

if TYPE_CHECKING:
    from bestiary.games.cube.state import CubeState

CREATURE, UPGRADE, ACTION, REACTION = 0, 1, 2, 3
WEAPON, ARMOR = 0, 1
NO_CARD = -1
BATTLEFIELD_LIMIT = 3  # CUBE-23
MAX_SPOTS = 5  # the most any card can widen a battlefield to
DIE_FACES = ("+2", "+1", "-1", "-2", "2x", "miss")  # CUBE-40
FACE_ADDS = {"+2": 2, "+1": 1, "-1": -1, "-2": -2}  # CUBE-40.1 to CUBE-40.4: what a number face adds
OVER: Final = "over"  # the phase of a finished game


def attack_points(state: CubeState, creature: int) -> int:
    # CUBE-6: a weapon adds its bonus to the creature's attack points.
    game = state.game
    weapon = state.weapon[creature]
    return game.attack[creature] + (game.bonus[weapon] if weapon != NO_CARD else 0)


def max_health(state: CubeState, creature: int) -> int:
    # CUBE-6: armor adds its bonus to the creature's health points.
    game = state.game
    armor = state.armor[creature]
    return game.health[creature] + (game.bonus[armor] if armor != NO_CARD else 0)


def current_health(state: CubeState, creature: int) -> int:
    # CUBE-44: damage stays on a creature until healed or defeated; CUBE-6: armor adds its bonus.
    game = state.game
    armor = state.armor[creature]
    return game.health[creature] + (game.bonus[armor] if armor != NO_CARD else 0) - state.damage[creature]


def owner_of(state: CubeState, creature: int) -> int:
    for player, field in enumerate(state.fields):
        if creature in field:
            return player
    return NO_CARD


def attack_called_off(state: CubeState) -> bool:
    """CUBE-51: an attack is off once a creature in it has been defeated (is on no battlefield)."""
    attacker, defender = state.attacker, state.defender
    attacker_in = defender_in = False
    for field in state.fields:
        if attacker in field:
            attacker_in = True
        if defender in field:
            defender_in = True
    return not (attacker_in and defender_in)


def creatures_in_hand(state: CubeState, player: int) -> list[int]:
    kinds = state.game.ctype
    return [c for c in state.hands[player] if kinds[c] == CREATURE]


def reshuffle_discard(state: CubeState) -> None:
    # CUBE-52: an empty shared deck is remade from the discard pile, shuffled.
    if not state.discard:
        return
    state.deck = state.shuffles.shuffled(state.discard, state.game.ids)
    state.discard = []
    state._log_later(events.reshuffled, len(state.deck))


def draw_card(state: CubeState, player: int, turn: int = 0) -> int:
    """CUBE-21: take one card from the shared deck (CUBE-52 when it is empty); `turn` is the turn's number
    for the turn's own draw, which opens the public line with it."""
    if not state.deck:
        reshuffle_discard(state)
        if not state.deck:
            state._log_later(events.cannot_draw, turn, player)
            return NO_CARD
    card = state.deck.pop()
    state.hands[player].append(card)
    state._log_later(events.drew, turn, player)
    state._log_later(events.drew_privately, state.game, player, card, turn)
    return card


def deal_hand(state: CubeState, player: int, size: int) -> None:
    # CUBE-15: deal from the shuffled deck.
    for _ in range(min(size, len(state.deck))):
        state.hands[player].append(state.deck.pop())


def mulligan_needed(state: CubeState, player: int) -> bool:
    # CUBE-18: fewer than 2 creatures in the starting hand.
    return len(creatures_in_hand(state, player)) < 2


def redraw_hand(state: CubeState, player: int) -> None:
    # CUBE-18: shuffle the hand back into the deck and draw a new one of the same size.
    size = len(state.hands[player])
    state.deck = state.shuffles.shuffled(state.deck + state.hands[player], state.game.ids)
    state.hands[player] = []
    deal_hand(state, player, size)
    state._log_later(events.mulligan, player)


def refill_empty_battlefield(state: CubeState, player: int) -> bool:
    """CUBE-25: draw until a creature comes, then shuffle the other cards drawn back into the deck.
    False when no creature is left to draw (CUBE-54)."""
    drawn: list[int] = []
    found = NO_CARD
    kinds = state.game.ctype
    while True:
        if not state.deck:
            reshuffle_discard(state)
            if not state.deck:
                break
        card = state.deck.pop()
        if kinds[card] == CREATURE:
            found = card
            break
        drawn.append(card)
    if drawn:
        state.deck = state.shuffles.shuffled(state.deck + drawn, state.game.ids)
    if found == NO_CARD:
        return False
    state.hands[player].append(found)
    state._log_later(events.refilled, state.game, player, found, len(drawn))
    return True


def place_creature(state: CubeState, player: int, creature: int, rules: tuple[str, ...] = ("CUBE-22",)) -> None:
    # CUBE-22: into the first open spot, so the Guard spot is filled first (CUBE-23: up to the limit).
    state.hands[player].remove(creature)
    field = state.fields[player]
    field.append(creature)
    state._log_later(events.played_creature, state.game, player, creature, len(field) - 1, rules)


def attach_upgrade(state: CubeState, player: int, upgrade: int, creature: int) -> None:
    # CUBE-27, CUBE-28: an upgrade goes under a creature, at most one weapon and one armor each.
    game = state.game
    state.hands[player].remove(upgrade)
    if game.kind[upgrade] == WEAPON:
        state.weapon[creature] = upgrade
    else:
        state.armor[creature] = upgrade
    what = "attack" if game.kind[upgrade] == WEAPON else "health"
    state._log_later(events.attached, game, player, upgrade, creature, what)


def upgrade_slot_free(state: CubeState, upgrade: int, creature: int) -> bool:
    # CUBE-28: at most 1 weapon and 1 armor per creature.
    slots = state.weapon if state.game.kind[upgrade] == WEAPON else state.armor
    return slots[creature] == NO_CARD


def change_guard(state: CubeState, player: int, spot: int) -> None:
    # CUBE-34: swap the Guard with another creature of the same battlefield.
    field = state.fields[player]
    field[0], field[spot] = field[spot], field[0]
    state._log_later(events.new_guard, state.game, player, field[0])


def adjusted_attack(points: int, face: str) -> int:
    # CUBE-39, CUBE-40: the die changes the attack points for this attack; never below zero.
    if face == "miss":
        return 0
    if face == "2x":
        return points * 2
    return max(0, points + FACE_ADDS[face])


def attack(state: CubeState, player: int, attacker: int, defender: int, face: str) -> None:
    """CUBE-39: the die adjusts this turn's attack points; CUBE-42: the result, less any reduction from
    reactions, is subtracted from the defender's health."""
    points = attack_points(state, attacker) + state.boost
    damage = max(0, adjusted_attack(points, face) - state.reduce)
    left = current_health(state, defender) - damage
    state._log_later(events.rolled, state.game, player, face, damage, defender, left)
    if damage:
        deal_damage(state, defender, damage, player)


def deal_damage(state: CubeState, creature: int, amount: int, by_player: int) -> bool:
    """CUBE-42: subtract from the creature's current health; CUBE-45: defeated at zero or less."""
    state.damage[creature] += amount
    if current_health(state, creature) <= 0:
        defeat(state, creature, by_player)
        return True
    return False


def heal(state: CubeState, creature: int, amount: int) -> int:
    # CUBE-44: healing removes damage, never above the creature's full health.
    healed = min(amount, state.damage[creature])
    state.damage[creature] -= healed
    return healed


def defeat(state: CubeState, creature: int, by_player: int) -> None:
    # CUBE-45: the defeated creature goes to the victory pile of whoever defeated it;
    # CUBE-29: its upgrades go to the discard pile; CUBE-53: the creatures behind move up.
    owner = owner_of(state, creature)
    state.fields[owner].remove(creature)
    state.victory[by_player].append(creature)
    for slots in (state.weapon, state.armor):
        if slots[creature] != NO_CARD:
            state.discard.append(slots[creature])
            slots[creature] = NO_CARD
    state.damage[creature] = 0
    state.used[creature] = False
    guard = state.fields[owner][0] if state.fields[owner] else None
    state._log_later(events.defeated, state.game, owner, creature, by_player, len(state.victory[by_player]), guard)
    check_victory(state, by_player)


def check_victory(state: CubeState, player: int) -> None:
    # CUBE-10: the first to defeat 5 creatures wins at once.
    if state.winners is None and len(state.victory[player]) >= state.game.win_at:
        end_game(state, f"{seat(player)} has defeated {len(state.victory[player])} creatures", [player], ("CUBE-10",))


def most_victories(state: CubeState) -> list[int]:
    # CUBE-56: at the turn limit the largest victory pile wins; equal piles share the win.
    best = max(len(pile) for pile in state.victory)
    return [p for p, pile in enumerate(state.victory) if len(pile) == best]


def end_game(state: CubeState, reason: str, winners: list[int], rules: tuple[str, ...],
             ending: str = "decided") -> None:
    state.phase = OVER
    state.winners = winners
    state.responders = []
    state._log_later(events.game_over, reason, tuple(winners), rules, ending)
