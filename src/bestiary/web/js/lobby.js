// The lobby: pick a game, its options and who sits where; list the rooms waiting for players.
import { api, clearError, el, saveSeat, showError } from "/js/api.js";
import { mountRules, ruleLink, teachingOf } from "/js/rules.js";

const errorBox = document.getElementById("error");
const gameSelect = document.getElementById("game");
const playersSelect = document.getElementById("players");
const seatsBox = document.getElementById("seats");
const optionsBox = document.getElementById("options");
const moreOptionsBox = document.getElementById("more-game-options");
let games = [];
let agents = [];
let teaching = null;  // the chosen game's computer levels and option rules (js/rules.js)
const teachings = new Map();  // every game's, read once at the start so that choosing a game redraws at once

function currentGame() {
  return games.find((g) => g.name === gameSelect.value);
}

const RULE_ID = /\s*\(([A-Z]+-\d+[a-z]?(?:,\s*[A-Z]+-\d+[a-z]?)*)\)/g;
const ARMIES = ["grave-legion", "verdant-host"];

// An option's label in plain words; the rules it changes are links that open them in the rules panel.
function describeOption(name, spec) {
  const text = spec.description || name.replaceAll("_", " ");
  const rules = teaching?.option_rules?.[name] ?? [];
  const help = rules.length ? el("small", { class: "help" }, "Rule ", ...rules.flatMap((id, i) => [i ? ", " : null, ruleLink(id)]), " in the rule book") : null;
  return { label: text.replace(RULE_ID, ""), help };
}

function seatChoices(spec, players) {
  const words = (spec.anyOf ?? []).map((s) => s.const).filter((v) => typeof v === "string");
  const seats = Array.from({ length: players }, (_, seat) => el("option", { value: String(seat) }, `Player ${seat + 1}`));
  return [...words.map((word) => el("option", { value: `"${word}"` }, word === "roll" ? "Roll for it" : "Draw at random")), ...seats];
}

// A control that fits the option: a checkbox, a select for a few choices (seats numbered from 1), a number.
function optionInput(name, spec) {
  const id = `option-${name}`;
  const { label, help: helpText } = describeOption(name, spec);
  if (spec.type === "boolean") {
    return el("div", { class: "option" }, el("label", { class: "check" },
      el("input", { type: "checkbox", id, "data-option": name, checked: spec.default === true }), ` ${label}`), helpText);
  }
  let control;
  if (name === "first_player") {
    control = el("select", { id, "data-option": name, "data-json": "" }, seatChoices(spec, Number(playersSelect.value)));
    control.value = JSON.stringify(spec.default ?? 0);
  } else if (spec.enum) {
    control = el("select", { id, "data-option": name, "data-json": "" },
      spec.enum.map((value) => el("option", { value: JSON.stringify(value) }, String(value))));
    control.value = JSON.stringify(spec.default);
  } else if (name === "armies") {
    control = el("span", { class: "row" }, [0, 1].map((seat) => el("select", { "data-army": seat, "aria-label": `army of player ${seat + 1}` },
      ARMIES.map((army) => el("option", { value: army, selected: spec.default?.[seat] === army }, `Player ${seat + 1}: ${army.replace("-", " ")}`)))));
  } else {
    const numeric = spec.type === "integer" || spec.type === "number";
    control = el("input", { id, "data-option": name, type: numeric ? "number" : "text",
      value: typeof spec.default === "object" && spec.default !== null ? JSON.stringify(spec.default) : spec.default ?? "",
      min: spec.minimum, max: spec.maximum, step: spec.type === "integer" ? 1 : "any" });
  }
  return el("div", { class: "option" }, el("label", {}, el("span", {}, label), control), helpText);
}

function renderGame() {
  const game = currentGame();
  teaching = teachings.get(game.name);
  mountRules(game.name);
  document.getElementById("summary").replaceChildren(game.summary, " ",
    el("a", { href: `/learn/${encodeURIComponent(game.name)}`, id: "learn-link" }, "New to it? Learn to play"));
  playersSelect.replaceChildren(...game.player_counts.map((n) => el("option", { value: n }, `${n} players`)));
  optionsBox.replaceChildren();
  moreOptionsBox.replaceChildren();
  const properties = game.options.properties ?? {};
  const extra = Object.entries(properties).filter(([name]) => name !== "players" && name !== "cards");
  // settings for designers and experienced players (each game's teaching.toml names them): under "More options"
  const designer = new Set(teaching?.more_options ?? []);
  const main = extra.filter(([name]) => !designer.has(name));
  const more = extra.filter(([name]) => designer.has(name));
  if (main.length) {
    optionsBox.append(el("fieldset", { class: "panel" }, el("legend", {}, "Options"),
      ...main.map(([name, spec]) => optionInput(name, spec))));
  }
  moreOptionsBox.append(...more.map(([name, spec]) => optionInput(name, spec)));
  renderSeats();
}

function renderSeats() {
  const count = Number(playersSelect.value);
  seatsBox.replaceChildren(...Array.from({ length: count }, (_, seat) => el("label", {},
    el("span", {}, `Seat ${seat + 1}${seat === 0 ? " (you)" : ""}`),
    el("select", { "data-seat": seat },
      el("option", { value: "human" }, seat === 0 ? "Me" : "A person (invite)"),
      ...Object.entries(teaching?.computers ?? {}).map(([level, agent]) =>
        el("option", { value: `bot:${agent}`, "data-level": level }, `Computer (${level})`)),
      el("optgroup", { label: "More" }, agents.map((agent) => el("option", { value: `bot:${agent}` }, `Computer: ${agent}`)))))));
}

function readOptions() {
  const options = { players: Number(playersSelect.value) };
  for (const input of document.getElementById("create").querySelectorAll("[data-option]")) {
    const name = input.dataset.option;
    if (input.type === "checkbox") options[name] = input.checked;
    else if ("json" in input.dataset) options[name] = JSON.parse(input.value);
    else if (input.value === "") continue;
    else if (input.type === "number") options[name] = Number(input.value);
    else {
      try { options[name] = JSON.parse(input.value); } catch { options[name] = input.value; }
    }
  }
  const armies = [...optionsBox.querySelectorAll("[data-army]")].map((select) => select.value);
  if (armies.length) options.armies = armies;
  return options;
}

async function createRoom(event) {
  event.preventDefault();
  clearError(errorBox);
  const seats = [...seatsBox.querySelectorAll("[data-seat]")].map((select) =>
    select.value === "human" ? { kind: "human" } : { kind: "bot", agent: select.value.slice(4) });
  try {
    const room = await api("/api/rooms", { method: "POST", body: {
      game: gameSelect.value, options: readOptions(), seats,
      window_seconds: Number(document.getElementById("window").value),
      public: document.getElementById("public").checked,
      spectator_chat: document.getElementById("spectator-chat").checked,
      turn_seconds: document.getElementById("turn-clock").value ? Number(document.getElementById("turn-clock").value) : null } });
    if (seats[0].kind === "human") {
      const name = document.getElementById("name").value.trim();
      const joined = await api(`/api/rooms/${room.code}/seats/0`, { method: "POST", body: { name } });
      saveSeat(room.code, 0, joined.token, room.title);
    }
    location.href = `/room.html?code=${encodeURIComponent(room.code)}`;
  } catch (error) {
    showError(errorBox, error);
  }
}

// Open rooms, a page at a time: "Show more" appends the rooms after the last one shown (the server counts from
// that room, so rooms filling up meanwhile shift nothing), and a room already shown is never listed twice.
const PAGE = 20;
const roomsBox = document.getElementById("rooms");
const moreButton = document.getElementById("more");
const roomsCount = document.getElementById("rooms-count");
let shownCodes = new Set();
let lastShown = null;  // the code the next page is counted after
let roomsRequest = 0;  // the newest listing asked for: an older answer (before a Refresh) is dropped

// A row tells rooms of one game apart by who is already seated.
function roomRow(room) {
  const seated = room.seats.filter((s) => s.taken && s.kind === "human").map((s) => s.name || `P${s.seat + 1}`);
  const bots = room.seats.filter((s) => s.kind === "bot").length;
  const who = [seated.length ? seated.join(", ") : "no one seated yet", bots ? `${bots} computer${bots === 1 ? "" : "s"}` : null];
  return el("tr", { "data-code": room.code },
    el("td", {}, el("div", {}, room.title), el("small", { class: "muted" }, who.filter(Boolean).join(" · "))),
    el("td", {}, `${room.seats.filter((s) => s.taken).length} of ${room.seats.length}`),
    el("td", {}, el("a", { href: `/room.html?code=${encodeURIComponent(room.code)}` }, "Join")));
}

async function listRooms({ more = false } = {}) {
  const request = ++roomsRequest;
  moreButton.disabled = true;
  try {
    const query = new URLSearchParams({ limit: String(PAGE + 1) });  // one beyond the page: are there more?
    if (more && lastShown) query.set("after", lastShown);
    const found = await api(`/api/rooms?${query}`);
    if (request !== roomsRequest) return;
    const page = found.slice(0, PAGE);
    if (!more) {
      shownCodes = new Set();
      lastShown = null;
      roomsBox.replaceChildren(el("table", { class: "rooms" }, el("thead", {},
        el("tr", {}, el("th", {}, "Game"), el("th", {}, "Seats taken"), el("th", {}))), el("tbody", {})));
    }
    if (page.length) lastShown = page[page.length - 1].code;
    const fresh = page.filter((room) => !shownCodes.has(room.code));
    for (const room of fresh) shownCodes.add(room.code);
    roomsBox.querySelector("tbody").append(...fresh.map(roomRow));
    const hasMore = found.length > PAGE;
    if (!shownCodes.size) {
      roomsBox.replaceChildren(el("p", { class: "muted" }, "No room is waiting for players. Create one!"));
      roomsCount.textContent = "";
    } else {
      const rooms = `${shownCodes.size} room${shownCodes.size === 1 ? "" : "s"}`;
      roomsCount.textContent = hasMore ? `${rooms} shown; more are waiting.` : `${rooms} shown, the end of the list.`;
    }
    moreButton.hidden = !hasMore;
  } catch (error) {
    showError(errorBox, error);
  } finally {
    if (request === roomsRequest) moreButton.disabled = false;
  }
}

async function start() {
  try {
    ({ games, agents } = await api("/api/games"));
  } catch (error) {
    showError(errorBox, error);
    return;
  }
  await Promise.all(games.map(async (g) => teachings.set(g.name, await teachingOf(g.name))));
  gameSelect.replaceChildren(...games.map((g) => el("option", { value: g.name }, g.title)));
  document.getElementById("learn-list").replaceChildren(...games.filter((g) => teachings.get(g.name)?.tutorial)
    .map((g) => el("li", {}, el("a", { href: `/learn/${encodeURIComponent(g.name)}`, class: "learn-game" }, `Learn ${g.title}`),
      " · ", el("a", { href: `/rules/${encodeURIComponent(g.name)}`, class: "muted" }, "rules"))));
  gameSelect.addEventListener("change", renderGame);
  playersSelect.addEventListener("change", () => {
    renderSeats();
    const first = document.getElementById("option-first_player");  // its seats follow the player count
    if (first) {
      const kept = first.value;
      first.replaceChildren(...seatChoices(currentGame().options.properties.first_player, Number(playersSelect.value)));
      first.value = [...first.options].some((o) => o.value === kept) ? kept : first.options[0].value;
    }
  });
  document.getElementById("create").addEventListener("submit", createRoom);
  document.getElementById("refresh").addEventListener("click", () => listRooms());
  moreButton.addEventListener("click", () => listRooms({ more: true }));
  renderGame();
  listRooms();
}

start();
