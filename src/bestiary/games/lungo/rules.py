"""Creatures of Lungo's rules, one small function per rule (ids in docs/rules/creatures-of-lungo.md)."""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import TYPE_CHECKING, Any

from bestiary.games.lungo import events
from bestiary.games.lungo.cards import ACTION_EFFECTS, BATTLE_RULES, WINNINGS

if TYPE_CHECKING:
    from bestiary.games.lungo.game import CreaturesOfLungo
    from bestiary.games.lungo.state import LungoState

SETUP = "setup"
TURN_DRAW = "turn-draw"
PLAY = "play"
TARGET = "target"
RESPONSE = "response"
CHOOSE = "battle-choose"
FIGHT = "battle-fight"
DICE = "dice-battle"
SWAT_PLACE = "swat-place"
SWAT_RACE = "swat-race"
WINNINGS_DRAW = "battle-winnings"
TOKEN_MOMENT = "token-moment"
TOKEN_RACE = "token-race"
OVER = "over"
PHASES = (SETUP, TURN_DRAW, PLAY, TARGET, RESPONSE, CHOOSE, FIGHT, DICE, SWAT_PLACE, SWAT_RACE, WINNINGS_DRAW,
          TOKEN_MOMENT, TOKEN_RACE, OVER)
RACE_PHASES = frozenset({SWAT_RACE, TOKEN_MOMENT, TOKEN_RACE})
SIMULTANEOUS_PHASES = RACE_PHASES | {CHOOSE}
SELF_ADVANCING = frozenset({SETUP, TURN_DRAW, FIGHT, DICE, WINNINGS_DRAW})  # phases that move on once no job is due
# LUNGO-56: the phases whose one decider is offered a grab among their actions, and in which a token moment
# opens for the others when their goals are met (option token_moment="eligible")
OFFERING_PHASES = frozenset({PLAY, TARGET, RESPONSE})
TURN_ENDS = "turn-ends"  # a token moment's `resume` when it came in as a turn ended

# Pending chance jobs: (kind, player, other player or 0).
GOAL, DEAL, DRAW, TURN_DRAW_JOB, STEAL, DISCARD, SWAT, ROLL, TOP = range(9)
JOB_NAMES = ("goal", "deal", "draw", "turn-draw", "steal", "discard", "swat", "roll", "top")
UNSEEN, OTHER, BATTLE = -1, 0, 1  # the back of the draw pile's top card (LUNGO-12): not yet shown, or what it shows
DRAW_JOBS = frozenset({DEAL, DRAW, TURN_DRAW_JOB})  # the jobs that take a card from the draw pile

# The rules by which a card is drawn into a hand, by the job that draws it.
DRAW_RULES = {DEAL: ("LUNGO-24",), TURN_DRAW_JOB: ("LUNGO-30",), DRAW: ("LUNGO-63", "LUNGO-73")}

TARGETED = frozenset({"steal", "swap-hands", "discard-random", "pass-affliction"})


def left_of(state: LungoState, player: int) -> int:
    # LUNGO-43, LUNGO-74: "left" is the next seat.
    return (player + 1) % state.game.num_players


# -- setup ------------------------------------------------------------------------------------------
def deal(state: LungoState) -> None:
    # LUNGO-22: a secret goal card each; LUNGO-24: then three cards each.
    n = state.game.num_players
    state.jobs = [(GOAL, p, 0) for p in range(n)] + [(DEAL, p, 0) for p in range(n) for _ in range(3)]
    state.phase = SETUP


# -- drawing ----------------------------------------------------------------------------------------
def refill_pile(state: LungoState) -> None:
    # LUNGO-58: an empty draw pile is refilled from the discard pile.
    if not state.pile and state.discard:
        state.pile = sorted(state.discard)  # the pile is kept sorted: draws are uniform, order means nothing
        state.discard = []
        state.top = UNSEEN
        state._log_later(events.pile_refilled)


def job_possible(state: LungoState, job: tuple[int, int, int]) -> bool:
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
        state.jobs.insert(0, (job, player, 0))
        return
    if game.kinds[card] == "slime":
        state.afflictions[player].append(card)
        state._log_later(events.slimed, player, ("LUNGO-27",) if job == DEAL else ("LUNGO-27", "LUNGO-66"))
        if job == DEAL:
            state.jobs.insert(0, (DEAL, player, 0))
        return
    state.hands[player].append(card)
    state._log_later(events.drew, player, DRAW_RULES[job])
    exposure = "dealt" if job == DEAL else "drawn"
    state._log_later(events.drew_privately, game, player, card, DRAW_RULES[job], exposure)


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
        place_on_central_pile(state, player, card)
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
    state.jobs.insert(0, (TOP, 0, 0))
    return True


def top_odds(state: LungoState) -> tuple[float, float]:
    """LUNGO-12, LUNGO-58: the chances that the top card's back shows a card other than a battle card, and a
    battle card: their shares of the (unordered) draw pile."""
    battles = sum(map(state.game.is_battle.__getitem__, state.pile))
    return 1.0 - battles / len(state.pile), battles / len(state.pile)


def turn_draw(state: LungoState, player: int, card: int) -> None:
    # LUNGO-30: a turn begins with one card from the deck; LUNGO-35: a battle card starts a battle.
    if state.game.is_battle[card]:
        start_battle(state, player, card)
        return
    take_into_hand(state, player, card, TURN_DRAW_JOB)
    state.phase = PLAY


def forage_battle(state: LungoState, player: int, card: int) -> None:
    # LUNGO-35, LUNGO-66: a battle card drawn by an action card in your turn is played at once, not held;
    # the battle counts as your turn, so the card's draws still to come are not made.
    state.jobs = [job for job in state.jobs if job[0] != DRAW]
    start_battle(state, player, card)


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
        place_on_central_pile(state, player, card)


def apply_roll(state: LungoState, pips: int) -> None:
    _, player, _ = state.jobs.pop(0)
    state.rolls[player] = pips
    state._log_later(events.rolled, player, pips)


# -- the turn ---------------------------------------------------------------------------------------
def start_turn(state: LungoState) -> None:
    # LUNGO-59: the limit rule ends a game that would not finish.
    if state.turns >= state.game.turn_limit:
        if state.unnoticed >= 0:  # LUNGO-57: the game's end shows the tokens
            notice_missing_token(state, -1)
            return
        state.phase = OVER
        state._log_later(events.turn_limit, state.game.turn_limit)
        return
    state.turns += 1
    state.phase = TURN_DRAW
    state._log_later(events.turn_started, state.turns, state.active)
    state.jobs.append((TURN_DRAW_JOB, state.active, 0))


def playable(game: CreaturesOfLungo, card: int, afflicted: bool) -> bool:
    """LUNGO-9, LUNGO-30: action cards, poison and antidotes are played in your own turn; a cure needs
    something in front of you."""
    if game.kinds[card] == "poison":
        return True
    effect = game.effects[card]
    if effect is None or game.is_response[card]:
        return False
    if effect.keyword in ("cleanse", "pass-affliction"):
        return afflicted
    return True


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
        if state.unnoticed >= 0 and left_of(state, state.active) == game.first_player:
            notice_missing_token(state, -1)
        elif not offer_token_when_eligible(state, -1, TURN_ENDS):
            next_turn(state)
        return
    if game.token_moment_every_turn or left_of(state, state.active) == game.first_player:
        if state.unnoticed >= 0:  # LUNGO-57: at the token moment everyone looks at the tokens
            notice_missing_token(state, -1)
            return
        state.phase = TOKEN_MOMENT
        state.passed = [False] * state.game.num_players
    else:
        next_turn(state)


def next_turn(state: LungoState) -> None:
    # LUNGO-13, LUNGO-33: play continues to the left of the player whose turn ended.
    state.active = left_of(state, state.active)
    start_turn(state)


# -- action card effects (LUNGO-63) ---------------------------------------------------------------
@ACTION_EFFECTS.register("draw", count=int)
def effect_draw(state: LungoState, player: int, target: int, count: int) -> None:
    state.jobs.extend((DRAW, player, 0) for _ in range(count))


@ACTION_EFFECTS.register("steal")
def effect_steal(state: LungoState, player: int, target: int) -> None:
    state.jobs.append((STEAL, player, target))


@ACTION_EFFECTS.register("discard-random")
def effect_discard_random(state: LungoState, player: int, target: int) -> None:
    state.jobs.append((DISCARD, target, 0))


@ACTION_EFFECTS.register("swap-hands")
def effect_swap_hands(state: LungoState, player: int, target: int) -> None:
    # LUNGO-17: poison and toxic slime go with the hand.
    hands, front = state.hands, state.afflictions
    hands[player], hands[target] = hands[target], hands[player]
    front[player], front[target] = front[target], front[player]
    state._log_later(events.swapped_hands, player, target)


@ACTION_EFFECTS.register("pass-affliction")
def effect_pass_affliction(state: LungoState, player: int, target: int) -> None:
    card = state.afflictions[player].pop()
    state.afflictions[target].append(card)
    state._log_later(events.affliction_passed, state.game, player, card, target)


@ACTION_EFFECTS.register("cleanse", all=bool)
def effect_cleanse(state: LungoState, player: int, target: int, all: bool) -> None:
    # LUNGO-17: an antidote or certain action cards remove poison and toxic slime.
    front = state.afflictions[player]
    removed = front[:] if all else front[-1:]
    del front[len(front) - len(removed):]
    state.discard.extend(removed)
    state._log_later(events.cleansed, state.game, player, tuple(removed))


@ACTION_EFFECTS.register("cancel")
def effect_cancel(state: LungoState, player: int, target: int) -> None:
    state._log_later(events.cancelled, state.game, state.pending)
    state.discard.append(state.pending)
    state.pending = -1
    state.target = -1
    state.phase = PLAY


# -- battles ----------------------------------------------------------------------------------------
def start_battle(state: LungoState, drawer: int, card: int) -> None:
    # LUNGO-12, LUNGO-36, LUNGO-37: the battle card is revealed and lies in front of the drawer.
    state.battle = card
    state.drawer = drawer
    state._log_later(events.battle_revealed, state.game, drawer, card)
    rule = state.game.cards[card].battle
    assert rule is not None
    BATTLE_RULES.run(rule, state)


def battle_param(state: LungoState, key: str) -> Any:
    rule = state.game.cards[state.battle].battle
    assert rule is not None
    return rule.params[key]


def finish_battle(state: LungoState, winner: int) -> None:
    """The battle card's winnings go to `winner` (-1: nobody); then the turn ends (LUNGO-35)."""
    card = state.battle
    winnings = state.game.cards[card].winnings
    assert winnings is not None
    if winner >= 0:
        WINNINGS.run(winnings, state, winner)
    leftover = [c for cards in state.choices for c in cards] + state.central
    state.discard.extend(leftover)  # LUNGO-47: every other card of the battle is discarded
    state.discard.append(card)
    state.battle = -1
    state.choices = [[] for _ in state.choices]
    state.central = []
    state.phase = WINNINGS_DRAW


def participants_from(state: LungoState, start: int) -> list[int]:
    n = state.game.num_players
    return [(start + k) % n for k in range(n)]


@BATTLE_RULES.register("creature-battle", defaults={"low_power_wins": False, "mutant_bonus": 0,
                                                    "no_winner_to_drawer": False},
                       low_power_wins=bool, mutant_bonus=int, no_winner_to_drawer=bool)
def creature_battle(state: LungoState, low_power_wins: bool, mutant_bonus: int, no_winner_to_drawer: bool) -> None:
    # LUNGO-39: every player puts down a card face down at the same time; LUNGO-65: an empty hand sits out.
    state.phase = CHOOSE
    state.chosen = [not hand for hand in state.hands]
    state.choices = [[] for _ in state.hands]
    if all(state.chosen):
        state._log_later(events.no_battle)
        finish_battle(state, -1)


def commit_options(state: LungoState, player: int) -> list[int]:
    # LUNGO-41: a player with a creature must use one; without, any card counts as zero.
    hand = state.hands[player]
    creatures = [c for c in hand if state.game.is_creature[c]]
    return creatures or list(hand)


def boost_options(state: LungoState, player: int) -> list[int]:
    # LUNGO-40: a power card of the creature's species symbol; LUNGO-10, LUNGO-70: a gene with a creature.
    choice = state.choices[player]
    if len(choice) != 1 or not state.game.is_creature[choice[0]]:
        return []
    game = state.game
    first = choice[0]
    out = []
    for card in state.hands[player]:
        kind = game.kinds[card]
        if (kind == "power" and game.species[card] == game.species[first]) or (
                kind == "gene" and game.kinds[first] == "creature"):
            out.append(card)
    return out


def commit(state: LungoState, player: int, card: int) -> None:
    state.hands[player].remove(card)
    state.choices[player].append(card)
    state._log_later(events.committed, player)
    state._log_later(events.committed_privately, state.game, player, card)
    if not boost_options(state, player):
        choice_done(state, player)


def boost(state: LungoState, player: int, card: int) -> None:
    state.hands[player].remove(card)
    state.choices[player].append(card)
    state._log_later(events.boosted, player)
    state._log_later(events.boosted_privately, state.game, player, card)
    choice_done(state, player)


def choice_done(state: LungoState, player: int) -> None:
    state.chosen[player] = True
    if all(state.chosen):
        reveal(state)


def reveal(state: LungoState) -> None:
    # LUNGO-42: all cards are flipped at once.
    for player in participants_from(state, state.drawer):
        cards = state.choices[player]
        if cards:
            state._log_later(events.revealed, state.game, player, tuple(cards), power_of(state, player))
    # LUNGO-43: from the drawer leftwards, mutants last against the last creature standing.
    order = [p for p in participants_from(state, state.drawer) if state.choices[p]]
    mutants = [p for p in order if state.game.kinds[state.choices[p][0]] == "mutant"]
    state.order = [p for p in order if p not in mutants] + mutants
    state.phase = FIGHT
    if battle_param(state, "no_winner_to_drawer") and not any(
            state.game.is_creature[state.choices[p][0]] for p in order):
        # LUNGO-48: a Cage Match with no creature played goes to the drawer.
        state._log_later(events.cage_to_drawer, state.drawer)
        declare_winner(state, state.drawer, ("LUNGO-48",))
        return
    state.champion = state.order[0]
    state.position = 1
    continue_fight(state)


def power_of(state: LungoState, player: int) -> int:
    """LUNGO-7, LUNGO-41: a creature's power, +2 with a power card; any other card counts zero."""
    game = state.game
    cards = state.choices[player]
    first = cards[0]
    if not game.is_creature[first]:
        return 0
    bonus = battle_param(state, "mutant_bonus") if game.kinds[first] == "mutant" else 0
    return game.power[first] + bonus + sum(2 for c in cards[1:] if game.kinds[c] == "power")


def fight(state: LungoState, champion: int, challenger: int) -> int:
    """The winner of one pairing, or -1 for a tie to be rolled off (LUNGO-44 to LUNGO-46)."""
    game = state.game
    a, b = state.choices[champion], state.choices[challenger]
    a_creature, b_creature = game.is_creature[a[0]], game.is_creature[b[0]]
    if a_creature != b_creature:  # LUNGO-71: a card that is no creature loses to any creature
        return champion if a_creature else challenger
    if game.kinds[a[0]] == "creature" and game.kinds[b[0]] == "creature":
        # LUNGO-44: weakness first; LUNGO-10: a mutant gene ignores its holder's weakness.
        a_weak = game.weak_to[a[0]] == game.element[b[0]] and not any(game.kinds[c] == "gene" for c in a[1:])
        b_weak = game.weak_to[b[0]] == game.element[a[0]] and not any(game.kinds[c] == "gene" for c in b[1:])
        if a_weak != b_weak:
            return challenger if a_weak else champion
    # LUNGO-45, LUNGO-46: then power; Power Swap turns the comparison round.
    pa, pb = power_of(state, champion), power_of(state, challenger)
    if pa == pb:
        return -1
    high = champion if pa > pb else challenger
    low = challenger if high == champion else champion
    return low if battle_param(state, "low_power_wins") else high


def continue_fight(state: LungoState) -> None:
    if state.rollers:  # LUNGO-46, LUNGO-69: a tie is settled by the die, again on equal rolls
        a, b = state.rollers
        if state.rolls[a] == state.rolls[b]:
            roll_off(state, a, b)
            return
        winner = a if state.rolls[a] > state.rolls[b] else b
        state._log_later(events.roll_off_won, winner)
        state.rollers = []
        state.rolls = [0] * state.game.num_players
        advance(state, winner)
    while state.position < len(state.order):
        challenger = state.order[state.position]
        winner = fight(state, state.champion, challenger)
        if winner < 0:
            state._log_later(events.tied, state.champion, challenger)
            roll_off(state, state.champion, challenger)
            return
        advance(state, winner)
    declare_winner(state, state.champion, ("LUNGO-43",))


def roll_off(state: LungoState, a: int, b: int) -> None:
    state.rollers = [a, b]
    state.jobs.extend([(ROLL, a, 0), (ROLL, b, 0)])


def advance(state: LungoState, winner: int) -> None:
    # LUNGO-43: the winner of each pairing stays on and meets the next player.
    challenger = state.order[state.position]
    loser = challenger if winner == state.champion else state.champion
    state._log_later(events.pairing, winner, loser)
    state.champion = winner
    state.position += 1


def declare_winner(state: LungoState, winner: int, rules: tuple[str, ...]) -> None:
    state._log_later(events.battle_won, state.game, winner, state.battle, rules)
    finish_battle(state, winner)


@BATTLE_RULES.register("dice-battle", decides=str)
def dice_battle(state: LungoState, decides: str) -> None:
    # LUNGO-49: every player rolls in turn, starting with the drawer; hands are set aside.
    if decides not in ("highest", "lowest"):
        raise ValueError(f"dice-battle: decides must be 'highest' or 'lowest', not '{decides}'")
    state.phase = DICE
    state.rollers = participants_from(state, state.drawer)
    state.jobs.extend((ROLL, p, 0) for p in state.rollers)


def settle_dice(state: LungoState) -> None:
    # LUNGO-50: after the round of rolls the card decides; LUNGO-68: a tie rolls again.
    rolls = {p: state.rolls[p] for p in state.rollers}
    best = max(rolls.values()) if battle_param(state, "decides") == "highest" else min(rolls.values())
    tied = [p for p in state.rollers if rolls[p] == best]
    state.rolls = [0] * state.game.num_players
    if len(tied) > 1:
        state._log_later(events.dice_tie, tuple(tied), best)
        state.rollers = tied
        state.jobs.extend((ROLL, p, 0) for p in tied)
        return
    state.rollers = []
    if battle_param(state, "decides") == "lowest":
        state._log_later(events.battle_lost, state.game, tied[0], state.battle)
        finish_battle(state, tied[0])
    else:
        declare_winner(state, tied[0], ("LUNGO-50",))


@BATTLE_RULES.register("insect-swat")
def insect_swat(state: LungoState) -> None:
    # LUNGO-51: hands go face down; from the drawer, each turns up a card onto the central pile.
    state.phase = SWAT_PLACE
    state.in_swat = [True] * state.game.num_players
    state.central = []
    state.placer = state.drawer
    state.misses = 0
    state.jobs.append((SWAT, state.placer, 0))


def place_on_central_pile(state: LungoState, player: int, card: int) -> None:
    state.central.append(card)
    state.misses = 0
    state._log_later(events.swat_card, state.game, player, card)
    # LUNGO-53: anyone still in the battle may swat at any card, right or wrong.
    state.phase = SWAT_RACE
    state.passed = [not inside for inside in state.in_swat]


def next_swat_card(state: LungoState) -> None:
    """The next player still in the battle turns up a card; nobody able to: the battle ends (LUNGO-67)."""
    n = state.game.num_players
    state.phase = SWAT_PLACE
    for step in range(1, n + 1):
        candidate = (state.placer + step) % n
        if state.in_swat[candidate]:
            state.placer = candidate
            state.jobs.append((SWAT, candidate, 0))
            return
    end_swat_without_winner(state)


def missed_placement(state: LungoState) -> None:
    """The placer had no card and the draw pile is empty."""
    state.misses += 1
    if state.misses >= state.game.num_players:
        end_swat_without_winner(state)
        return
    next_swat_card(state)


def end_swat_without_winner(state: LungoState) -> None:
    state._log_later(events.swat_over)
    finish_battle(state, -1)


def swat(state: LungoState, player: int) -> None:
    top = state.central[-1]
    if state.game.is_insect[top]:
        # LUNGO-53: the first to swat an insect wins the pile; LUNGO-54: hands are kept.
        state._log_later(events.swatted_insect, player)
        declare_winner(state, player, ("LUNGO-53",))
        return
    # LUNGO-55: a wrong swat puts the whole hand on the pile; with no hand, out of the battle.
    hand = state.hands[player]
    if hand:
        state._log_later(events.wrong_swat, state.game, player, top, len(hand))
        state.central[:0] = hand
        state.hands[player] = []
    else:
        state._log_later(events.wrong_swat_out, state.game, player, top)
        state.in_swat[player] = False
    next_swat_card(state)


def let_pass(state: LungoState, player: int) -> None:
    state.passed[player] = True
    if all(state.passed):
        next_swat_card(state)


@WINNINGS.register("take-played", defaults={"draw": 0}, which=str, draw=int)
def take_played(state: LungoState, winner: int, which: str, draw: int) -> None:
    # LUNGO-47: mutant genes are never winnings; the rest as the card says.
    if which not in ("creatures", "all"):
        raise ValueError(f"take-played: which must be 'creatures' or 'all', not '{which}'")
    game = state.game
    taken = []
    for player, cards in enumerate(state.choices):
        kept = [c for c in cards if game.kinds[c] != "gene" and (which == "all" or game.is_creature[c])]
        taken += kept
        state.choices[player] = [c for c in cards if c not in kept]
    state.hands[winner].extend(taken)
    if taken:
        state._log_later(events.took_played, game, winner, tuple(taken))
    state.jobs.extend((DRAW, winner, 0) for _ in range(draw))


@WINNINGS.register("draw", count=int)
def winnings_draw(state: LungoState, winner: int, count: int) -> None:
    state._log_later(events.winnings_drawn, winner, count)
    state.jobs.extend((DRAW, winner, 0) for _ in range(count))


@WINNINGS.register("lose-random", count=int)
def lose_random(state: LungoState, loser: int, count: int) -> None:
    state._log_later(events.lost_random, loser, count)
    state.jobs.extend((DISCARD, loser, 0) for _ in range(count))


@WINNINGS.register("take-pile")
def take_pile(state: LungoState, winner: int) -> None:
    # LUNGO-67: battle cards and toxic slime in the won pile cannot be held and are discarded.
    game = state.game
    kept = [c for c in state.central if not game.is_battle[c] and game.kinds[c] != "slime"]
    state.hands[winner].extend(kept)
    state.central = [c for c in state.central if c not in kept]
    state._log_later(events.took_pile, winner, len(kept))


# -- goals and tokens -------------------------------------------------------------------------------
def goal_met(state: LungoState, player: int) -> bool:
    # LUNGO-8, LUNGO-64: every requirement of the goal is met by cards in hand.
    goal = state.goals[player]
    if goal < 0:
        return False
    hand = state.hands[player]
    for count, fitting in state.game.goal_tables[goal]:  # noqa: SIM110  (a loop: a generator costs calls)
        if len(fitting.intersection(hand)) < count:
            return False
    return True


def may_take_token(state: LungoState, player: int) -> bool:
    # LUNGO-16, LUNGO-56: the goal met, nothing in front of you, no token yet.
    return player not in state.takers and not state.afflictions[player] and goal_met(state, player)


def take_token(state: LungoState, player: int) -> None:
    if state.unnoticed >= 0:
        # LUNGO-57: reaching for a token, a player sees one is missing
        notice_missing_token(state, player)
        if state.phase == OVER:
            return
    first = not state.takers
    state.takers.append(player)
    state.tokens -= 1
    if first and state.game.discreet_grabs and state.phase != TOKEN_MOMENT:
        # LUNGO-57 (option token_grab="discreet"): the game goes on until someone notices
        state.unnoticed = player
        state._log_later(events.discreet_token, player)
        return
    if first:
        # LUNGO-21, LUNGO-57: the first taker is the winner; everyone else races for the rest.
        state._log_later(events.first_token, player)
    else:
        state._log_later(events.grabbed_token, player)
    race_for_the_rest(state)


def race_for_the_rest(state: LungoState) -> None:
    if state.tokens == 0:
        state.loser = next(p for p in range(state.game.num_players) if p not in state.takers)
        state._log_later(events.left_without_token, state.loser)
        state.phase = OVER
    else:
        state.phase = TOKEN_RACE


def notice_missing_token(state: LungoState, noticer: int) -> None:
    """LUNGO-57: an unnoticed grab is seen; the race for the other tokens begins."""
    taker = state.unnoticed
    state.unnoticed = -1
    state._log_later(events.noticed_token, noticer, taker)
    race_for_the_rest(state)


def undo_unnoticed_grab(state: LungoState) -> None:
    """A sampled world in which the unnoticed grab has not happened (for a player who has not seen it)."""
    state.takers.remove(state.unnoticed)
    state.tokens += 1
    state.unnoticed = -1


def offer_token_when_eligible(state: LungoState, decider: int, resume: str) -> bool:
    """LUNGO-56 (option token_moment="eligible"): "at any time": when a player's goal has just been met and
    they are not the one deciding now (who is offered the grab among their own actions), a token moment opens
    at once, a race in which everyone is asked, so that it shows nobody whose goal it is. `resume` is the phase
    to go back to when everyone has passed (TURN_ENDS: the turn passes on). Whether it opened."""
    offered = state.offered
    newly = False
    for player in range(state.game.num_players):
        if not may_take_token(state, player):
            offered[player] = False
        elif not offered[player]:
            offered[player] = True
            newly = newly or player != decider
    if not newly:
        return False
    state.resume = resume
    state.phase = TOKEN_MOMENT
    state.passed = [False] * state.game.num_players
    return True


def pass_token_moment(state: LungoState, player: int) -> None:
    state.passed[player] = True
    if all(state.passed):
        if state.resume and state.resume != TURN_ENDS:
            state.phase = state.resume  # LUNGO-56: the game goes on where the moment came in
            state.resume = ""
            return
        state.resume = ""
        next_turn(state)


# -- after each step --------------------------------------------------------------------------------
def settle(state: LungoState) -> None:
    """Drop chance jobs that cannot happen, and move the game on while no decision or chance is due."""
    while True:
        while state.jobs and not job_possible(state, state.jobs[0]):
            if state.jobs.pop(0)[0] == SWAT:
                missed_placement(state)
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
                offer_token_when_eligible(state, state.target if phase == RESPONSE else state.active, phase)
            return
        if phase == SETUP:
            start_turn(state)
        elif phase == TURN_DRAW:  # nothing left to draw
            state.phase = PLAY
        elif phase == FIGHT:
            continue_fight(state)
        elif phase == DICE:
            settle_dice(state)
        else:  # the battle's winnings are drawn
            end_turn(state)
