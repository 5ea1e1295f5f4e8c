// What the game pages share: move buttons bound to the server's legal action texts, the moves that no
// part of a table offers (so every legal action stays reachable), and countdowns for response windows.

// `name` is what a screen reader says when the visible label leans on the card around it: a "Play" button on
// the Crate Mole card is named "Play Crate Mole".
export function moveButton(ctx, placed, action, label, cls = "", name = null) {
  placed.add(action);
  return ctx.el("button", { type: "button", class: cls, "data-action": action, title: action,
    "aria-label": name ?? undefined, onclick: () => ctx.act(action) }, label);
}

export function otherMoves(ctx, placed, heading = "Your moves", words = plainWords) {
  const rest = ctx.view.legal_actions.filter((action) => !placed.has(action));
  if (!rest.length) return null;
  return ctx.el("div", { class: "moves" }, ctx.el("h3", {}, heading),
    ctx.el("div", { class: "actions" }, rest.map((action) => moveButton(ctx, placed, action, words(action)))));
}

// Your moves and your hand, kept together: at desktop width they stay in view at the foot of the window
// however many opponents sit above them (style.css).
export function dock(ctx, ...parts) {
  const present = parts.filter(Boolean);
  return present.length ? ctx.el("div", { class: "dock" }, present) : null;
}

// A button's words from an action's text: "end turn" reads "End turn"; the exact text stays its title.
export function plainWords(action) {
  return action.charAt(0).toUpperCase() + action.slice(1);
}

// The server sends how many seconds a window has left; each page redraw restarts the count from it.
export function countdown(ctx, seconds) {
  if (seconds === null || seconds === undefined) return null;
  return ctx.el("span", { class: "window-countdown", "data-deadline": performance.now() + seconds * 1000 },
    `${Math.ceil(seconds)} s`);
}

setInterval(() => {
  for (const counter of document.querySelectorAll(".window-countdown")) {
    const left = Math.max(0, (Number(counter.dataset.deadline) - performance.now()) / 1000);
    counter.textContent = `${Math.ceil(left)} s`;
  }
}, 250);

// Whose turn of the game it is, on that player's part of the table. Who must act now (a response, a race)
// is the banner's to say (js/banner.js), so this does not say "to play".
export function turnOwner(ctx, seat) {
  return seat === ctx.me ? " · your turn" : " · their turn";
}

export function seatLabel(ctx, seat) {
  return ctx.seatName(seat) + (seat === ctx.me ? " (you)" : "");
}
