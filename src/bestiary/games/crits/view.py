"""What a player sees of Crit's Creatures: the board drawn as text (rich markup) with a card list."""

from __future__ import annotations

from rich.markup import escape

from bestiary.core.api import JSON

SIDE_STYLE = ("cyan", "magenta")
PHASE_HINTS = {
    "respond": "an attack is declared; before the dice, use an effect, deploy a Split Second card, or pass.",
    "counter": "your piece held: counter-attack with its full attack, or not.",
    "aim": "choose a target for each attack die before any is rolled.",
    "target": "choose the tile.",
    "raise": "choose the creature to bring back from your graveyard.",
}


def column_name(column: int) -> str:
    return chr(ord("A") + column)


def short_name(name: str) -> str:
    words = name.replace("-", " ").split()
    return (words[0][0] + words[1][0]).upper() if len(words) > 1 else words[0][:2].capitalize()


def piece_line(p: JSON, kings: list[int | None], pieces: dict[int, JSON]) -> str:
    tags = []
    if p["kind"] == "item":
        stats = f"item ({p['type']}), Def {p['item_def']}"
        bonus = [f"+{p['attack_bonus']} attack" if p["attack_bonus"] else "",
                 f"+{p['defence_bonus']} block" if p["defence_bonus"] else ""]
        stats += "".join(f", {b}" for b in bonus if b)
    else:
        crown = "crown" if p["royal"] else "X"
        kind = "Titan" if p["kind"] == "titan" else f"{p['type']}, {crown}"
        stats = f"{kind}; M:{p['move']} {p['attack']} Def:{p['defence']}"
        if p["range"] > 1:
            stats += f" range {p['range']}"
        if p["item"] is not None:
            stats += f"; holds {pieces[p['item']]['name']}"
        if p["piece"] in kings:
            tags.append("KING")
        if p.get("moved"):
            tags.append("moved")
    effects = [e["keyword"] + "".join(f" {v}" for k, v in e.items() if k != "keyword") for e in p["effects"]]
    if effects:
        stats += "; " + ", ".join(effects) + (" (used)" if p["used"] else "")
    if "turns_left" in p:
        tags.append(f"{p['turns_left']} turn(s) left")
    where = p["tile"] or p["where"]
    tag = f" [bold]{' '.join(tags)}[/bold]" if tags else ""
    return f"  {where:>4} {short_name(p['name'])} {escape(p['name'])}{tag}: {escape(stats)}"


def render(observation: JSON) -> str:
    o = observation
    width, length, depth = o["width"], o["length"], o["start_depth"]
    pieces = {p["piece"]: p for p in o["pieces"]}
    at: dict[str, JSON] = {p["tile"]: p for p in o["pieces"] if p["where"] == "board"}
    dropped = {p["tile"] for p in o["pieces"] if p["where"] == "dropped"}
    crowns = {tile: side for side, tile in enumerate(o["crowns"]) if tile}
    kings = o["kings"]
    lines = [f"[bold]Crit's Creatures[/bold] - turn {min(o['turn'], o['turn_limit'])} of {o['turn_limit']}, "
             f"[{SIDE_STYLE[o['player']]}]P{o['player'] + 1}[/{SIDE_STYLE[o['player']]}] to play"
             f" ({o['moves_made']} of 5 moves made{', attacked' if o['attacked'] else ''})"]
    header = "     " + "".join(f" {column_name(c)} " for c in range(width))
    lines.append(header)
    for row in range(length, 0, -1):
        cells = []
        for column in range(width):
            tile = f"{column_name(column)}{row}"
            piece = at.get(tile)
            if piece is not None:
                style = SIDE_STYLE[piece["side"]]
                bold = "bold reverse " if piece["piece"] in kings else ""
                cells.append(f"[{bold}{style}]{short_name(piece['name']):<3}[/{bold}{style}]")
            elif tile in crowns:
                cells.append(f"[yellow]C{crowns[tile] + 1} [/yellow]")
            elif tile in dropped:
                cells.append("[yellow]i  [/yellow]")
            else:
                cells.append("[dim].  [/dim]")
        lines.append(f"  {row:>2} " + "".join(cells))
        if row in (length - depth + 1, depth + 1):
            lines.append("     " + "[red]" + "-" * (3 * width) + "[/red]")
    lines.append("[dim]Reversed: the King. C1/C2: a fallen crown. i: a dropped item. Red lines: the start zones.[/dim]")
    for side in (0, 1):
        style = SIDE_STYLE[side]
        king = "no King" if kings[side] is None else "King " + pieces[kings[side]]["name"]
        if o["kingless"][side]:
            king += f" ({o['kingless'][side]} turn(s) without a King; the third loses)"
        you = " (you)" if o["viewer"] == side else ""
        lines.append(f"[{style}]P{side + 1}{you}[/{style}]: {escape(king)}; {o['reserve'][side]} card(s) held off "
                     "the board")
        for p in o["pieces"]:
            if p["side"] == side and p["where"] in ("board", "equipped", "dropped", "reserve", "waiting"):
                if p["where"] == "equipped":
                    continue
                lines.append(piece_line(p, kings, pieces))
        fallen = [escape(p["name"]) for p in o["pieces"] if p["side"] == side and p["where"] == "graveyard"]
        if fallen:
            lines.append("  graveyard: " + ", ".join(fallen))
    combat = o["combat"]
    if combat:
        attacker, target = pieces[combat["attacker"]], pieces[combat["target"]]
        word = "Counter-attack" if combat["counter"] else "Attack"
        rolled = " + ".join(str(v) for v in combat["rolled"]) or "-"
        lines.append(f"{word}: {escape(attacker['name'])} on {escape(target['name'])}; {combat['stage']} dice "
                     f"rolled: {rolled}; still to roll: {', '.join(f'd{d}' for d in combat['to_roll']) or '-'}")
        if combat["attack_total"] is not None:
            lines.append(f"  attack total {combat['attack_total']}")
    for attacker, target, dice in o["declared"]:
        lines.append(f"Declared: {escape(pieces[attacker]['name'])} (P{pieces[attacker]['side'] + 1}) attacks "
                     f"{escape(pieces[target]['name'])} with {dice} {'die' if dice == 1 else 'dice'}.")
    hint = PHASE_HINTS.get(o["phase"])
    if o["next_to_place"] is not None:
        hint = f"choose a free tile behind your red line for {escape(pieces[o['next_to_place']]['name'])}."
    if hint and o["to_act"]:
        lines.append(f"[bold]P{o['to_act'][0] + 1}[/bold]: {hint}")
    if o["aims"]:
        lines.append("Dice aimed at: " + ", ".join(o["aims"]))
    if o["phase"] == "over":
        result = "a draw" if o["winner"] is None else f"P{o['winner'] + 1} wins"
        lines.append(f"[bold]Game over: {result}[/bold] ({escape(o['reason'])}).")
    return "\n".join(lines)
