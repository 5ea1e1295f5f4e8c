// What changed on the table, shown for a moment: each update redraws the table, so the cards and pieces
// (known by their data-card and data-piece) are found again after the redraw. One that is now somewhere else
// slides there from where it was (a piece moved, a card played from the hand), one that is new fades in (a
// card drawn or dealt), and a piece or creature that left the table shrinks away where it stood (captured or
// defeated). CSS runs the animations (style.css), and none runs for a reader who asks for reduced motion.

const KEYED = "[data-card], g[data-piece]";  // a piece's card beside the board is not the piece
// what leaves a mark when it goes: a piece off the board, a creature off a battlefield, the card in play
const CAPTURABLE = "g[data-piece], .cube-creature, .cc-card";
const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");

// where an element stands: a piece by its token (its badges and marks come and go), in the board's units
function placeOf(element) {
  return element instanceof SVGGraphicsElement ? (element.firstElementChild ?? element).getBBox() : element.getBoundingClientRect();
}

function keyOf(element) {
  return element.dataset.piece !== undefined ? `piece ${element.dataset.piece}` : `card ${element.dataset.card}`;
}

// Where each card and piece is, before a redraw (null before the first); a key found twice (a card shown in
// two places) is left out.
export function snapshot(board) {
  if (!board.firstChild) return null;
  const places = new Map();
  const twice = new Set();
  for (const element of board.querySelectorAll(KEYED)) {
    const key = keyOf(element);
    if (places.has(key)) twice.add(key);
    places.set(key, { element, box: placeOf(element) });
  }
  for (const key of twice) places.delete(key);
  return places;
}

function mark(element, name) {
  element.classList.add(name);
  element.dataset.motion = name;
}

// Compares the redrawn table with `before` (null for the first drawing, which shows nothing moving).
export function showChanges(board, before) {
  if (!before || reduced.matches) return;
  const seen = new Set();
  const counts = new Map();
  const now = [...board.querySelectorAll(KEYED)];
  for (const element of now) counts.set(keyOf(element), (counts.get(keyOf(element)) ?? 0) + 1);
  for (const element of now) {
    const key = keyOf(element);
    if (counts.get(key) > 1) continue;
    seen.add(key);
    const was = before.get(key);
    if (!was) {
      mark(element, "arrived");
      continue;
    }
    const box = placeOf(element);
    const dx = was.box.x - box.x;
    const dy = was.box.y - box.y;
    if (Math.abs(dx) + Math.abs(dy) < 2) continue;
    element.style.setProperty("--from-x", `${Math.round(dx)}px`);
    element.style.setProperty("--from-y", `${Math.round(dy)}px`);
    mark(element, "moved");
  }
  for (const [key, was] of before) {
    if (!seen.has(key) && !counts.has(key) && was.element.matches(CAPTURABLE)) leaveMark(board, was);
  }
}

// A copy of what went, where it stood, fading out; it can be neither reached nor read, nor taken for the table.
function leaveMark(board, was) {
  const ghost = was.element;
  for (const node of [ghost, ...ghost.querySelectorAll("*")]) {
    for (const name of Object.keys(node.dataset ?? {})) delete node.dataset[name];
    node.removeAttribute("id");
  }
  ghost.classList.remove("moved", "arrived");
  ghost.setAttribute("aria-hidden", "true");
  mark(ghost, "gone");
  if (ghost instanceof SVGGraphicsElement) {
    const svg = board.querySelector("svg");
    if (!svg) return;
    svg.append(ghost);
  } else {
    const frame = board.getBoundingClientRect();
    const holder = document.createElement("div");
    holder.className = "gone-holder";
    holder.inert = true;
    holder.setAttribute("aria-hidden", "true");
    Object.assign(holder.style, { left: `${was.box.left - frame.left}px`, top: `${was.box.top - frame.top}px`,
      width: `${was.box.width}px`, height: `${was.box.height}px` });
    holder.append(ghost);
    board.append(holder);
  }
  const gone = ghost.parentElement?.classList.contains("gone-holder") ? ghost.parentElement : ghost;
  ghost.addEventListener("animationend", () => gone.remove(), { once: true });
  setTimeout(() => gone.remove(), 1500);  // in case no animation runs
}
