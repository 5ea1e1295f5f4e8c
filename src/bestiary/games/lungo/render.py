"""What players see of Creatures of Lungo: card faces in observations, and the table drawn as text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape

from bestiary.core.api import JSON

if TYPE_CHECKING:
    from bestiary.games.lungo.game import CreaturesOfLungo

ELEMENT_STYLE = {"fire": "red", "water": "blue", "earth": "green"}
PHASE_TEXT = {
    "setup": "dealing", "turn-draw": "drawing", "play": "playing cards", "target": "choosing a target",
    "response": "may respond", "battle-choose": "choosing creatures face down", "battle-fight": "battling",
    "dice-battle": "rolling dice", "swat-place": "turning up cards", "swat-race": "SWAT? the first to swat wins",
    "battle-winnings": "collecting winnings", "token-moment": "anyone taking a token?",
    "token-race": "RACE for the tokens!", "over": "game over"}


def card_view(game: CreaturesOfLungo, card: int) -> JSON:
    c = game.cards[card]
    out: JSON = {"id": game.ids[card], "name": c.name, "kind": c.kind}
    for key in ("element", "species", "power", "weakness"):
        value = getattr(c, key)
        if value is not None:
            out[key] = value
    if c.kind in ("action", "battle", "antidote", "poison", "slime", "gene", "power"):
        out["text"] = c.text
    if c.effect is not None:
        out["effect"] = c.effect.keyword
    return out


def card_line(card: JSON) -> str:
    """One card as rich markup; names are escaped, the style comes from the element. A creature's species and
    element are named as such, as goals name them ("two of them Element" counts the Element species)."""
    label = escape(card["name"])
    if card["kind"] == "creature":
        style = ELEMENT_STYLE[card["element"]]
        return (f"[{style}]{label}[/{style}] ({card['species'].capitalize()} creature, {card['element']} element, "
                f"power {card['power']}, weak to {card['weakness']})")
    if card["kind"] == "mutant":
        return (f"[magenta]{label}[/magenta] ({card['species'].capitalize()} mutant, power {card['power']}, "
                "no weakness)")
    if card["kind"] == "power":
        return f"[yellow]{label}[/yellow] (power card: +2 to a {card['species'].capitalize()} creature)"
    return f"[cyan]{label}[/cyan] ({card['kind']}: {escape(card.get('text', ''))})"


# What each kind of card is for, with its rule (docs/rules/creatures-of-lungo.md).
KIND_TEXT = {
    "creature": "a creature: kept in hand for your goal and put down in battles; never played (LUNGO-2). In a "
                "battle, weakness comes first: fire is weak to water, water to earth, earth to fire (LUNGO-44); "
                "then the higher power wins (LUNGO-46).",
    "mutant": "a mutant: a creature with no weakness, winning by power alone (LUNGO-6).",
    "power": "a power card: +2 power to a creature of its species in a battle, or kept for your goal (LUNGO-7).",
    "gene": "a mutant gene: put down with a creature in a battle, it ignores the creature's weakness "
            "(LUNGO-10).",
    "action": "an action card: played in your own turn, then discarded (LUNGO-9, LUNGO-31).",
    "antidote": "an antidote: removes poison or toxic slime from in front of you (LUNGO-17).",
    "poison": "poison: played at another player; while it lies in front of them they cannot take a token "
              "(LUNGO-16, LUNGO-28).",
    "slime": "toxic slime: goes face up in front of whoever draws it; no token while it is there (LUNGO-27).",
    "battle": "a battle card: drawn at the start of a turn, it starts a battle for everyone (LUNGO-35).",
}


def card_in_full(card: JSON) -> str:
    """A card with everything printed on it and what its kind does."""
    return f"{card_line(card)}\n  {escape(KIND_TEXT.get(card['kind']) or card['kind'])}"


def requirement_text(requirement: JSON) -> str:
    """One line of a goal in words: '2 creatures of the Element species'."""
    count, kind = requirement["count"], requirement.get("kind") or "card"
    noun = {"creature": "creature", "mutant": "mutant", "power": "power card", "gene": "mutant gene",
            "action": "action card", "antidote": "antidote", "poison": "poison"}.get(kind, "card")
    text = f"{count} {noun}{'s' if count > 1 else ''}"
    if requirement.get("species"):
        text += f" of the {requirement['species'].capitalize()} species"
    if requirement.get("element"):
        text += f" of the {requirement['element']} element"
    return text


def fits(card: JSON, requirement: JSON) -> bool:
    """Whether a card of the hand counts towards one line of a goal (LUNGO-64; a mutant is a creature, LUNGO-6)."""
    kind = requirement.get("kind")
    kind_fits = kind is None or card["kind"] == kind or (kind == "creature" and card["kind"] == "mutant")
    return (kind_fits and requirement.get("element") in (None, card.get("element"))
            and requirement.get("species") in (None, card.get("species")))


def goal_text(observation: JSON) -> str | None:
    """The viewer's secret goal in full: each requirement, the cards of the hand that count for it, and what
    still keeps the viewer from a token."""
    o = observation
    goal = o.get("goal")
    if not goal:
        return None
    hand = o.get("hand") or []
    lines = [f"Your secret goal: [bold]{escape(goal['name'])}[/bold] - {escape(goal['text'])}",
             "Each line counts the cards in your hand on its own; one card may count for two lines (LUNGO-64):"]
    for requirement in goal["requires"]:
        counted = [card for card in hand if fits(card, requirement)]
        held = ", ".join(escape(card["name"]) for card in counted) or "none yet"
        done = "[green]done[/green]" if len(counted) >= requirement["count"] else f"{len(counted)} so far"
        lines.append(f"  {requirement_text(requirement)}: {done} ({held})")
    if o.get("goal_met"):
        front = o["in_front"][o["viewer"]] if o.get("viewer") is not None else []
        lines.append("[green]Met![/green] " + ("But poison or toxic slime lies in front of you: no token until "
                                               "it is gone (LUNGO-16)." if front else
                                               "Type 'grab token' when you may (LUNGO-56)."))
    return "\n".join(lines)


def card_words(text: str) -> str:
    """A card's id or name as typed: small letters, spaces for hyphens, copy numbers left out."""
    return " ".join(text.lower().split("#")[0].replace("-", " ").replace("_", " ").split())


def describe(game: CreaturesOfLungo, observation: JSON, word: str) -> str | None:
    """What the terminal shows for `goal`, `cards` (the hand in full) or a card's name or id."""
    wanted = card_words(word)
    if wanted == "goal":
        return goal_text(observation)
    if wanted in ("cards", "hand"):
        hand = observation.get("hand")
        if hand is None:
            return None
        return "\n".join(card_in_full(card) for card in hand) if hand else "Your hand is empty."
    for card in range(len(game.cards)):
        if wanted in (card_words(game.ids[card]), card_words(game.cards[card].name)):
            return card_in_full(card_view(game, card))
    for goal in range(len(game.goal_cards)):
        c = game.goal_cards[goal]
        if wanted in (card_words(c.id), card_words(c.name)):
            view = game.goal_view(goal)
            return f"Goal card [bold]{escape(view['name'])}[/bold]: {escape(view['text'])}\n" + "\n".join(
                f"  {requirement_text(r)}" for r in view["requires"])
    return None


TERMINAL_HELP = (
    "Creatures of Lungo:\n"
    "  goal              your secret goal: what it asks and which of your cards count\n"
    "  cards             your hand, each card in full\n"
    "  card NAME         any card in full (e.g. 'card forage')\n"
    "  A creature reads: name (species creature, element, power, weakness). Goals count species (Fish,\n"
    "  Element, Jungle, Insect, Shell) and elements (fire, water, earth).")


def seat_name(observation: JSON, player: int) -> str:
    return f"P{player + 1}" + (" (you)" if observation["viewer"] == player else "")


def render(observation: JSON) -> str:
    o = observation
    lines = [f"[bold]Creatures of Lungo[/bold] - turn {o['turn']} of at most {o['turn_limit']}, "
             f"P{o['active_player'] + 1} to play; {PHASE_TEXT.get(o['phase'], o['phase'])}"]
    lines.append(f"Draw pile {o['draw_pile']}"
                 # LUNGO-12: the top card's back shows whether a battle is coming
                 + (" [bold red](a battle card is on top)[/bold red]" if o.get("battle_on_top") else "")
                 + f", discard {len(o['discard'])}"
                 + (f" (top: {escape(o['discard'][-1]['name'])})" if o["discard"] else "")
                 + f"; tokens left {o['tokens_left']}")
    for player, size in enumerate(o["hand_sizes"]):
        front = ", ".join(escape(c["name"]) for c in o["in_front"][player])
        status = []
        if front:
            status.append(f"[red]in front: {front}[/red]")
        if player in o["token_takers"]:
            place = o["token_takers"].index(player) + 1
            status.append("[green]took the first token[/green]" if place == 1 else "[green]has a token[/green]")
        if o["loser"] == player:
            status.append("[red]the loser[/red]")
        lines.append(f"  {seat_name(o, player)}: {size} card(s) in hand" + ("; " + "; ".join(status) if status
                                                                            else ""))
    if o["pending_card"]:
        aim = f" at P{o['target'] + 1}" if o["target"] is not None else ""
        lines.append(f"Being played{aim}: {card_line(o['pending_card'])}")
    if o["battle"]:
        lines += battle_lines(o, o["battle"])
    if o["goal"]:
        met = " [green](met)[/green]" if o["goal_met"] else ""
        lines.append(f"Your secret goal: [bold]{escape(o['goal']['name'])}[/bold]{met} - "
                     f"{escape(o['goal']['text'])}")
    if o["hand"] is not None:
        lines.append("Your hand:" if o["hand"] else "Your hand: (empty)")
        lines += [f"  {card_line(c)}" for c in o["hand"]]
    return "\n".join(lines)


def battle_lines(o: JSON, battle: Any) -> list[str]:
    lines = [f"[bold]Battle![/bold] {escape(battle['card']['name'])}, drawn by P{battle['drawer'] + 1}: "
             f"{escape(battle['card']['text'])}"]
    for player, choice in enumerate(battle["choices"]):
        if isinstance(choice, dict):
            state = "chosen" if choice["chosen"] else "choosing"
            lines.append(f"  {seat_name(o, player)}: {choice['face_down']} card(s) face down ({state})")
        elif choice:
            lines.append(f"  {seat_name(o, player)}: " + " + ".join(card_line(c) for c in choice))
    if battle["rolling"]:
        lines.append("  Rolling: " + ", ".join(
            f"P{p + 1} {battle['rolls'][p] or '-'}" for p in battle["rolling"]))
    if battle["central_pile"]:
        top = battle["central_pile"][-1]
        out = [p for p, inside in enumerate(battle["in_swat"]) if not inside]
        lines.append(f"  Central pile: {len(battle['central_pile'])} card(s), on top: {card_line(top)}"
                     + (" [bold red]INSECT![/bold red]" if top.get("species") == "insect" else ""))
        if out:
            lines.append("  Out of the swat: " + ", ".join(f"P{p + 1}" for p in out))
    return lines
