"""What players see of Cube Creatures: card and creature views in observations, and the table as text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestiary.core.api import JSON
from bestiary.games.cube import rules
from bestiary.games.cube.rules import NO_CARD

if TYPE_CHECKING:
    from bestiary.games.cube.game import CubeCreatures
    from bestiary.games.cube.state import CubeState

TYPE_STYLE = {"creature": "green", "upgrade": "cyan", "action": "yellow", "reaction": "magenta"}


def card_view(game: CubeCreatures, card: int) -> JSON:
    """A card's printed face."""
    return dict(game.faces[card])


def creature_view(state: CubeState, creature: int) -> JSON:
    """A creature in play: its face, damage, upgrades and whether its power is used (CUBE-33, CUBE-44)."""
    game = state.game
    weapon, armor = state.weapon[creature], state.armor[creature]
    return {**game.faces[creature],
            "attack_now": rules.attack_points(state, creature),
            "max_health": rules.max_health(state, creature),
            "health_left": rules.current_health(state, creature),
            "damage": state.damage[creature],
            "weapon": None if weapon == NO_CARD else dict(game.faces[weapon]),
            "armor": None if armor == NO_CARD else dict(game.faces[armor]),
            "power_used": state.used[creature]}


def escape(text: str) -> str:
    """Rich markup reads square brackets as tags; card texts are shown as written."""
    return text.replace("[", "\\[")


def card_line(card: JSON) -> str:
    kind = card["type"]
    style = TYPE_STYLE[kind]
    label = f"[{style}]{escape(card['name'])}[/{style}]"
    if card.get("foil"):
        label += " [bold yellow]*foil*[/bold yellow]"
    if kind == "creature":
        detail = f"attack {card['attack']}, health {card['health']}"
        if card["power"]:
            detail += f"; power: {escape(card['power'])}"
    elif kind == "upgrade":
        detail = f"{card['kind']} +{card['bonus']} {'attack' if card['kind'] == 'weapon' else 'health'}"
    elif kind == "reaction":
        detail = f"reaction to {card['responds_to']}: {escape(card['text'])}"
    else:
        detail = f"action: {escape(card['text'])}"
    return f"{label} ({detail})"


def creature_line(spot: int, creature: JSON) -> str:
    where = "[bold]Guard[/bold] " if spot == 0 else f"spot {spot + 1}  "
    health = f"{creature['health_left']}/{creature['max_health']}"
    health_style = "red" if creature["health_left"] * 3 <= creature["max_health"] else "green"
    parts = [f"{where}[green]{escape(creature['name'])}[/green]",
             f"attack {creature['attack_now']}", f"health [{health_style}]{health}[/{health_style}]"]
    upgrades = [f"{escape(u['name'])} +{u['bonus']}" for u in (creature["weapon"], creature["armor"]) if u]
    if upgrades:
        parts.append("upgrades: " + ", ".join(upgrades))
    if creature["power"]:
        state = "[dim]used[/dim]" if creature["power_used"] else "ready"
        parts.append(f"power ({state}): {escape(creature['power'])}")
        if not creature["power_used"] and heals_nothing(creature):
            parts.append("[dim](heals nothing now: full health)[/dim]")
    return "  ".join(parts)


def heals_nothing(creature: JSON) -> bool:
    """A power that heals only its own creature, which has taken no damage: using it now would waste it."""
    effect = creature.get("power_effect") or {}
    return effect.get("keyword") == "heal" and effect.get("target") == "self" \
        and creature["health_left"] >= creature["max_health"]


def render(observation: JSON) -> str:
    o = observation
    viewer = o["viewer"]
    turn = f"turn {o['turn']}" if o["turn"] else "setup"
    lines = [f"[bold]Cube Creatures[/bold] - {turn}; deck {o['deck']} card(s), discard pile {len(o['discard'])}"
             + (f", top: {escape(o['discard'][-1]['name'])}" if o["discard"] else "")]
    for player, field in enumerate(o["battlefields"]):
        you = " (you)" if viewer == player else ""
        mark = "[bold]>[/bold] " if o["current"] == player else "  "
        status = " [red]out of the game[/red]" if o["out"][player] else ""
        lines.append(f"{mark}[bold]P{player + 1}{you}[/bold]: hand {o['hand_sizes'][player]}, victory pile "
                     f"{len(o['victory'][player])}/{o['win_at']}{status}")
        if not field:
            lines.append("      (empty battlefield)")
        lines += [f"      {creature_line(spot, creature)}" for spot, creature in enumerate(field)]
    if o["attack"]:
        attack = o["attack"]
        note = " (stopped)" if attack["prevented"] else ""
        note += f" (-{attack['reduce']} damage)" if attack["reduce"] else ""
        points = next((c["attack_now"] for c in o["battlefields"][attack["attacker_player"]]
                       if c["id"] == attack["attacker"]), None)
        strength = f" (attack {points + o['boost']})" if points is not None else ""
        lines.append(f"[bold]Attack under way:[/bold] P{attack['attacker_player'] + 1}'s "
                     f"{escape(attack['attacker_name'])}{strength} attacks P{attack['defender_player'] + 1}'s "
                     f"{escape(attack['defender_name'])}{note}")
    if o["pending"]:
        pending = o["pending"]
        target = f" on {pending['target']}" if pending["target"] else ""
        lines.append(f"Under way: {escape(pending['name'])} ({pending['kind']}){target}: {escape(pending['text'])}")
    if o["window"]:
        lines.append(f"[magenta]Reactions may answer this {o['window']}:[/magenta] asking "
                     + ", ".join(f"P{p + 1}" for p in o["to_act"]))
    if o["last_roll"]:
        lines.append(f"Last roll of the attack die: {o['last_roll']}")
    if o["used_this_turn"]:
        lines.append("Done this turn: " + ", ".join(o["used_this_turn"]))
    if o["hand"] is not None:
        lines.append(f"Your hand ({len(o['hand'])}):")
        lines += [f"      {card_line(card)}" for card in o["hand"]] or ["      (empty)"]
    if o["winners"] is not None:
        lines.append("[bold]Winner: " + " and ".join(f"P{p + 1}" for p in o["winners"]) + "[/bold]")
    return "\n".join(lines)


# What each type of card does, with its rule (docs/rules/cube-creatures.md).
TYPE_TEXT = {
    "creature": "a creature: stays on your battlefield and fights; one a turn (CUBE-5, CUBE-22). Its power can be "
                "used once a game (CUBE-30, CUBE-32).",
    "upgrade": "an upgrade: attached under one of your creatures, at most one weapon and one armor each "
               "(CUBE-6, CUBE-27, CUBE-28).",
    "action": "an action card: played in your own turn, one a turn, then discarded (CUBE-7, CUBE-26).",
    "reaction": "a reaction card: played on anyone's turn, in answer to what it names, then discarded (CUBE-8, "
                "CUBE-47).",
}


def card_in_full(card: JSON) -> str:
    return f"{card_line(card)}\n  {TYPE_TEXT.get(card['type'], card['type'])}"


def card_words(text: str) -> str:
    """A card's id or name as typed: small letters, spaces for hyphens."""
    return " ".join(text.lower().replace("-", " ").replace("_", " ").split())


def describe(faces: tuple[JSON, ...], observation: JSON, word: str) -> str | None:
    """What the terminal shows for `cards` (the hand in full) or a card's name or id (any card of the set)."""
    wanted = card_words(word)
    if wanted in ("cards", "hand"):
        hand = observation.get("hand")
        if hand is None:
            return None
        return "\n".join(card_in_full(card) for card in hand) if hand else "Your hand is empty."
    for face in faces:
        if wanted in (card_words(face["id"]), card_words(face["name"])):
            return card_in_full(face)
    return None


TERMINAL_HELP = (
    "Cube Creatures:\n"
    "  cards             your hand, each card in full\n"
    "  card NAME         any card in full (e.g. 'card pixel-owl')\n"
    "  Battlefield spots: the Guard first, then spot 2, spot 3. Only the Guard can be attacked unless a card\n"
    "  says otherwise (CUBE-35); when it is defeated the creatures behind move up (CUBE-53).")
