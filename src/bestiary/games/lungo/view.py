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
    """One card as rich markup; names are escaped, the style comes from the element."""
    label = escape(card["name"])
    if card["kind"] == "creature":
        style = ELEMENT_STYLE[card["element"]]
        return (f"[{style}]{label}[/{style}] ({card['element']} {card['species']}, power {card['power']}, "
                f"weak to {card['weakness']})")
    if card["kind"] == "mutant":
        return f"[magenta]{label}[/magenta] (mutant {card['species']}, power {card['power']}, no weakness)"
    if card["kind"] == "power":
        return f"[yellow]{label}[/yellow] (power card, {card['species']} +2)"
    return f"[cyan]{label}[/cyan] ({card['kind']}: {escape(card.get('text', ''))})"


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
