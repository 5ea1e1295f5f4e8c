"""The order of play in Creatures of Lungo: setup, drawing, the turn, response windows, token moments and
what moves the game on after each step. Battles are in battles.py, goals and tokens in rules.py, card effects
in effects.py (rule ids in docs/rules/creatures-of-lungo.md)."""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import TYPE_CHECKING, cast

from bestiary.games.lungo import battles, events, rules
from bestiary.games.lungo.cards import ACTION_EFFECTS
from bestiary.games.lungo.phases import (
    BATTLE,
    DEAL,
    DICE,
    DISCARD,
    DRAW,
    DRAW_JOBS,
    FIGHT,
    GOAL,
    OFFERING_PHASES,
    OTHER,
    OVER,
    PLAY,
    RESPONSE,
    SELF_ADVANCING,
    SETUP,
    STEAL,
    SWAT,
    TARGET,
    TOKEN_MOMENT,
    TOP,
    TURN_DRAW,
    TURN_DRAW_JOB,
    TURN_ENDS,
    UNSEEN,
    WINNINGS_DRAW,
    Job,
    Phase,
)

if TYPE_CHECKING:
    from bestiary.games.lungo.state import LungoState

# The rules by which a card is drawn into a hand, by the job that draws it.
DRAW_RULES = {DEAL: ("LUNGO-24",), TURN_DRAW_JOB: ("LUNGO-30",)}
# A draw job comes from an action card's effect (LUNGO-63) or from a battle's winnings (LUNGO-73).
WINNINGS_DRAW_RULES, EFFECT_DRAW_RULES = ("LUNGO-73",), ("LUNGO-63",)


def draw_rules(state: LungoState, job: int) -> tuple[str, ...]:
    if job != DRAW:
        return DRAW_RULES[job]
    return WINNINGS_DRAW_RULES if state.phase == WINNINGS_DRAW else EFFECT_DRAW_RULES

TARGETED = frozenset({"steal", "swap-hands", "discard-random", "pass-affliction"})


# -- setup --------------------------------------------------------------------------------------------
def deal(state: LungoState) -> None:
    # LUNGO-22: a secret goal card each; LUNGO-24: then three cards each.
    n = state.game.num_players
    state.jobs = [Job(GOAL, p) for p in range(n)] + [Job(DEAL, p) for p in range(n) for _ in range(3)]
    state.phase = SETUP


# -- drawing ------------------------------------------------------------------------------------------
def refill_pile(state: LungoState) -> None:
    # LUNGO-58: an empty draw pile is refilled from the discard pile.
    if not state.pile and state.discard:
        state.pile = sorted(state.discard)  # the pile is kept sorted: draws are uniform, order means nothing
        state.discard = []
        state.top = UNSEEN
        state._log_later(events.pile_refilled)


def job_possible(state: LungoState, job: Job) -> bool:
    kind, player, other = job
    if kind in DRAW_JOBS:
        if not state.pile:
            refill_pile(state)
        if kind == TURN_DRAW_JOB:
            return bool(state.pile)
        battle = state.game.is_battle
        return any(not battle[c] for c in state.pile)  # otherwise the redraws never end
    if kind == TOP:
        return bool(state.pile)
    if kind in (STEAL, DISCARD):
        return bool(state.hands[other if kind == STEAL else player])
    if kind == SWAT:
        if not state.hands[player]:
            refill_pile(state)
        return bool(state.hands[player] or state.pile)
    return True


def take_into_hand(state: LungoState, player: int, card: int, job: int) -> None:
    """A card drawn into a hand by a deal, a turn draw or an effect (LUNGO-25, LUNGO-27, LUNGO-28, LUNGO-66)."""
    game = state.game
    if game.is_battle[card] and job == DRAW and state.phase == PLAY:
        forage_battle(state, player, card)
        return
    if game.is_battle[card]:
        insort(state.pile, card)  # shuffled back: the next draw is uniform over the pile again
        state.top = UNSEEN
        state._log_later(events.battle_shuffled_back, game, player, card,
                         ("LUNGO-25",) if job == DEAL else ("LUNGO-66",))
        state.jobs.insert(0, Job(job, player))
        return
    if game.kinds[card] == "slime":
        state.afflictions[player].append(card)
        state._log_later(events.slimed, player, ("LUNGO-27",) if job == DEAL else ("LUNGO-27", "LUNGO-66"))
        if job == DEAL:
            state.jobs.insert(0, Job(DEAL, player))
        return
    state.hands[player].append(card)
    rules = draw_rules(state, job)
    state._log_later(events.drew, player, rules)
    exposure = "dealt" if job == DEAL else "drawn"
    state._log_later(events.drew_privately, game, player, card, rules, exposure)


def apply_draw(state: LungoState, card: int) -> None:
    kind, player, _ = state.jobs.pop(0)
    # The pile is kept sorted, so the card is found by bisection rather than a scan.
    pile = state.pile
    at = bisect_left(pile, card)
    if at == len(pile) or pile[at] != card:
        raise ValueError(f"{state.game.ids[card]} is not in the draw pile")
    if state.top != UNSEEN and state.game.is_battle[card] != state.top:
        raise ValueError(f"{state.game.ids[card]} does not match the back of the top card (LUNGO-12)")
    del pile[at]
    state.top = UNSEEN  # LUNGO-12: the next card's back shows
    if kind == TURN_DRAW_JOB:
        turn_draw(state, player, card)
    elif kind == SWAT:  # from the draw pile once the hand is empty (LUNGO-52)
        battles.place_on_central_pile(state, player, card)
    else:
        take_into_hand(state, player, card, kind)


def show_top(state: LungoState, battle: bool) -> None:
    # LUNGO-12: "Battle cards will be visible to all players when face down": the new top card's back shows
    # everyone whether it is a battle card, never which card it is.
    state.jobs.pop(0)
    state.top = BATTLE if battle else OTHER
    if battle:
        state._log_later(events.battle_on_top)


def show_back(state: LungoState) -> bool:
    """LUNGO-12: a new top card shows its back before the next draw and before the next decision (a chance
    node, TOP, put first); whether it was due."""
    if state.top != UNSEEN or not state.pile or not state.game.battle_backs_shown:
        return False
    state.jobs.insert(0, Job(TOP, 0))
    return True


def top_odds(state: LungoState) -> tuple[float, float]:
    """LUNGO-12, LUNGO-58: the chances that the top card's back shows a card other than a battle card, and a
    battle card: their shares of the (unordered) draw pile."""
    battle_cards = sum(map(state.game.is_battle.__getitem__, state.pile))
    return 1.0 - battle_cards / len(state.pile), battle_cards / len(state.pile)


def turn_draw(state: LungoState, player: int, card: int) -> None:
    # LUNGO-30: a turn begins with one card from the deck; LUNGO-35: a battle card starts a battle.
    if state.game.is_battle[card]:
        battles.start_battle(state, player, card)
        return
    take_into_hand(state, player, card, TURN_DRAW_JOB)
    state.phase = PLAY


def forage_battle(state: LungoState, player: int, card: int) -> None:
    # LUNGO-35, LUNGO-66: a battle card drawn by an action card in your turn is played at once, not held;
    # the battle counts as your turn, so the card's draws still to come are not made.
    state.jobs = [job for job in state.jobs if job.kind != DRAW]
    battles.start_battle(state, player, card)


def apply_pick(state: LungoState, card: int) -> None:
    kind, player, other = state.jobs.pop(0)
    if kind == STEAL:
        state.hands[other].remove(card)
        state.hands[player].append(card)
        state._log_later(events.stole, player, other)
        state._log_later(events.stole_privately, state.game, player, other, card)
    elif kind == DISCARD:
        state.hands[player].remove(card)
        state.discard.append(card)
        state._log_later(events.discarded_at_random, state.game, player, card)
    else:  # SWAT from the hand (LUNGO-51)
        state.hands[player].remove(card)
        battles.place_on_central_pile(state, player, card)


def apply_roll(state: LungoState, pips: int) -> None:
    _, player, _ = state.jobs.pop(0)
    state.rolls[player] = pips
    state._log_later(events.rolled, player, pips)


# -- the turn -----------------------------------------------------------------------------------------
def start_turn(state: LungoState) -> None:
    # LUNGO-59: the limit rule ends a game that would not finish.
    if state.turns >= state.game.turn_limit:
        if state.unnoticed >= 0:  # LUNGO-57: the game's end shows the tokens
            rules.notice_missing_token(state, -1)
            return
        state.phase = OVER
        state._log_later(events.turn_limit, state.game.turn_limit)
        return
    state.turns += 1
    state.phase = TURN_DRAW
    state._log_later(events.turn_started, state.turns, state.active)
    state.jobs.append(Job(TURN_DRAW_JOB, state.active))


def play_card(state: LungoState, player: int, card: int) -> None:
    # LUNGO-33: a played card leaves the hand (to the discard pile once it has acted).
    state.hands[player].remove(card)
    state.pending = card
    state._log_later(events.played, state.game, player, card)
    effect = state.game.effects[card]
    if state.game.kinds[card] == "poison" or (effect is not None and effect.keyword in TARGETED):
        state.phase = TARGET
        return
    resolve_pending(state, player, -1)


def choose_target(state: LungoState, player: int, target: int) -> None:
    state.target = target
    state._log_later(events.aimed, state.game, player, state.pending, target)
    # LUNGO-72: a response window opens when the target holds a card (option response_windows="answerers":
    # a response card), so that it tells nobody what they hold.
    if window_opens(state, target):
        state.phase = RESPONSE
        return
    resolve_pending(state, player, target)


def window_opens(state: LungoState, target: int) -> bool:
    hand = state.hands[target]
    if state.game.answerers_only:
        return any(state.game.is_response[c] for c in hand)
    return bool(hand)


def respond(state: LungoState, player: int, card: int) -> None:
    # LUNGO-9: a response card is played in another player's turn.
    state.hands[player].remove(card)
    effect = state.game.effects[card]
    assert effect is not None
    state._log_later(events.responded, state.game, player, card)
    ACTION_EFFECTS.run(effect, state, player, state.active)
    state.discard.append(card)


def decline_response(state: LungoState, player: int) -> None:
    state._log_later(events.no_response, player)
    resolve_pending(state, state.active, state.target)


def resolve_pending(state: LungoState, player: int, target: int) -> None:
    card = state.pending
    game = state.game
    if game.kinds[card] == "poison":
        # LUNGO-15: poison lies face up in front of the affected player.
        state.afflictions[target].append(card)
        state._log_later(events.poisoned, target)
    else:
        effect = game.effects[card]
        assert effect is not None
        ACTION_EFFECTS.run(effect, state, player, target)
        state.discard.append(card)
    state.pending = -1
    state.target = -1
    state.phase = PLAY


def end_turn(state: LungoState) -> None:
    # LUNGO-61: a token moment closes every round (before the first player's turn comes round again),
    # or every turn with the option token_moment="turn"; LUNGO-56 (token_moment="eligible", the default):
    # a moment opens only when a player's goal has just been met, and a round's end shows a discreet grab.
    game = state.game
    if game.token_moment_when_eligible:
        if state.unnoticed >= 0 and rules.left_of(state, state.active) == game.first_player:
            rules.notice_missing_token(state, -1)
        elif not rules.offer_token_when_eligible(state, -1, TURN_ENDS):
            next_turn(state)
        return
    if game.token_moment_every_turn or rules.left_of(state, state.active) == game.first_player:
        if state.unnoticed >= 0:  # LUNGO-57: at the token moment everyone looks at the tokens
            rules.notice_missing_token(state, -1)
            return
        state.phase = TOKEN_MOMENT
        state.passed = [False] * state.game.num_players
    else:
        next_turn(state)


def next_turn(state: LungoState) -> None:
    # LUNGO-13, LUNGO-33: play continues to the left of the player whose turn ended.
    state.active = rules.left_of(state, state.active)
    start_turn(state)


def pass_token_moment(state: LungoState, player: int) -> None:
    state.passed[player] = True
    if all(state.passed):
        if state.resume and state.resume != TURN_ENDS:
            # LUNGO-56: the game goes on where the moment came in (one of OFFERING_PHASES)
            state.phase = cast(Phase, state.resume)
            state.resume = ""
            return
        state.resume = ""
        next_turn(state)


# -- after each step ----------------------------------------------------------------------------------
def settle(state: LungoState) -> None:
    """Drop chance jobs that cannot happen, and move the game on while no decision or chance is due."""
    while True:
        while state.jobs and not job_possible(state, state.jobs[0]):
            if state.jobs.pop(0).kind == SWAT:
                battles.missed_placement(state)
        if state.jobs:
            kind, player, _ = state.jobs[0]
            if kind in DRAW_JOBS or (kind == SWAT and not state.hands[player]):
                show_back(state)
            return
        phase = state.phase
        if phase not in SELF_ADVANCING:
            if show_back(state):
                return
            if phase in OFFERING_PHASES and state.game.token_moment_when_eligible:
                rules.offer_token_when_eligible(state, state.target if phase == RESPONSE else state.active, phase)
            return
        if phase == SETUP:
            start_turn(state)
        elif phase == TURN_DRAW:  # nothing left to draw
            state.phase = PLAY
        elif phase == FIGHT:
            battles.continue_fight(state)
        elif phase == DICE:
            battles.settle_dice(state)
        else:  # the battle's winnings are drawn
            end_turn(state)
