// A room: joining a seat, live play over the websocket, the turn banner, countdowns, the event log,
// chat, and the replay viewer. The table itself is drawn by the game's module under /games/.
import { api, clearError, el, forgetSeat, savedSeat, saveSeat, seatName, showError } from "/js/api.js";

const params = new URLSearchParams(location.search);
const code = params.get("code") ?? "";
const replaying = params.has("replay");
const errorBox = document.getElementById("error");
const board = document.getElementById("board");
const turnBanner = document.getElementById("turn");
const logList = document.getElementById("log");

let room = null;
let view = null;
let seat = null;
let token = null;
let socket = null;
let eventsSeen = 0;
let gameModule = null;
let deadline = null;
let reconnectDelay = 500;
let moveCounter = 0;
let switchingSeat = false;  // a deliberate reconnect after joining or leaving: no alarm

async function loadGameModule(game) {
  try {
    return await import(`/games/${game}.js`);
  } catch {
    return import("/games/generic.js");  // any game without its own page is still playable
  }
}

function fail(error) {
  showError(errorBox, error);
}

function act(action) {
  clearError(errorBox);
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    fail("Not connected to the server; reconnecting. Try again in a moment.");
    return;
  }
  socket.send(JSON.stringify({ type: "move", action, version: view.version, ref: `m${++moveCounter}` }));
}

function context() {
  return { view, room, me: seat, act, seatName: (s) => seatName(room, s), el };
}

function renderTurn() {
  turnBanner.classList.remove("mine");
  if (room.status === "waiting") {
    const open = room.seats.filter((s) => !s.taken).length;
    turnBanner.textContent = `Waiting for ${open} more player${open === 1 ? "" : "s"} to join.`;
    return;
  }
  if (room.status === "finished") {
    const returns = room.result?.returns ?? [];
    const best = Math.max(...returns);
    const winners = returns.map((r, s) => (r === best ? seatName(room, s) : null)).filter(Boolean);
    turnBanner.textContent = `Game over. ${winners.length > 1 ? "Shared win" : "Winner"}: ${winners.join(", ")}.`;
    return;
  }
  const toAct = view.to_act;
  const mine = seat !== null && toAct.includes(seat);
  const names = toAct.map((s) => (s === seat ? "you" : seatName(room, s)));
  const kind = view.decision_kind;
  let text;
  if (kind === "race") text = mine ? "Race! Be the first to act." : `Race between ${names.join(", ")}.`;
  else if (kind === "response") text = mine ? "You may respond now." : `Waiting for responses from ${names.join(", ")}.`;
  else if (kind === "simultaneous") text = mine ? "Choose now (the others cannot see your choice)." : `Waiting for ${names.join(", ")} to choose.`;
  else text = mine ? "Your turn." : `${names.join(", ")} to play.`;
  turnBanner.replaceChildren(text);
  if (mine) turnBanner.classList.add("mine");
  const secondsLeft = view.window ? view.window.closes_in : view.turn_closes_in;
  if (secondsLeft !== null && secondsLeft !== undefined) {
    deadline = performance.now() + secondsLeft * 1000;
    turnBanner.append(el("span", { class: "countdown", id: "countdown" }));
    tick();
  } else {
    deadline = null;
  }
}

function tick() {
  const counter = document.getElementById("countdown");
  if (!counter || deadline === null) return;
  const left = Math.max(0, (deadline - performance.now()) / 1000);
  counter.textContent = `${left.toFixed(0)} s`;
}
setInterval(tick, 250);

function renderSeats() {
  const list = document.getElementById("seats");
  const toAct = view?.to_act ?? [];
  list.replaceChildren(...room.seats.map((info) => {
    const label = info.kind === "bot" ? `${seatName(room, info.seat)} (computer)`
      : info.taken ? seatName(room, info.seat) : `Seat ${info.seat + 1}: open`;
    const item = el("li", { class: [info.seat === seat ? "me" : "", toAct.includes(info.seat) ? "to-act" : ""].join(" ") },
      el("span", {}, label, info.seat === seat ? " (you)" : ""));
    if (!info.taken && seat === null && room.status === "waiting") {
      item.append(el("button", { type: "button", onclick: () => join(info.seat) }, "Take this seat"));
    }
    return item;
  }));
  document.getElementById("join").hidden = !(seat === null && room.status === "waiting");
  document.getElementById("leave").hidden = seat === null || room.status === "finished";
  document.getElementById("rematch").hidden = room.status !== "finished";
  const replayLink = document.getElementById("replay-link");
  replayLink.hidden = room.status !== "finished";
  replayLink.href = `/room.html?code=${encodeURIComponent(code)}&replay`;
  document.getElementById("chat").hidden = seat === null || replaying;
}

function renderActions() {
  const panel = document.getElementById("actions-panel");
  const legal = view.legal_actions;
  if (gameModule.handlesActions || !legal.length) {
    panel.hidden = true;
    document.getElementById("actions").replaceChildren();
    return;
  }
  panel.hidden = false;
  document.getElementById("actions").replaceChildren(
    ...legal.map((action) => el("button", { type: "button", onclick: () => act(action) }, action)));
}

function appendEvents(events, from) {
  // a reconnect may resend events already shown; show each once
  const fresh = events.slice(Math.max(0, eventsSeen - from));
  for (const event of fresh) logList.append(el("li", {}, event.text));
  eventsSeen = Math.max(eventsSeen, from + events.length);
  logList.scrollTop = logList.scrollHeight;
}

function render() {
  document.getElementById("title").textContent = `${room.title} · room ${code.slice(0, 6)}…`;
  document.title = `Bestiary: ${room.title}`;
  renderTurn();
  renderSeats();
  board.replaceChildren();
  board.dataset.version = view.version;  // lets a test (or a person with dev tools) see each update
  gameModule.render(board, context());
  renderActions();
}

function receive(message) {
  if (message.type === "welcome" || message.type === "state") {
    view = message.view;
    room = view.room;
    appendEvents(view.events, view.events_from);
    render();
  } else if (message.type === "error") {
    fail(message.message);
  } else if (message.type === "accepted") {
    clearError(errorBox);
  } else if (message.type === "chat") {
    logList.append(el("li", { class: "chat-line" }, el("strong", {}, `${seatName(room, message.seat)}: `), message.text));
    logList.scrollTop = logList.scrollHeight;
  }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/api/rooms/${encodeURIComponent(code)}/ws`);
  socket.addEventListener("open", () => {
    reconnectDelay = 500;
    socket.send(JSON.stringify({ type: "hello", token, events_seen: eventsSeen }));
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", (event) => {
    if (event.code === 4403) {  // the token is no longer valid: watch instead
      forgetSeat(code);
      token = null;
      seat = null;
    }
    if (switchingSeat) {
      switchingSeat = false;
      connect();
      return;
    }
    if (room?.status === "finished" && event.wasClean) return;
    turnBanner.textContent = "Connection lost; reconnecting…";
    setTimeout(connect, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 8000);
  });
}

async function join(number) {
  clearError(errorBox);
  try {
    const name = document.getElementById("name").value.trim();
    const joined = await api(`/api/rooms/${encodeURIComponent(code)}/seats/${number}`, { method: "POST", body: { name } });
    saveSeat(code, number, joined.token);
    seat = number;
    token = joined.token;
    eventsSeen = 0;  // each seat sees its own log: start it afresh
    logList.replaceChildren();
    switchingSeat = true;
    socket.close();  // the new connection speaks for the seat
  } catch (error) {
    fail(error);
  }
}

async function leave() {
  if (!confirm(room.status === "playing" ? "Leave the game? A computer player takes your seat." : "Leave your seat?")) return;
  try {
    await api(`/api/rooms/${encodeURIComponent(code)}/leave`, { method: "POST", token });
    forgetSeat(code);
    seat = null;
    token = null;
    eventsSeen = 0;
    logList.replaceChildren();
    switchingSeat = true;
    socket.close();
  } catch (error) {
    fail(error);
  }
}

async function rematch() {
  try {
    const next = await api(`/api/rooms/${encodeURIComponent(code)}/rematch`, { method: "POST" });
    location.href = `/room.html?code=${encodeURIComponent(next.code)}`;
  } catch (error) {
    fail(error);
  }
}

async function showStep(step) {
  try {
    const shown = await api(`/api/rooms/${encodeURIComponent(code)}/replay?step=${step}`, { token });
    view = { ...view, observation: shown.observation, legal_actions: [], to_act: [], window: null };
    board.replaceChildren();
    gameModule.render(board, context());
    logList.replaceChildren(...shown.events.map((e) => el("li", {}, e.text)));
    logList.scrollTop = logList.scrollHeight;
    document.getElementById("step").textContent = `step ${step} of ${shown.steps}`;
    const controls = { first: 0, back: Math.max(0, step - 1), forward: Math.min(shown.steps, step + 1), last: shown.steps };
    for (const [id, target] of Object.entries(controls)) {
      const button = document.getElementById(id);
      button.disabled = target === step;
      button.onclick = () => showStep(target);
    }
  } catch (error) {
    fail(error);
  }
}

async function start() {
  if (!code) {
    fail("This page needs a room code: open it from the lobby or an invite link.");
    return;
  }
  document.getElementById("invite").value = `${location.origin}/room.html?code=${encodeURIComponent(code)}`;
  document.getElementById("copy").addEventListener("click", async () => {
    const input = document.getElementById("invite");
    input.select();
    try { await navigator.clipboard.writeText(input.value); } catch { document.execCommand("copy"); }
  });
  document.getElementById("leave").addEventListener("click", leave);
  document.getElementById("rematch").addEventListener("click", rematch);
  document.getElementById("chat").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = document.getElementById("chat-text");
    if (input.value.trim() && socket?.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ type: "chat", text: input.value.trim() }));
      input.value = "";
    }
  });
  const saved = savedSeat(code);
  if (saved) ({ seat, token } = saved);
  try {
    view = await api(`/api/rooms/${encodeURIComponent(code)}/view`, { token });
  } catch (error) {
    if (token) {  // a stale token from an earlier visit: watch instead
      forgetSeat(code);
      seat = null;
      token = null;
      return start();
    }
    fail(error);
    turnBanner.textContent = "No game to show.";
    return;
  }
  room = view.room;
  gameModule = await loadGameModule(room.game);
  if (replaying) {
    document.getElementById("title").textContent = `${room.title} · replay`;
    document.title = `Bestiary: ${room.title} (replay)`;
    turnBanner.textContent = "Replay: step through the game.";
    document.getElementById("replay-panel").hidden = false;
    renderSeats();
    showStep(0);
    return;
  }
  connect();
}

start();
