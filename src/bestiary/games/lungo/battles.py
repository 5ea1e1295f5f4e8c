"""Creatures of Lungo's battles (LUNGO-35 to LUNGO-55): creature battles fought pairing by pairing, dice
battles and the insect swat; a battle card names its kind and its winnings (effects.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bestiary.games.lungo import events
from bestiary.games.lungo.cards import BATTLE_RULES, WINNINGS
from bestiary.games.lungo.phases import CHOOSE, DICE, FIGHT, ROLL, SWAT, SWAT_PLACE, SWAT_RACE, WINNINGS_DRAW, Job

if TYPE_CHECKING:
    from bestiary.games.lungo.state import LungoState

# -- creature battles ---------------------------------------------------------------------------------
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
    state.jobs.extend([Job(ROLL, a), Job(ROLL, b)])


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


# -- dice battles -------------------------------------------------------------------------------------
@BATTLE_RULES.register("dice-battle", decides=str)
def dice_battle(state: LungoState, decides: str) -> None:
    # LUNGO-49: every player rolls in turn, starting with the drawer; hands are set aside.
    if decides not in ("highest", "lowest"):
        raise ValueError(f"dice-battle: decides must be 'highest' or 'lowest', not '{decides}'")
    state.phase = DICE
    state.rollers = participants_from(state, state.drawer)
    state.jobs.extend(Job(ROLL, p) for p in state.rollers)


def settle_dice(state: LungoState) -> None:
    # LUNGO-50: after the round of rolls the card decides; LUNGO-68: a tie rolls again.
    rolls = {p: state.rolls[p] for p in state.rollers}
    best = max(rolls.values()) if battle_param(state, "decides") == "highest" else min(rolls.values())
    tied = [p for p in state.rollers if rolls[p] == best]
    state.rolls = [0] * state.game.num_players
    if len(tied) > 1:
        state._log_later(events.dice_tie, tuple(tied), best)
        state.rollers = tied
        state.jobs.extend(Job(ROLL, p) for p in tied)
        return
    state.rollers = []
    if battle_param(state, "decides") == "lowest":
        state._log_later(events.battle_lost, state.game, tied[0], state.battle)
        finish_battle(state, tied[0])
    else:
        declare_winner(state, tied[0], ("LUNGO-50",))


# -- insect swat --------------------------------------------------------------------------------------
@BATTLE_RULES.register("insect-swat")
def insect_swat(state: LungoState) -> None:
    # LUNGO-51: hands go face down; from the drawer, each turns up a card onto the central pile.
    state.phase = SWAT_PLACE
    state.in_swat = [True] * state.game.num_players
    state.central = []
    state.placer = state.drawer
    state.misses = 0
    state.jobs.append(Job(SWAT, state.placer))


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
            state.jobs.append(Job(SWAT, candidate))
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
