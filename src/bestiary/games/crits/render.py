"""What a player sees of Crit's Creatures: the board drawn as text (rich markup) with a card list."""

from __future__ import annotations

from rich.markup import escape

from bestiary.core.api import JSON
from bestiary.games.crits.effects import ACTIVATED

SIDE_STYLE = ("cyan", "magenta")
PHASE_HINTS = {
    "respond": "an attack is declared; before the dice, use an effect, deploy a Split Second card, or pass.",
    "counter": "your piece held: counter-attack with its full attack, or not.",
    "aim": "choose a target for each attack die before any is rolled.",
    "target": "choose the tile.",
    "raise": "choose the creature to bring back from your graveyard.",
}


# How to read a card's line (`cards`, a piece's look), with the rules behind each part.
LEGEND = (
    "How to read a card: 'undead, crown; M:3 (2)D6 Def:(2)D6 range 3; kill 4'\n"
    "  undead        the creature's type; items only go to creatures of their type (CRITS-20)\n"
    "  crown / X     crown: may be King and hold an item; X: never (CRITS-34, CRITS-39)\n"
    "  M:3           moves up to 3 tiles a turn; a diagonal step costs 2 (CRITS-6, CRITS-7)\n"
    "  (2)D6         attacks by rolling two six-sided dice and adding them (CRITS-8)\n"
    "  Def:(2)D6     blocks by rolling two six-sided dice; the attack must roll higher (CRITS-9, CRITS-10)\n"
    "  range 3       attacks along its row or column up to 3 tiles, nothing in between (CRITS-51)\n"
    "  kill 4        an effect (kill, sacrifice, necro...) and its range in tiles (CRITS-24 to CRITS-28)\n"
    "  item, Def 10  an item on the board: an attack roll of 10 or more destroys it (CRITS-32)")


def column_name(column: int) -> str:
    return chr(ord("A") + column)


def short_name(name: str) -> str:
    words = name.replace("-", " ").split()
    return (words[0][0] + words[1][0]).upper() if len(words) > 1 else words[0][:2].capitalize()


def piece_line(p: JSON, kings: list[int | None], pieces: dict[int, JSON], labels: dict[int, str]) -> str:
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
    return f"  {where:>4} {labels[p['piece']]:<4} {escape(p['name'])}{tag}: {escape(stats)}"


def window_effects(o: JSON, player: int, labels: dict[int, str]) -> list[str]:
    """CRITS-52: what the player answering an attack can use now, named: each effect with a target in reach
    (the observation's `window_effects`) and each Split Second card held off the board."""
    pieces = {p["piece"]: p for p in o["pieces"]}
    out = []
    for piece in o.get("window_effects", []):
        p = pieces[piece]
        holder = pieces[p["holder"]] if p["where"] == "equipped" else p
        for effect in p["effects"]:
            if effect["keyword"] in ACTIVATED:
                reach = f", range {effect['range']}" if "range" in effect else ""
                held = " item" if p["where"] == "equipped" else ""
                out.append(f"use {holder['tile']}{held}: {labels[piece]} {p['name']}'s {effect['keyword']}{reach}")
    for p in o["pieces"]:
        if p["side"] == player and p["where"] == "reserve" and any(e["keyword"] == "split-second"
                                                                   for e in p["effects"]):
            out.append(f"deploy {p['id']}: {p['name']} enters play behind your red line")
    return out


def piece_labels(pieces: list[JSON]) -> dict[int, str]:
    """A label per piece, unique and readable without colour: P1's in capitals, P2's in small letters, copies
    (and different cards sharing initials) numbered in army order: GK1, GK2 for P1's Grave Knights, bs1 for a
    P2 Briar Sprite."""
    groups: dict[tuple[int, str], list[int]] = {}
    for p in sorted(pieces, key=lambda p: p["piece"]):
        groups.setdefault((p["side"], short_name(p["name"]).upper()), []).append(p["piece"])
    labels = {}
    for (side, base), members in groups.items():
        for number, piece in enumerate(members, start=1):
            label = base + (str(number) if len(members) > 1 else "")
            labels[piece] = label if side == 0 else label.lower()
    return labels


def board_rows(o: JSON, occupied: set[int]) -> list[int | tuple[int, int]]:
    """The rows to draw, top (the last row) first: every row with something on it, the rows beside each
    red line, and runs of empty rows folded into one (first, last) pair, so the board fits a terminal."""
    length, depth = o["length"], o["start_depth"]
    keep = occupied | {1, length, depth, depth + 1, length - depth, length - depth + 1}
    out: list[int | tuple[int, int]] = []
    row = length
    while row >= 1:
        if row in keep:
            out.append(row)
            row -= 1
            continue
        last = row
        while row >= 1 and row not in keep:
            row -= 1
        first = row + 1
        out.append((first, last) if last > first else first)
    return out


def legend(o: JSON, side: int, labels: dict[int, str]) -> str:
    """One side's labels and card names, copies together: 'GK1-2 Grave Knight, GH1-3 Ghoul, ...'."""
    names: dict[str, list[str]] = {}
    for p in o["pieces"]:
        if p["side"] == side and p["where"] in ("board", "dropped", "reserve", "waiting"):
            names.setdefault(p["name"], []).append(labels[p["piece"]])
    return ", ".join(f"{'/'.join(found)} {name}" for name, found in names.items())


def cards_text(observation: JSON) -> str:
    """Every card in play, side by side, with its label: what `cards` shows in the terminal."""
    o = observation
    pieces = {p["piece"]: p for p in o["pieces"]}
    labels = piece_labels(o["pieces"])
    lines = []
    for side in (0, 1):
        lines.append(f"[{SIDE_STYLE[side]}]P{side + 1}[/{SIDE_STYLE[side]}]")
        for p in o["pieces"]:
            if p["side"] == side and p["where"] in ("board", "dropped", "reserve", "waiting"):
                lines.append(piece_line(p, o["kings"], pieces, labels))
        fallen = [escape(p["name"]) for p in o["pieces"] if p["side"] == side and p["where"] == "graveyard"]
        if fallen:
            lines.append("  graveyard: " + ", ".join(fallen))
    return "\n".join(lines)


def card_words(text: str) -> str:
    return " ".join(text.lower().replace("-", " ").replace("_", " ").split())


def describe(observation: JSON, word: str, legal: list[str]) -> str | None:
    """What the terminal shows for `cards` (every card) or `legend`, for a card's name (every piece of that
    card), or for a tile or a piece's label (B3, GH1): the piece there with its card, and the board with its
    legal moves (+) and attacks (x) marked."""
    o = observation
    if word.lower() == "cards":
        return cards_text(o) + "\n" + escape(LEGEND)
    if word.lower() == "legend":
        return escape(LEGEND)
    named = [p for p in o["pieces"] if card_words(word) in (card_words(p["id"]), card_words(p["name"]))]
    if named:
        pieces = {p["piece"]: p for p in o["pieces"]}
        labels = piece_labels(o["pieces"])
        return "\n".join([*(piece_line(p, o["kings"], pieces, labels) for p in named), escape(LEGEND)])
    pieces = {p["piece"]: p for p in o["pieces"]}
    labels = piece_labels(o["pieces"])
    by_label = {label: piece for piece, label in labels.items()}
    if word in by_label or word.upper() in o_tiles(o):
        chosen = by_label.get(word)
        tile = pieces[chosen]["tile"] if chosen is not None else word.upper()
    else:
        folded = [piece for label, piece in by_label.items() if label.lower() == word.lower()]
        if len(folded) != 1:
            return None
        tile = pieces[folded[0]]["tile"]
    if tile is None:  # a piece off the board
        chosen = by_label.get(word)
        return piece_line(pieces[chosen], o["kings"], pieces, labels) if chosen is not None else None
    lines = [piece_line(p, o["kings"], pieces, labels) for p in o["pieces"]
             if p["tile"] == tile and p["where"] in ("board", "dropped")]
    if tile in o["crowns"]:
        lines.append(f"  {tile:>4} the fallen crown of P{o['crowns'].index(tile) + 1}")
    marks: dict[str, str] = {}
    for text in legal:
        words = text.split()
        if words[0] in ("move", "attack") and len(words) == 3 and words[1] == tile:
            marks[words[2]] = "+" if words[0] == "move" else "x"
    if marks:
        lines += board_lines(o, labels, marks)
        moves = sum(1 for m in marks.values() if m == "+")
        lines.append(f"From {tile}: {moves} move(s) (+) and {len(marks) - moves} attack(s) (x): "
                     f"type e.g. 'move {tile} {next(iter(marks))}'.")
    elif lines:
        lines.append(f"Nothing can move or attack from {tile} now.")
    return "\n".join(lines) or None


def o_tiles(o: JSON) -> set[str]:
    return {f"{column_name(c)}{r}" for c in range(o["width"]) for r in range(1, o["length"] + 1)}


def board_lines(o: JSON, labels: dict[int, str], marks: dict[str, str]) -> list[str]:
    """The board, row by row (empty runs folded), with `marks` (tile: "+" a move, "x" an attack) drawn on."""
    width, length, depth = o["width"], o["length"], o["start_depth"]
    at: dict[str, JSON] = {p["tile"]: p for p in o["pieces"] if p["where"] == "board"}
    dropped = {p["tile"] for p in o["pieces"] if p["where"] == "dropped"}
    crowns = {tile: side for side, tile in enumerate(o["crowns"]) if tile}
    lines = ["     " + "".join(f" {column_name(c)}  " for c in range(width))]
    occupied = {int(tile[1:]) for tile in set(at) | dropped | set(crowns) | set(marks)}
    for row in board_rows(o, occupied):
        if isinstance(row, tuple):
            lines.append(f"[dim]   :  rows {row[0]}-{row[1]} empty[/dim]")
            continue
        cells = []
        for column in range(width):
            tile = f"{column_name(column)}{row}"
            piece, mark = at.get(tile), marks.get(tile)
            if piece is not None:
                style = SIDE_STYLE[piece["side"]]
                # `i` before a label: a dropped item lies under the piece (CRITS-36); the King's `*` comes first
                king = mark or ("*" if piece["piece"] in o["kings"] else "i" if tile in dropped else " ")
                cells.append(f"[{style}]{king}{labels[piece['piece']]:<3}[/{style}]")
            elif mark is not None:
                cells.append(f"[bold green] {mark}  [/bold green]")
            elif tile in crowns:
                cells.append(f"[yellow] C{crowns[tile] + 1} [/yellow]")
            elif tile in dropped:
                cells.append("[yellow] i  [/yellow]")
            else:
                cells.append("[dim] .  [/dim]")
        lines.append(f"  {row:>2} " + "".join(cells))
        if row in (length - depth + 1, depth + 1):
            lines.append("     " + "[red]" + "-" * (4 * width) + "[/red]")
    return lines


def render(observation: JSON) -> str:
    o = observation
    pieces = {p["piece"]: p for p in o["pieces"]}
    kings = o["kings"]
    labels = piece_labels(o["pieces"])
    lines = [f"[bold]Crit's Creatures[/bold] - turn {min(o['turn'], o['turn_limit'])} of {o['turn_limit']}, "
             f"[{SIDE_STYLE[o['player']]}]P{o['player'] + 1}[/{SIDE_STYLE[o['player']]}] to play"
             f" ({o['moves_made']} of 5 moves made{', attacked' if o['attacked'] else ''})"]
    lines += board_lines(o, labels, {})
    lines.append("[dim]P1 in CAPITALS, P2 in small letters; * the King; C1/C2 a fallen crown; i a dropped item (before "
                 "a label: lying under that piece); "
                 "red lines: the start zones. Type a tile or a label (B3, GH1) for that piece and its moves, 'cards' "
                 "for every card."
                 "[/dim]")
    for side in (0, 1):
        style = SIDE_STYLE[side]
        king = "no King" if kings[side] is None else f"King {labels[kings[side]]} " + pieces[kings[side]]["name"]
        if o["kingless"][side]:
            king += f" ({o['kingless'][side]} turn(s) without a King; the third loses)"
        you = " (you)" if o["viewer"] == side else ""
        lines.append(f"[{style}]P{side + 1}{you}[/{style}]: {escape(king)}; {o['reserve'][side]} card(s) held off "
                     "the board")
        lines.append("  " + escape(legend(o, side, labels)))
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
    if o["phase"] == "respond" and o["to_act"]:
        lines += [f"  {escape(text)}" for text in window_effects(o, o["to_act"][0], labels)]
    if o["aims"]:
        lines.append("Dice aimed at: " + ", ".join(o["aims"]))
    if o["phase"] == "over":
        result = "a draw" if o["winner"] is None else f"P{o['winner'] + 1} wins"
        lines.append(f"[bold]Game over: {result}[/bold] ({escape(o['reason'])}).")
    return "\n".join(lines)


TERMINAL_HELP = (
    "Crit's Creatures:\n"
    "  B3 / GK1          a tile or a piece's label: the piece, and the board with its moves (+) and attacks (x)\n"
    "  cards             every card in play, with its label\n"
    "  card NAME         every piece of a card (e.g. 'card ghoul')\n"
    "  legend            how to read a card's line\n"
    "  Labels: P1's pieces in capitals (GK1), P2's in small letters (gk1); * marks a King.\n"
    + LEGEND)
