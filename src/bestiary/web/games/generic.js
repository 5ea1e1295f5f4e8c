// Any game without its own page: the observation as readable nested lists, the legal actions as
// buttons (drawn by room.js). A newly registered game is playable here at once.

function humanize(key) {
  const text = String(key).replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function isScalar(value) {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function scalarText(value, key, seatName) {
  if (value === null) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number" && /player|seat|viewer|chooser|challenger|drawn_by/.test(key)) return seatName(value);
  return String(value);
}

export function renderValue(value, key, ctx) {
  const { el } = ctx;
  if (isScalar(value)) return el("span", {}, scalarText(value, key, ctx.seatName));
  if (Array.isArray(value)) {
    if (!value.length) return el("span", { class: "muted" }, "none");
    if (value.every(isScalar)) {
      const seats = /to_act|players|winners/.test(key) && value.every((v) => typeof v === "number");
      return el("span", {}, value.map((v) => (seats ? ctx.seatName(v) : scalarText(v, key, ctx.seatName))).join(", "));
    }
    return el("ul", { class: "obs" }, value.map((item, i) => el("li", {}, renderValue(item, `${key}.${i}`, ctx))));
  }
  return el("dl", { class: "obs" }, Object.entries(value).flatMap(([k, v]) =>
    [el("dt", {}, humanize(k)), el("dd", {}, renderValue(v, k, ctx))]));
}

export function render(board, ctx) {
  const { el, view } = ctx;
  board.append(el("h2", {}, view.room.title), renderValue(view.observation, "", ctx));
}
