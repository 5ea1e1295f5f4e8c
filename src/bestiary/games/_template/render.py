"""Pebbles in the terminal: the pile and whose turn it is, in the terminal's console markup."""

from __future__ import annotations

from bestiary.core.api import JSON

TERMINAL_HELP = "Type 'take 1', 'take 2' or 'roll' (the die takes 1 to 3). The last pebble wins."


def render(observation: JSON) -> str:
    pile = observation["pile"]
    lines = [f"[bold]{pile}[/bold] pebble{'s' if pile != 1 else ''} left  " + "o" * min(pile, 40)]
    if observation["winner"] is not None:
        lines.append(f"P{observation['winner'] + 1} took the last pebble.")
    elif observation["rolling"]:
        lines.append(f"P{observation['to_move'] + 1} rolls the die...")
    else:
        lines.append(f"[cyan]P{observation['to_move'] + 1}[/cyan] to move")
    return "\n".join(lines)
