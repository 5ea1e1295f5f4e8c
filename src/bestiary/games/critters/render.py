"""What players see of critter capture: card faces in observations, and the table drawn as text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestiary.core.api import JSON

if TYPE_CHECKING:
    from bestiary.games.critters.game import CritterCapture

COLOUR_STYLE = {"fish": "blue", "bird": "yellow", "mammal": "red", "other": "green"}


def card_view(game: CritterCapture, card: int) -> JSON:
    c = game.cards[card]
    return {"id": game.instance_ids[card], "name": c.name, "colour": c.colour,
            "commonness": c.commonness, "size": c.size, "ability": c.ability}


def card_line(card: JSON, attribute: str | None = None) -> str:
    style = COLOUR_STYLE[card["colour"]]
    values = []
    for name in ("commonness", "size"):
        text = f"{name} {card[name]}"
        values.append(f"[bold]{text}[/bold]" if name == attribute else text)
    return f"[{style}]{card['name']}[/{style}] ({card['colour']}; {', '.join(values)}; {card['ability']})"


def render(observation: JSON) -> str:
    o = observation
    lines = [f"[bold]Critter capture[/bold] - round {min(o['round'], o['rounds'])} of {o['rounds']}, "
             f"P{o['starting_player'] + 1} started"]
    decks = "  ".join(f"[{COLOUR_STYLE[c]}]{c}[/{COLOUR_STYLE[c]}] {n}" for c, n in o["decks"].items())
    lines.append(f"Decks: {decks}")
    if o["active_card"]:
        lines.append(f"Active card (P{o['active_player'] + 1}, {o['attribute']}): "
                     f"{card_line(o['active_card'], o['attribute'])}")
        if o["under_active"]:
            lines.append(f"  with {len(o['under_active'])} card(s) under it: "
                         + ", ".join(c["name"] for c in o["under_active"]))
    elif o["attribute"]:
        lines.append(f"P{o['active_player'] + 1} announced {o['attribute']}.")
    if o["face_down_card"]:
        fd = o["face_down_card"]
        lines.append(f"Face-down {fd['colour']} card drawn by P{fd['drawn_by'] + 1}.")
    lines.append("Corrals (face down):" if o["corrals_face_down"] else "Corrals:")
    for p, corral in enumerate(o["corrals"]):
        you = " (you)" if o["viewer"] == p else ""
        if o["corrals_face_down"]:  # CRITTERS-32, CRITTERS-41: counts only
            lines.append(f"  P{p + 1}{you}: {len(corral)} card(s)")
            continue
        names = ", ".join(c["name"] for c in corral) or "-"
        totals = (f"commonness {sum(c['commonness'] for c in corral)}, "
                  f"size {sum(c['size'] for c in corral)}")
        lines.append(f"  P{p + 1}{you}: {len(corral)} card(s) ({totals}): {names}")
    if o["scores"] is not None:
        lines.append(f"Final scores by {o['final_attribute']}: "
                     + ", ".join(f"P{p + 1} {s}" for p, s in enumerate(o["scores"])))
    return "\n".join(lines)


def ability_text(ability: str) -> str:
    """What a challenge ability does, in plain words with its rule (CRITTERS-14 to CRITTERS-18)."""
    kind, _, colour = ability.rpartition(" ")
    named = "an 'other'" if colour == "other" else f"a {colour}"
    when = f"When this is the challenge card and the active card is {named} card"
    if kind == "trapped by":
        return f"{when}, this card is trapped: the active player takes it (CRITTERS-16)."
    if kind == "capture":
        return f"{when}, it captures the active card and its player becomes the active player (CRITTERS-17)."
    if kind == "block":
        return f"{when}, it blocks: its own player keeps this card (CRITTERS-18)."
    return ability


def card_words(text: str) -> str:
    return " ".join(text.lower().split("#")[0].replace("-", " ").replace("_", " ").split())


def describe(game: CritterCapture, observation: JSON, word: str) -> str | None:
    """What the terminal shows for a card's name or id (any card of the decks: the card list is public)."""
    wanted = card_words(word)
    for card, c in enumerate(game.cards):
        if wanted in (card_words(game.instance_ids[card]), card_words(c.name)):
            view = card_view(game, card)
            return (f"{card_line(view)}\n  {ability_text(c.ability)} Otherwise the announced value, commonness "
                    "or size, is compared: the higher wins (CRITTERS-20 to CRITTERS-23).")
    return None


TERMINAL_HELP = (
    "Critter capture:\n"
    "  card NAME         a critter card in full, its ability explained (e.g. 'card bluegill')\n"
    "  The active player draws a card face down and announces commonness or size before looking (CRITTERS-9);\n"
    "  each challenger draws one; a challenge card's ability acts only when its colour matches the active\n"
    "  card (CRITTERS-14), otherwise the announced values are compared (CRITTERS-20).")
