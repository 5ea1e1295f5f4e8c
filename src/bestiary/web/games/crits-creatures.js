// Crit's Creatures' table: the board as SVG (your edge at the bottom) with every piece, the crowns and
// dropped items; a piece's card shows on hover or tap. Selecting a piece highlights the tiles it can
// reach and the pieces it can attack; tapping one of those moves or attacks. Dice rolls are spelt out.
import { headerTurn } from "/js/banner.js";
import { moveButton, otherMoves, plainWords, seatLabel, turnOwner } from "/js/table.js";

export const handlesActions = true;

const SVG = "http://www.w3.org/2000/svg";
const TILE = 32;
const SIDE_CLASS = ["cr-p1", "cr-p2"];
const PHASE_HINTS = {
  respond: "An attack is declared: before the dice, use an effect, deploy a Split Second card, or pass.",
  counter: "The piece held: counter-attack with its full attack, or not.",
  aim: "Choose a target for each attack die before any is rolled: tap a highlighted tile.",
  target: "Choose the tile: tap a highlighted one.",
  raise: "Choose the creature to bring back from the graveyard.",
};

let selected = null;  // the tile of the piece whose moves are shown; kept across updates while it can act
let lastDraw = null;  // the board and context of the latest draw, to redraw on a selection
let focusTile = null;  // the board's one tile in the Tab order (a roving focus: the arrow keys move it)

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const columnName = (column) => String.fromCharCode(65 + column);

function shortName(name) {
  const words = name.replaceAll("-", " ").split(/\s+/);
  return words.length > 1 ? (words[0][0] + words[1][0]).toUpperCase() : words[0].slice(0, 2);
}

// Each piece's label: its short name, numbered when its side has more than one of that name ("Gh1", "Gh2").
function pieceLabels(o) {
  const bySideAndName = new Map();
  for (const p of [...o.pieces].sort((a, b) => a.piece - b.piece)) {
    const key = `${p.side} ${p.name}`;
    bySideAndName.set(key, [...(bySideAndName.get(key) ?? []), p.piece]);
  }
  const labels = new Map();
  for (const group of bySideAndName.values()) {
    group.forEach((piece, index) => {
      const p = o.pieces.find((q) => q.piece === piece);
      labels.set(piece, shortName(p.name) + (group.length > 1 ? String(index + 1) : ""));
    });
  }
  return labels;
}

// The last move on the board, from the log: the event log reaches the page a few entries at a time, so the
// latest move is remembered between updates (a fresh page is sent the whole log).
let lastMove = null;  // { piece, from, to }
function noteLastMove(events) {
  for (const event of events) {
    const tiles = event.kind === "move" ? / moves ([A-Z]\d+) to ([A-Z]\d+)\.$/.exec(event.text) : null;
    if (tiles) lastMove = { piece: event.data.piece, from: tiles[1], to: tiles[2] };
  }
}

// Who attacks and who defends: the attack being resolved, or those declared while a response is decided.
function fightMarks(o) {
  const marks = new Map();
  for (const [attacker, target] of o.combat ? [[o.combat.attacker, o.combat.target]] : o.declared) {
    marks.set(attacker, "attacker");
    marks.set(target, "defender");
  }
  return marks;
}

function diceText(dice) {
  // "(2)D8" is two eight-sided dice
  const match = /^\((\d+)\)D(\d+)$/.exec(dice);
  if (!match) return dice;
  const count = Number(match[1]);
  return `${count === 1 ? "one" : count} ${match[2]}-sided ${count === 1 ? "die" : "dice"}`;
}

function pieceCard(o, ctx, p) {
  const { el } = ctx;
  const pieces = new Map(o.pieces.map((q) => [q.piece, q]));
  const lines = [];
  if (p.kind === "item") {
    lines.push(`Item (${p.type}), defence ${p.item_def}`);
    if (p.attack_bonus) lines.push(`+${p.attack_bonus} attack`);
    if (p.defence_bonus) lines.push(`+${p.defence_bonus} block`);
  } else {
    lines.push(p.kind === "titan" ? "Titan" : `${p.type}${p.royal ? ", may wear the crown" : ""}`);
    lines.push(`Move ${p.move} · range ${p.range}`);
    lines.push(`Attack ${p.attack}: ${diceText(p.attack)}`);
    lines.push(`Defence ${p.defence}: ${diceText(p.defence)}`);
    if (p.item !== null && pieces.has(p.item)) lines.push(`Holds ${pieces.get(p.item).name}`);
  }
  for (const effect of p.effects) {
    const detail = Object.entries(effect).filter(([key]) => key !== "keyword").map(([key, value]) => `${key} ${value}`);
    lines.push(`Effect: ${effect.keyword}${detail.length ? ` (${detail.join(", ")})` : ""}${p.used ? ", used" : ""}`);
  }
  if (p.turns_left) lines.push(`${p.turns_left} turn(s) left`);
  const king = o.kings.includes(p.piece);
  return el("div", { class: `cr-card ${SIDE_CLASS[p.side]}`, "data-piece": p.piece },
    el("div", { class: "cr-card-name" }, king ? "♛ " : "", p.name, p.kind === "item" ? "" : ` (${pieceLabels(o).get(p.piece)})`,
      king ? " · King" : ""),
    el("div", { class: "muted" }, `${ctx.seatName(p.side)} · ${p.tile ?? p.where}${p.moved ? " · moved this turn" : ""}`),
    el("ul", {}, lines.map((line) => el("li", {}, line))));
}

// Every legal action that concerns a tile, by what it does there. Handing the crown on is offered only
// once the King is selected, so that no stray tap gives it away.
function tileActions(legal, origin, kingTile) {
  const onTile = new Map();
  const origins = new Set();
  const add = (tile, action, kind) => { if (!onTile.has(tile)) onTile.set(tile, { action, kind }); };
  for (const action of legal) {
    const words = action.split(" ");
    if ((words[0] === "move" || words[0] === "attack") && words.length === 3) {
      origins.add(words[1]);
      if (words[1] === origin) add(words[2], action, words[0] === "attack" ? "cr-target" : "cr-reach");
    } else if (words[0] === "split" || words[0] === "use") origins.add(words[1]);
    else if (words[0] === "aim" || words[0] === "pincer") add(words[1], action, "cr-target");
    else if (action.startsWith("drop crown ") && kingTile) {
      origins.add(kingTile);
      if (origin === kingTile) add(words[2], action, "cr-drop");
    }
  }
  return { onTile, origins };
}

function kingTile(o, side) {
  const king = side === null ? undefined : o.pieces.find((p) => p.piece === o.kings[side]);
  return king?.tile ?? null;
}

function boardSvg(o, ctx, placed, info) {
  const { width, length, start_depth: depth } = o;
  const flipped = o.viewer === 1;  // each player sees their own edge at the bottom
  const x = (column) => (flipped ? width - 1 - column : column) * TILE + TILE;
  const y = (row) => (flipped ? row - 1 : length - row) * TILE;
  const { onTile, origins } = tileActions(ctx.view.legal_actions, selected, kingTile(o, ctx.me));
  focusTile = startingFocus(o, origins, onTile);
  // a standing piece hides a dropped item under it (CRITS-36), which then shows as a badge on the piece
  const dropped = new Set(o.pieces.filter((p) => p.where === "dropped").map((p) => p.tile));
  const at = new Map([...o.pieces.filter((p) => p.where === "dropped"), ...o.pieces.filter((p) => p.where === "board")]
    .map((p) => [p.tile, p]));
  const marks = fightMarks(o);
  const pieceNames = pieceLabels(o);
  const crowns = new Map(o.crowns.map((tile, side) => [tile, side]).filter(([tile]) => tile));
  const show = (p) => info.replaceChildren(pieceCard(o, ctx, p));
  const tiles = [];
  for (let row = 1; row <= length; row++) {
    for (let column = 0; column < width; column++) {
      const tile = `${columnName(column)}${row}`;
      const here = onTile.get(tile);
      const piece = at.get(tile);
      const zone = row <= depth ? " cr-zone1" : row > length - depth ? " cr-zone2" : "";
      const classes = [`cr-tile${zone}`, here?.kind, origins.has(tile) ? "cr-can" : "", tile === selected ? "cr-selected" : "",
        crowns.has(tile) ? "cr-crown-tile" : "", piece && marks.has(piece.piece) ? "cr-fight" : "",
        lastMove && (tile === lastMove.from || tile === lastMove.to) ? "cr-last-tile" : ""].filter(Boolean).join(" ");
      if (here) placed.add(here.action);
      tiles.push(svg("rect", { x: x(column), y: y(row), width: TILE, height: TILE, class: classes, "data-tile": tile,
        "data-action": here?.action, role: "button", tabindex: tile === focusTile ? "0" : "-1",
        "aria-label": tileName(o, ctx, tile, piece, here, origins), "aria-pressed": tile === selected ? "true" : undefined,
        onclick: () => tap(tile, here, origins, ctx), onmouseenter: piece ? () => show(piece) : null,
        onfocus: () => { focusTile = tile; if (piece) show(piece); } },
      svg("title", {}, here ? `${tile}: ${here.action}` : tile)));
      if (crowns.has(tile)) {
        tiles.push(svg("text", { x: x(column) + TILE / 2, y: y(row) + TILE * 0.72, class: "cr-crown", "pointer-events": "none" }, "♛"));
      }
      if (piece) tiles.push(pieceMark(o, piece, x(column), y(row), pieceNames, marks, dropped.has(tile)));
    }
  }
  const labels = [];
  for (let column = 0; column < width; column++) {
    labels.push(svg("text", { x: x(column) + TILE / 2, y: length * TILE + 14, class: "cr-label" }, columnName(column)));
  }
  for (let row = 1; row <= length; row++) {
    labels.push(svg("text", { x: TILE / 2, y: y(row) + TILE / 2 + 4, class: "cr-label" }, row));
  }
  // the red line runs between `row` and the row after it
  const redLine = (row) => svg("line", { x1: TILE, x2: TILE * (width + 1), y1: y(flipped ? row + 1 : row),
    y2: y(flipped ? row + 1 : row), class: "cr-red-line" });
  return svg("svg", { class: "cr-board", preserveAspectRatio: "xMidYMin meet", viewBox: `0 0 ${(width + 1) * TILE} ${length * TILE + 20}`, role: "group",
    "aria-label": `the ${width} by ${length} board: arrow keys move between tiles, Enter picks, Escape cancels`,
    onkeydown: (event) => boardKey(event, o, ctx, flipped, origins, onTile) },
  tiles, labels, redLine(depth), redLine(length - depth));
}

// What a screen reader says on a tile: where, who stands there, and what Enter does.
function tileName(o, ctx, tile, piece, here, origins) {
  const who = !piece ? "empty" : piece.where === "dropped" ? `dropped item ${piece.name}`
    : `${ctx.seatName(piece.side)}'s ${piece.name}${o.kings.includes(piece.piece) ? " (King)" : ""}`;
  let does = "";
  if (here) does = `: ${here.kind === "cr-target" ? "aim or attack here" : here.kind === "cr-drop" ? "hand the crown here" : "move here"} (${here.action})`;
  else if (tile === selected) does = ": selected, Escape to cancel";
  else if (origins.has(tile)) does = ": Enter shows its moves";
  return `${tile}, ${who}${does}`;
}

// The roving focus: the arrow keys move across the board as it is drawn (your edge at the bottom), Enter or
// Space picks the tile (as a tap does), Escape drops the selection.
function boardKey(event, o, ctx, flipped, origins, onTile) {
  const tile = event.target.dataset?.tile;
  if (!tile) return;
  const column = tile.charCodeAt(0) - 65;
  const row = Number(tile.slice(1));
  const screen = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] }[event.key];
  if (screen) {
    const [dx, dy] = flipped ? [-screen[0], -screen[1]] : screen;
    const next = `${columnName(Math.max(0, Math.min(o.width - 1, column + dx)))}${Math.max(1, Math.min(o.length, row + dy))}`;
    const target = event.currentTarget.querySelector(`[data-tile="${next}"]`);
    if (target) {
      event.currentTarget.querySelector(`[data-tile="${tile}"]`).setAttribute("tabindex", "-1");
      target.setAttribute("tabindex", "0");
      focusTile = next;
      target.focus();
    }
  } else if (event.key === "Enter" || event.key === " ") {
    tap(tile, onTile.get(tile), origins, ctx);
  } else if (event.key === "Escape" && selected) {
    selected = null;
    redraw();
  } else {
    return;
  }
  event.preventDefault();
}

// Where the roving focus starts: the tile it was on, else the selected piece, else a piece that can act.
function startingFocus(o, origins, onTile) {
  const onBoard = (tile) => tile && /^[A-Z]\d+$/.test(tile) && tile.charCodeAt(0) - 65 < o.width && Number(tile.slice(1)) <= o.length;
  if (onBoard(focusTile)) return focusTile;
  return selected ?? [...origins][0] ?? [...onTile.keys()][0] ?? "A1";
}

// A piece on its tile. The side shows in its shape and border as well as its colour (P1 a round token with
// a solid border, P2 a square one with a dashed border); the King wears a crown mark; the attacker, the
// defender and the piece that moved last carry a badge.
const BADGES = { attacker: "⚔", defender: "◎" };
function pieceMark(o, piece, left, top, labels, marks, itemUnder = false) {
  const centre = [left + TILE / 2, top + TILE / 2];
  if (piece.where === "dropped") {
    const half = TILE / 2 - 7;
    return svg("g", { class: "cr-piece cr-item", "data-piece": piece.piece, "pointer-events": "none" },
      svg("polygon", { points: [[0, -half], [half, 0], [0, half], [-half, 0]].map(([dx, dy]) => `${centre[0] + dx},${centre[1] + dy}`).join(" ") }),
      svg("text", { x: centre[0], y: centre[1] + 4 }, "i"));
  }
  const king = o.kings.includes(piece.piece);
  const mark = marks.get(piece.piece);
  const last = lastMove?.piece === piece.piece;
  const label = labels.get(piece.piece);
  const classes = ["cr-piece", SIDE_CLASS[piece.side], king ? "cr-king" : "", mark ? `cr-${mark}` : "", last ? "cr-last" : ""];
  return svg("g", { class: classes.filter(Boolean).join(" "), "data-piece": piece.piece, "data-side": piece.side,
    "data-label": label, "data-mark": mark, "pointer-events": "none" },
  piece.side === 0 ? svg("circle", { cx: centre[0], cy: centre[1], r: TILE / 2 - 3 })
    : svg("rect", { x: left + 3, y: top + 3, width: TILE - 6, height: TILE - 6, rx: 4 }),
  svg("text", { x: centre[0], y: centre[1] + 4, class: label.length > 2 ? "cr-long" : null }, label),
  king ? svg("text", { x: left + TILE - 5, y: top + 9, class: "cr-king-mark" }, "♛") : null,
  mark ? svg("text", { x: left + 5, y: top + 9, class: "cr-badge" }, BADGES[mark]) : null,
  last ? svg("circle", { cx: left + TILE - 5, cy: top + TILE - 5, r: 3, class: "cr-last-dot" }) : null,
  piece.where === "board" && itemUnder ? svg("polygon", { class: "cr-item-under", fill: "#c99a06", stroke: "#1f2a24",
    points: [[0, -5], [5, 0], [0, 5], [-5, 0]].map(([dx, dy]) => `${left + 6 + dx},${top + TILE - 6 + dy}`).join(" ") }) : null);
}

// "deploy wraith" reads "Deploy Wraith": the card named as the card list spells it
function cardWords(o, action) {
  const deploy = /^deploy (\S+)$/.exec(action);
  const card = deploy && o.pieces.find((p) => p.where === "reserve" && p.id === deploy[1]);
  return card ? `Deploy ${card.name}` : plainWords(action);
}

function tap(tile, here, origins, ctx) {
  if (here) {
    selected = null;
    ctx.act(here.action);
    return;
  }
  selected = origins.has(tile) && tile !== selected ? tile : null;
  redraw();
}

function redraw() {
  if (!lastDraw) return;
  const [board, ctx] = lastDraw;
  const hadFocus = board.contains(document.activeElement);
  board.replaceChildren();
  render(board, ctx);
  if (hadFocus) board.querySelector(`[data-tile="${focusTile}"]`)?.focus();  // the keyboard stays on the board
}

function combat(o, ctx) {
  const { el } = ctx;
  const pieces = new Map(o.pieces.map((p) => [p.piece, p]));
  const parts = [];
  // CRITS-45: the roll-off, once a die is rolled (-1: not rolled yet; a game with a set first player has none)
  if (o.first_rolls.some((r) => r > 0) && o.turn <= 1) {
    const rolls = o.first_rolls.map((r, s) => `${ctx.seatName(s)} ${r > 0 ? `rolled ${r}` : "has not rolled yet"}`);
    parts.push(el("p", {}, `Who goes first: ${rolls.join(", ")}; the higher roll starts.`));
  }
  for (const [attacker, target, dice] of o.declared) {
    const a = pieces.get(attacker);
    const t = pieces.get(target);
    if (a && t) parts.push(el("p", {}, `Declared: ${a.name} (${ctx.seatName(a.side)}) attacks ${t.name} with ${dice} ${dice === 1 ? "die" : "dice"}.`));
  }
  const c = o.combat;
  if (c) {
    const a = pieces.get(c.attacker);
    const t = pieces.get(c.target);
    const rolled = c.rolled.length ? c.rolled.join(" + ") : "none yet";
    const toRoll = c.to_roll.length ? c.to_roll.map((sides) => `a ${sides}-sided die`).join(", ") : "nothing";
    parts.push(el("div", { class: "cr-combat" },
      el("strong", {}, `${c.counter ? "Counter-attack" : "Attack"}: ${a?.name ?? "?"} on ${t?.name ?? "?"}`),
      el("p", {}, `${c.stage === "attack" ? "Attack" : "Defence"} dice rolled so far: ${rolled}; still to roll: ${toRoll}.`),
      c.attack_total !== null ? el("p", {}, `The attack totals ${c.attack_total}; the defence roll is set against it.`) : null));
  }
  if (o.aims.length) parts.push(el("p", {}, `Dice aimed at: ${o.aims.join(", ")}`));
  return parts.length ? el("section", { class: "cr-dice" }, el("h3", {}, "Dice"), parts) : null;
}

function sides(o, ctx) {
  const { el } = ctx;
  return el("div", { class: "cr-sides" }, [0, 1].map((side) => {
    const king = o.kings[side] === null ? null : o.pieces.find((p) => p.piece === o.kings[side]);
    const fallen = o.pieces.filter((p) => p.side === side && p.where === "graveyard").map((p) => p.name);
    const held = o.pieces.filter((p) => p.side === side && p.where === "reserve").map((p) => p.name);
    return el("section", { class: `cr-side ${SIDE_CLASS[side]}${side === o.player ? " cr-active" : ""}` },
      el("h3", {}, seatLabel(ctx, side), side === o.player && o.phase !== "over" ? turnOwner(ctx, side) : ""),
      el("p", {}, king ? `♛ King: ${king.name} on ${king.tile ?? king.where}` : "No King: the crown lies on the board",
        o.kingless[side] ? ` (${o.kingless[side]} turn${o.kingless[side] === 1 ? "" : "s"} without a King; the third loses)` : ""),
      el("p", { class: "muted" }, `${o.reserve[side]} card${o.reserve[side] === 1 ? "" : "s"} held off the board`,
        held.length ? `: ${held.join(", ")}` : ""),
      fallen.length ? el("p", { class: "muted" }, `Graveyard: ${fallen.join(", ")}`) : null);
  }));
}

export function render(board, ctx) {
  const { el, view } = ctx;
  const o = view.observation;
  if (lastDraw?.[1].view !== view) noteLastMove(view.events ?? []);  // a redraw on a selection brings no news
  lastDraw = [board, ctx];
  const placed = new Set();
  if (selected && !tileActions(view.legal_actions, null, kingTile(o, ctx.me)).origins.has(selected)) selected = null;
  const info = el("div", { class: "cr-info" }, el("p", { class: "muted" },
    "Hover over or tap a piece to see its card. Tap one of your pieces to see where it can go."));
  const chosen = selected && o.pieces.find((p) => p.tile === selected && p.where === "board");
  const pieceMoves = selected ? view.legal_actions.filter((a) => a === `use ${selected}` || a === `use ${selected} item` || a === `split ${selected}`) : [];
  if (chosen) {
    info.replaceChildren(pieceCard(o, ctx, chosen));
    if (pieceMoves.length) {
      info.append(el("div", { class: "actions" }, pieceMoves.map((a) =>
        moveButton(ctx, placed, a, a.startsWith("split") ? "Split the dice" : a.endsWith("item") ? "Use the item" : "Use the effect", "",
        `${a.startsWith("split") ? "Split the dice of" : a.endsWith("item") ? "Use the item of" : "Use the effect of"} ${chosen.name}`))));
    }
  }
  const boardImage = boardSvg(o, ctx, placed, info);
  // a piece's moves, attacks and effects are offered on the board once it is selected, not as buttons
  for (const action of view.legal_actions) {
    if (/^(move|attack) \S+ \S+$|^(use|split|drop crown) /.test(action)) placed.add(action);
  }
  const hint = o.next_to_place !== null
    ? `Choose a free tile behind your red line for ${o.pieces.find((p) => p.piece === o.next_to_place)?.name ?? "the next piece"}.`
    : PHASE_HINTS[o.phase];
  const over = o.phase === "over"
    ? el("p", { class: "cr-final" }, `The game ended: ${o.reason}.`) : null;
  board.append(el("div", { class: "cr-layout" }, ...[
    el("div", { class: "cr-header" },
      el("h2", {}, `Turn ${Math.min(o.turn, o.turn_limit)} of ${o.turn_limit}`), headerTurn(ctx),
      o.phase === "over" ? null : el("span", { class: "muted" },
        `${o.moves_made} of 5 moves made${o.attacked ? " · attacked" : ""}`)),
    over,
    hint && o.to_act.includes(ctx.me) ? el("p", { class: "cr-hint" }, hint) : null,
    otherMoves(ctx, placed, "Your moves", (action) => cardWords(o, action)),
    el("div", { class: "cr-board-wrap" }, boardImage),
    el("div", { class: "cr-aside" }, info, combat(o, ctx), sides(o, ctx),
        el("p", { class: "muted cr-legend" }, "● round, solid border: P1 · ■ square, dashed border: P2 · ♛ in a corner: the King, on a tile: a fallen crown · ",
          "⚔ the attacker · ◎ the defender · a dot and outlined tiles: the last move · i: a dropped item (a small diamond on a piece: lying under it) · red lines: the start zones. ",
          "Green: where the selected piece can go · red: what it can attack or aim at · gold: where the King can hand on the crown."))].filter(Boolean)));
}

// The table in words (js/words.js): the turn, each side, the dice, and the board row by row from your edge.
export function words(o, ctx) {
  const pieces = new Map(o.pieces.map((p) => [p.piece, p]));
  const who = (p) => `${ctx.seatName(p.side)}'s ${p.name}${o.kings.includes(p.piece) ? " (King)" : ""}`
    + (p.item !== null && pieces.has(p.item) ? ` holding ${pieces.get(p.item).name}` : "");
  const now = [
    `Turn ${Math.min(o.turn, o.turn_limit)} of ${o.turn_limit}${o.phase === "over" ? `: the game ended, ${o.reason}` : `, ${ctx.seatName(o.player)}'s`}.`,
    o.phase === "over" ? null : `${o.moves_made} of 5 moves made${o.attacked ? ", attacked" : ""}; phase: ${o.phase}.`,
    o.next_to_place !== null ? `To place next, behind your red line: ${pieces.get(o.next_to_place)?.name ?? "a piece"}.` : null,
  ];
  const dice = combat(o, ctx);
  const sections = [["Now", now]];
  if (dice) sections.push(["Dice", [...dice.children].slice(1).map((part) => part.textContent)]);
  for (const side of [0, 1]) {
    const king = o.kings[side] === null ? null : pieces.get(o.kings[side]);
    const held = o.pieces.filter((p) => p.side === side && p.where === "reserve").map((p) => p.name);
    const fallen = o.pieces.filter((p) => p.side === side && p.where === "graveyard").map((p) => p.name);
    sections.push([seatLabel(ctx, side), [
      king ? `King: ${king.name} on ${king.tile ?? king.where}.` : "No King: the crown lies on the board.",
      o.kingless[side] ? `${o.kingless[side]} turn${o.kingless[side] === 1 ? "" : "s"} without a King; the third loses.` : null,
      `${o.reserve[side]} card${o.reserve[side] === 1 ? "" : "s"} held off the board${held.length ? `: ${held.join(", ")}` : ""}.`,
      fallen.length ? `Graveyard: ${fallen.join(", ")}.` : null]]);
  }
  const rows = Array.from({ length: o.length }, (_, i) => (o.viewer === 1 ? o.length - i : i + 1));
  const zone = (row) => (row <= o.start_depth ? " (P1's start zone)" : row > o.length - o.start_depth ? " (P2's start zone)" : "");
  const board = rows.map((row) => {
    const here = o.pieces.filter((p) => (p.where === "board" || p.where === "dropped") && Number(p.tile?.slice(1)) === row)
      .sort((a, b) => a.tile.localeCompare(b.tile))
      .map((p) => `${p.tile} ${p.where === "dropped" ? `dropped item ${p.name}` : who(p)}`);
    const crowns = o.crowns.map((tile, side) => (tile && Number(tile.slice(1)) === row ? `${tile} ${ctx.seatName(side)}'s fallen crown` : null))
      .filter(Boolean);
    const all = [...here, ...crowns];
    return all.length ? `Row ${row}${zone(row)}: ${all.join("; ")}.` : null;
  });
  sections.push([`The ${o.width} by ${o.length} board, from your edge (columns A to ${columnName(o.width - 1)})`,
    board.some(Boolean) ? board : ["No piece on the board yet."]]);
  return sections;
}

// In words, a piece's moves and attacks are gathered under it: "Ghoul on D3: D4, D5, Attack E4".
export function moveWords(action, o) {
  const words = /^(move|attack) (\S+) (\S+)$/.exec(action);
  if (!words) return null;
  const [, verb, from, to] = words;
  const standing = (tile) => o.pieces.find((p) => p.tile === tile && p.where === "board");
  const name = standing(from)?.name ?? "the piece";
  return verb === "move"
    ? { group: `${name} on ${from}`, label: to, name: `Move ${name} from ${from} to ${to}` }
    : { group: `${name} on ${from}`, label: `Attack ${to}`, name: `${name} on ${from}: attack ${standing(to)?.name ?? "the piece"} on ${to}` };
}
