"""The order of play: setup, the turn's parts, response windows, the attack's steps and the end.

Each function names the rule it follows (ids in docs/rules/cube-creatures.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

from bestiary.core.api import Action
from bestiary.core.effects import Effect
from bestiary.games.cube import effects, events, rules
from bestiary.games.cube.effects import Context
from bestiary.games.cube.events import seat
from bestiary.games.cube.rules import ACTION, CREATURE, NO_CARD, OVER, UPGRADE

if TYPE_CHECKING:
    from bestiary.games.cube.state import CubeState

FIRST_PLAYER: Final = "first-player"  # chance: who goes first
PLACE: Final = "place"  # setup: each player puts 2 creatures on their battlefield
MAIN: Final = "main"  # the main phase of the current player's turn, ending with the attack
TARGET: Final = "target"  # the current player chooses what an action card or power acts on
RESPOND: Final = "respond"  # a response window: the listed players play a reaction or pass
ROLL: Final = "roll"  # chance: the attack die
# The phases, for type checking: each constant above is one of them, or rules.OVER.
Phase = Literal["first-player", "place", "main", "target", "respond", "roll", "over"]
PHASES = (FIRST_PLAYER, PLACE, MAIN, TARGET, RESPOND, ROLL, OVER)
CHANCE_PHASES = frozenset({FIRST_PLAYER, ROLL})

# The main-phase parts, each once per turn (CUBE-19).
DID_CREATURE, DID_ACTION, DID_UPGRADE, DID_POWER, DID_GUARD = 1, 2, 4, 8, 16
PARTS = ("creature", "action", "upgrade", "power", "guard")  # the main-phase parts, in the bits' order
PLACED_AT_SETUP = 2  # CUBE-16


# -- setup ------------------------------------------------------------------------------------
def deal(state: CubeState) -> None:
    """CUBE-15: shuffle and deal; CUBE-18: a hand with fewer than 2 creatures goes back and is redrawn."""
    game = state.game
    state.deck = state.shuffles.shuffled(game.in_play, game.ids)
    for player in range(game.num_players):
        rules.deal_hand(state, player, game.hand_size)
        tries = 0
        while rules.mulligan_needed(state, player) and tries < game.max_redraws:
            rules.redraw_hand(state, player)
            tries += 1
        state._log_later(events.dealt_privately, game, player, tuple(state.hands[player]), tries > 0)


def choose_first_player(state: CubeState, player: int) -> None:
    # CUBE-17: the first player; then CUBE-16, placement in turn order.
    state.first = player
    state._log_later(events.went_first, player)
    state.current = player
    begin_placement(state, player)


def begin_placement(state: CubeState, player: int) -> None:
    # CUBE-16: each player, in turn order from the first player, puts creatures on their battlefield.
    n = state.game.num_players
    for step in range(n):
        candidate = (player + step) % n
        if step and candidate == state.first:
            break
        if rules.creatures_in_hand(state, candidate) and len(state.fields[candidate]) < PLACED_AT_SETUP:
            state.current = candidate
            state.phase = PLACE
            return
    start_turn(state, state.first)


def place_at_setup(state: CubeState, player: int, creature: int) -> None:
    rules.place_creature(state, player, creature, ("CUBE-16",))
    if len(state.fields[player]) < PLACED_AT_SETUP and rules.creatures_in_hand(state, player):
        return
    following = (player + 1) % state.game.num_players
    if following == state.first:
        start_turn(state, state.first)
    else:
        begin_placement(state, following)


# -- the turn -----------------------------------------------------------------------------------
def start_turn(state: CubeState, player: int) -> None:
    # CUBE-19: draw, main phase, attack; CUBE-17: turns go clockwise.
    state.turn += 1
    if state.turn > state.game.turn_limit:
        rules.end_game(state, "the turn limit is reached", rules.most_victories(state), ("CUBE-56",), "turn limit")
        return
    state.current = player
    state.phase = MAIN
    state.done = 0
    state.boost = 0
    state.attack_any = False
    rules.draw_card(state, player, state.turn)  # CUBE-21
    if (not state.fields[player] and not rules.creatures_in_hand(state, player)
            and not rules.refill_empty_battlefield(state, player)):
        knock_out(state, player)


def knock_out(state: CubeState, player: int) -> None:
    # CUBE-54: no creature on the battlefield, in hand, in the deck or the discard pile: out of the game.
    state.out[player] = True
    state._log_later(events.knocked_out, player)
    remaining = [p for p in range(state.game.num_players) if not state.out[p]]
    if len(remaining) == 1:
        rules.end_game(state, f"{seat(remaining[0])} is the last player with creatures", remaining, ("CUBE-54",))
    else:
        next_turn(state)


def next_turn(state: CubeState) -> None:
    # CUBE-17: clockwise, skipping players who are out (CUBE-54).
    out = state.out
    for player in state.game.seats_after[state.current]:
        if not out[player]:
            start_turn(state, player)
            return
    if not out[state.current]:  # the others are all out
        start_turn(state, state.current)


def must_play_creature(state: CubeState, player: int) -> bool:
    # CUBE-20, CUBE-25: an empty battlefield must get a creature first.
    return not state.fields[player] and not state.done & DID_CREATURE and bool(rules.creatures_in_hand(state, player))


def main_actions(state: CubeState, player: int) -> list[Action]:
    """CUBE-19: every main-phase part not yet used this turn, then the attack (CUBE-37) or end turn (CUBE-55),
    each card's part read from the game's per-card tables in one pass over the hand."""
    game = state.game
    field = state.fields[player]
    done = state.done
    always = effects.always
    # CUBE-22: one creature card a turn, up to the battlefield's limit (CUBE-23); CUBE-26: one action card;
    # CUBE-27: one upgrade.
    want_creature = not done & DID_CREATURE and (not field or len(field) < state.limits[player])
    want_action = not done & DID_ACTION
    want_upgrade = not done & DID_UPGRADE and bool(field)
    creatures: list[Action] = []
    legal: list[Action] = []
    attaches: list[Action] = []
    kinds = game.ctype
    for card in sorted(state.hands[player]):
        kind = kinds[card]
        if kind == CREATURE:
            if want_creature:
                creatures.append(game.creature_plays[card])
        elif kind == ACTION:
            if want_action:
                play, playable = game.action_plays[card]
                if playable is always or playable(state, player):  # CUBE-58: it has something to act on
                    legal.append(play)
        elif kind == UPGRADE and want_upgrade:
            # CUBE-28: under a creature without an upgrade of its kind
            by_spot, weapon = game.upgrade_attaches[card]
            slots = state.weapon if weapon else state.armor
            spot = 0
            for creature in field:
                if slots[creature] == NO_CARD:
                    attaches.append(by_spot[spot])
                spot += 1  # noqa: SIM113  (a counter costs less than enumerate's tuples)
    if creatures:
        if not field:
            return creatures  # CUBE-20, CUBE-25: an empty battlefield must get a creature first
        creatures += legal
        legal = creatures
    if attaches:
        legal += attaches
    if not done & DID_POWER and game.powers_in_play:
        # CUBE-32: each creature power once per game; CUBE-58: while it has something to act on.
        tests, used, powers = game.power_tests, state.used, game.power_actions
        spot = 0
        for creature in field:
            ready = tests[creature]
            if ready is not None and not used[creature] and (ready is always or ready(state, player)):
                legal.append(powers[spot])
            spot += 1  # noqa: SIM113
    if not done & DID_GUARD:
        legal += game.guard_rows[len(field)]  # CUBE-34
    # CUBE-38: any one of your creatures attacks; CUBE-35: only a Guard is attacked unless a card says
    # otherwise; CUBE-37: with 3 or more players the attacker picks the opponent.
    attackers = len(field)
    before = len(legal)
    if attackers:
        fields = state.fields
        if state.attack_any:
            table = game.attack_table
            for other in game.opponents[player]:
                for row in table[other][:len(fields[other])]:
                    legal += row[:attackers]
        else:
            guard_attacks = game.guard_attacks
            for other in game.opponents[player]:
                if fields[other]:
                    legal += guard_attacks[other][attackers]
    if len(legal) == before:
        legal.append(game.end_turn)  # CUBE-55: no attack is possible
    return legal


def play_creature(state: CubeState, player: int, creature: int) -> None:
    # CUBE-22: one creature card a turn.
    state.done |= DID_CREATURE
    rules.place_creature(state, player, creature)


def attach(state: CubeState, player: int, upgrade: int, spot: int) -> None:
    # CUBE-27: one upgrade card a turn.
    state.done |= DID_UPGRADE
    rules.attach_upgrade(state, player, upgrade, state.fields[player][spot])


def swap_guard(state: CubeState, player: int, spot: int) -> None:
    # CUBE-34: change your Guard once a turn.
    state.done |= DID_GUARD
    rules.change_guard(state, player, spot)


def play_action_card(state: CubeState, player: int, card: int) -> None:
    # CUBE-26: follow the card's instructions, then discard it (it lies in the discard pile at once).
    state.done |= DID_ACTION
    state.hands[player].remove(card)
    state.discard.append(card)
    state._log_later(events.played_action, state.game, player, card)
    begin_effect(state, player, card, "action")


def use_power(state: CubeState, player: int, spot: int) -> None:
    # CUBE-33: turned sideways (used) as soon as it is used, even if a reaction cancels it.
    state.done |= DID_POWER
    creature = state.fields[player][spot]
    state.used[creature] = True
    state._log_later(events.used_power, state.game, player, creature)
    begin_effect(state, player, creature, "power")


def begin_effect(state: CubeState, player: int, source: int, kind: str) -> None:
    # CUBE-59: choose the target first (when there is a choice), then others may answer (CUBE-51).
    state.pending = source
    state.pending_kind = kind
    state.pending_target = NO_CARD
    state.cancelled = False
    effect = source_effect(state)
    if effects.needs_choice(effect):
        options = effects.candidates(state, player, effect)
        if len(options) > 1:
            state.phase = TARGET
            return
        state.pending_target = options[0]
    open_window(state, kind)


def source_effect(state: CubeState) -> Effect:
    game = state.game
    effect = game.power[state.pending] if state.pending_kind == "power" else game.effect[state.pending]
    assert effect is not None
    return effect


def target_actions(state: CubeState, player: int) -> list[Action]:
    table = state.game.target_actions
    out: list[Action] = []
    for creature in effects.candidates(state, player, source_effect(state)):
        owner = rules.owner_of(state, creature)
        out.append(table[owner][state.fields[owner].index(creature)])
    return out


def choose_target(state: CubeState, player: int, owner: int, spot: int) -> None:
    state.pending_target = state.fields[owner][spot]
    state._log_later(events.targeted, state.game, player, owner, state.pending_target)
    open_window(state, state.pending_kind)


def resolve_effect(state: CubeState) -> None:
    effect = source_effect(state)
    source, player = state.pending, state.current
    target = state.pending_target
    state.pending, state.pending_kind, state.pending_target = NO_CARD, "", NO_CARD
    if state.cancelled:
        state.cancelled = False
    else:
        effects.run(state, effect, Context(player, source, target))
    if state.phase != OVER:
        state.phase = MAIN


# -- the attack --------------------------------------------------------------------------------
def declare_attack(state: CubeState, player: int, target_player: int, target_spot: int, spot: int) -> None:
    # CUBE-37: one creature attacks one enemy creature (the Guard unless a card says otherwise).
    state.attacker = state.fields[player][spot]
    state.defender = state.fields[target_player][target_spot]
    state.prevented = False
    state.reduce = 0
    state.last_roll = None
    state._log_later(events.attacked, state.game, player, state.attacker,
                     rules.attack_points(state, state.attacker) + state.boost, target_player, state.defender,
                     rules.current_health(state, state.defender))
    open_window(state, "attack")


def roll_attack(state: CubeState, face: str) -> None:
    state.last_roll = face
    rules.attack(state, state.current, state.attacker, state.defender, face)
    end_attack(state)


def end_attack(state: CubeState) -> None:
    state.attacker = state.defender = NO_CARD
    state.prevented = False
    state.reduce = 0
    if state.phase != OVER:
        next_turn(state)


def end_turn(state: CubeState, player: int) -> None:
    # CUBE-55: no creature to attack with or no enemy creature to attack: the turn ends without one.
    state._log_later(events.ended_turn, player)
    next_turn(state)


# -- response windows ---------------------------------------------------------------------------
def reaction_applies(state: CubeState, card: int, trigger: str) -> bool:
    """CUBE-51: a reaction answers its kind of action, while it can still change something."""
    game = state.game
    if game.trigger[card] != trigger:
        return False
    keyword, target = game.reaction_effects[card]
    if keyword == "cancel-effect":
        return not state.cancelled
    if trigger == "attack" and rules.attack_called_off(state):
        return False
    if keyword in ("prevent-attack", "reduce-damage"):
        return not state.prevented
    if target == "defender":
        return state.damage[state.defender] > 0
    return True


def in_window(state: CubeState, player: int, trigger: str) -> bool:
    """CUBE-51: whether a window answering `trigger` is open to `player`: any card in hand, or with option
    response_windows="answerers" a reaction that answers it."""
    if state.game.answerers_only:
        return holds_reaction(state, player, trigger)
    return bool(state.hands[player])


def holds_reaction(state: CubeState, player: int, trigger: str) -> bool:
    hand = state.hands[player]
    if state.game.answering[trigger].isdisjoint(hand):
        return False
    answers = state.game.trigger  # what each card answers: None but for reactions
    for card in hand:  # noqa: SIM110  (a loop: a generator costs a call on every card)
        if answers[card] == trigger and reaction_applies(state, card, trigger):
            return True
    return False


def open_window(state: CubeState, trigger: str) -> None:
    # CUBE-51: after an action that can be answered, the window opens to the other players still in the game
    # who hold a card (in_window); those with a reaction that answers may play one, the others can only pass.
    state.window = trigger
    responders: list[int] = []
    game = state.game
    if game.reactions_in_play:
        answerers = game.answerers_only
        hands, out = state.hands, state.out
        for player in game.seats_after[state.current]:
            if not out[player] and (holds_reaction(state, player, trigger) if answerers else hands[player]):
                responders.append(player)
    state.responders = responders
    if responders:
        state.phase = RESPOND
    else:
        close_window(state)


def reaction_actions(state: CubeState, player: int) -> list[Action]:
    game = state.game
    window = state.window
    hand = state.hands[player]
    if game.answering[window].isdisjoint(hand):
        return [game.pass_action]  # no reaction in hand answers this window
    answers = game.trigger  # what each card answers: None but for reactions
    legal: list[Action] = []
    for card in sorted(hand):
        if answers[card] == window and reaction_applies(state, card, window):
            legal.append(game.react_actions[card])
    legal.append(game.pass_action)
    return legal


def react(state: CubeState, player: int, card: int) -> None:
    # CUBE-47: follow the card's instructions, then discard it; CUBE-48: as many as a player wants.
    state.hands[player].remove(card)
    state.discard.append(card)
    state._log_later(events.reacted, state.game, player, card)
    effect = state.game.effect[card]
    assert effect is not None
    effects.run(state, effect, Context(player, card))
    if state.phase == OVER:
        return
    state.responders = [p for p in state.responders if in_window(state, p, state.window)]
    if not state.responders:
        close_window(state)


def pass_window(state: CubeState, player: int) -> None:
    state.responders.remove(player)
    state._log_later(events.passed, player)
    if not state.responders:
        close_window(state)


def close_window(state: CubeState) -> None:
    trigger = state.window
    state.window = ""
    state.responders = []
    if trigger != "attack":
        resolve_effect(state)
        return
    if state.prevented:
        end_attack(state)
    elif rules.attack_called_off(state):
        state._log_later(events.attack_off)
        end_attack(state)
    else:
        state.phase = ROLL
