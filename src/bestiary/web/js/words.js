// The table in words (as lichess's blind mode gives): the board and the hands as headed lists of plain
// sentences, read from the same view the pictures are drawn from, with every legal move as a button. A game's
// module says what its table holds (`words(observation, ctx)`: [heading, [sentence, ...]] pairs); a game
// without one is listed key by key.
import { plainWords } from "/js/table.js";

// Card ids in an action's text ("play c12") become the cards' names ("Play Crate Mole"), seats their names.
function namesOfIds(observation) {
  const names = new Map();
  const visit = (value) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === "object") {
      if (typeof value.id === "string" && typeof value.name === "string" && !names.has(value.id)) names.set(value.id, value.name);
      Object.values(value).forEach(visit);
    }
  };
  visit(observation);
  return names;
}

export function actionWords(action, observation, seatName) {
  const names = namesOfIds(observation);
  const words = action.split(" ").map((word) => {
    if (names.has(word)) return names.get(word);
    const seat = /^P(\d+)$/.exec(word);
    return seat ? seatName(Number(seat[1]) - 1) : word;
  }).join(" ");
  return plainWords(words);
}

function humanize(key) {
  const text = String(key).replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function flat(value) {
  if (value === null || value === undefined) return "none";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.length ? value.map(flat).join("; ") : "none";
  if (typeof value === "object") return Object.entries(value).map(([k, v]) => `${humanize(k).toLowerCase()} ${flat(v)}`).join(", ");
  return String(value);
}

// Any game: one sentence per key of its observation.
export function genericWords(observation) {
  return [["The table", Object.entries(observation).map(([key, value]) => `${humanize(key)}: ${flat(value)}.`)]];
}

// Every legal move as a button. A game may gather its moves by what they concern (`moveWords(action,
// observation, ctx)`: {group, label, name}, as Crit's Creatures does by piece); the rest are named in words.
function movesInWords(gameModule, ctx) {
  const { el, view } = ctx;
  const groups = new Map([["", []]]);
  for (const action of view.legal_actions) {
    const told = gameModule.moveWords?.(action, view.observation, ctx)
      ?? { group: "", label: actionWords(action, view.observation, ctx.seatName), name: null };
    if (!groups.has(told.group)) groups.set(told.group, []);
    groups.get(told.group).push(el("button", { type: "button", "data-action": action, title: action,
      "aria-label": told.name ?? undefined, onclick: () => ctx.act(action) }, told.label));
  }
  return el("ul", { class: "word-moves" }, [...groups].filter(([, buttons]) => buttons.length).map(([group, buttons]) =>
    el("li", {}, group ? el("strong", {}, `${group}: `) : null, el("span", { class: "actions" }, buttons))));
}

// Whether this browser shows tables in words (the header's toggle, kept across pages and games).
const KEPT = "bestiary-table-in-words";

export function wordsOn() {
  return localStorage.getItem(KEPT) === "on";
}

export function switchWords() {
  localStorage.setItem(KEPT, wordsOn() ? "off" : "on");
}

// The table in words in place of the pictures, or the pictures again, as this browser chose; the toggle's
// pressed state says which.
export function showWords(board, box, toggle, gameModule, ctx, options = {}) {
  const on = wordsOn() && gameModule !== null && ctx.view !== null;
  toggle.setAttribute("aria-pressed", String(on));
  box.hidden = !on;
  board.hidden = on;
  if (on) renderWords(box, gameModule, ctx, options);
  else box.replaceChildren();
}

// The sections and the moves, drawn into `box`; a move's button carries its action as the table's own do.
export function renderWords(box, gameModule, ctx, { moves = true } = {}) {
  const { el, view } = ctx;
  const sections = (gameModule.words ?? genericWords)(view.observation, ctx);
  const parts = [el("h2", {}, "The table in words")];
  for (const [heading, lines] of sections) {
    const shown = lines.filter(Boolean);
    if (!shown.length) continue;
    // a card's own text may end a sentence already: "…an enemy creature." is not followed by a second stop
    parts.push(el("h3", {}, heading), el("ul", {}, shown.map((line) => el("li", {}, line.replace(/([.!?:])\.$/, "$1")))));
  }
  if (moves && view.legal_actions.length) {
    parts.push(el("h3", {}, "Your moves"), movesInWords(gameModule, ctx));
  } else if (moves && ctx.me !== null) {
    parts.push(el("p", { class: "muted" }, "No move of yours now."));
  }
  box.replaceChildren(...parts);
}
