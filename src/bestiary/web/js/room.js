// A room: joining a seat, live play over the websocket, the turn banner, countdowns, the event log,
// chat, and the replay viewer. The table itself is drawn by the game's module under /games/.
import { api, clearError, clock, el, forgetSeat, savedSeat, saveSeat, seatLink, seatName, setComputerLevels, showError } from "/js/api.js";
import { resultText, turnState } from "/js/banner.js";
import { mountReview } from "/js/review.js";
import { mountRules, ruleLinks, showRefusal, teachingOf } from "/js/rules.js";
import { plainWords } from "/js/table.js";
import { showChanges, snapshot } from "/js/motion.js";
import { showWords as drawWords, switchWords } from "/js/words.js";

const params = new URLSearchParams(location.search);
const code = params.get("code") ?? "";
const replaying = params.has("replay");
const errorBox = document.getElementById("error");
const board = document.getElementById("board");
const turnBanner = document.getElementById("turn");
const logList = document.getElementById("log");
const chatList = document.getElementById("chat-lines");
const chatName = document.getElementById("chat-name");
const SPECTATOR = "Spectator";  // the server's name for a spectator who gave none
const CHAT_NAME_KEY = "bestiary:chat-name";  // a spectator's chat name, offered again at the next table
chatName.value = localStorage.getItem(CHAT_NAME_KEY) ?? "";
const wordsBox = document.getElementById("words");

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
let wasMine = false;  // whether it was this seat's turn at the last update, so each turn is announced once
let notConnectedShown = false;
let leavingPage = false;  // moving to the rematch: no reconnect here
let replayAtEnd = false;  // in a replay: whether the step shown is the last
let review = null;  // the review panel under the board, once the game is over

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
    notConnectedShown = true;
    return;
  }
  socket.send(JSON.stringify({ type: "move", action, version: view.version, ref: `m${++moveCounter}` }));
}

// Taking back your last move, where the server says fair play allows it (its view's `take_back`); the U key
// does it too, and says why not when it may not.
function takeBack() {
  clearError(errorBox);
  const offer = view?.take_back;
  if (!offer || replaying) return;
  if (!offer.allowed) {
    fail(`You cannot take that back: ${offer.why}.`);
    return;
  }
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    fail("Not connected to the server; reconnecting. Try again in a moment.");
    notConnectedShown = true;
    return;
  }
  socket.send(JSON.stringify({ type: "take_back", version: view.version, ref: `t${++moveCounter}` }));
}

function context() {
  return { view, room, me: seat, act, seatName: (s) => seatName(room, s), el,
    replay: replaying ? { atEnd: replayAtEnd } : null };
}

function renderTurn() {
  const turn = turnState(view, room, seat);
  turnBanner.classList.toggle("mine", turn.mine);
  turnBanner.dataset.kind = turn.kind;
  const watching = seat === null && room.status !== "finished" ? "You are watching: " : "";
  turnBanner.replaceChildren(watching + turn.text);
  // the end screen: the review is one click from the result
  document.getElementById("review-offer").hidden = !(room.status === "finished" && !replaying);
  if (turn.seconds !== null) {
    deadline = performance.now() + turn.seconds * 1000;
    turnBanner.append(el("span", { class: "countdown", id: "countdown" }));
    tick();
  } else {
    deadline = null;
  }
  document.getElementById("take-back").hidden = !view.take_back?.allowed;
  document.getElementById("reclaim").hidden = !(seat !== null && room.seats[seat]?.reclaimable && room.status === "playing");
  alertTurn(turn);
}

// Your turn, noticed: the tab title and favicon, an optional sound, a desktop notification when hidden.
function alertTurn(turn) {
  document.title = `${turn.mine ? "● Your turn · " : ""}Bestiary: ${room.title}`;
  document.querySelector("link[rel=icon]").href = turn.mine ? "/favicon-turn.svg" : "/favicon.svg";
  if (turn.mine && !wasMine) {
    if (document.getElementById("sound").checked) beep();
    if (document.hidden && "Notification" in window && Notification.permission === "granted") {
      new Notification(`Bestiary: ${room.title}`, { body: turn.text, tag: `bestiary-${code}` });
    }
  }
  wasMine = turn.mine;
}

function beep() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    tone.frequency.value = 660;
    tone.connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.15);
  } catch { /* no sound here */ }
}

function tick() {
  const counter = document.getElementById("countdown");
  if (counter && deadline !== null) counter.textContent = `${Math.ceil(Math.max(0, (deadline - performance.now()) / 1000))} s`;
  for (const away of document.querySelectorAll("[data-hand-over-at]")) {
    away.textContent = `computer in ${clock((Date.parse(away.dataset.handOverAt) - Date.now()) / 1000)}`;
  }
}
setInterval(tick, 250);

const PRESENCE = { connected: "here", away: "away", computer: "computer", open: "open" };

function presenceBadge(info) {
  const badge = el("span", { class: `presence presence-${info.presence}`, "data-presence": info.presence },
    PRESENCE[info.presence] ?? info.presence);
  if (info.presence === "away" && info.hand_over_at && room.status === "playing") {
    return el("span", { class: "presence-box" }, badge, " ", el("span", { class: "muted", "data-hand-over-at": info.hand_over_at }));
  }
  if (info.presence === "computer" && info.reclaimable) return el("span", { class: "presence-box" }, badge, el("span", { class: "muted" }, " (player away)"));
  return badge;
}

function renderSeats() {
  const list = document.getElementById("seats");
  const turn = view ? turnState(view, room, seat) : { toAct: [] };
  const seated = seat !== null && room.seats[seat]?.kind === "human";
  list.replaceChildren(...room.seats.map((info) => {
    const label = info.taken || info.kind === "bot" ? seatName(room, info.seat) : `P${info.seat + 1}: open seat`;
    const item = el("li", { class: [info.seat === seat ? "me" : "", turn.toAct.includes(info.seat) ? "to-act" : ""].join(" "),
      "data-seat": info.seat },
    el("span", { class: "seat-name", title: label }, label, info.seat === seat ? " (you)" : ""), presenceBadge(info));
    if (seated && info.seat !== seat && info.presence === "away" && room.status === "playing") {
      item.append(el("button", { type: "button", class: "secondary hand-over", onclick: () => handOver(info.seat) }, "Hand to computer now"));
    }
    return item;
  }));
  // an invited friend's way in sits at the top of the page, above the table (on a phone, the board is long)
  const open = room.seats.filter((info) => !info.taken && info.kind !== "bot");
  const joining = seat === null && room.status === "waiting" && open.length > 0;
  document.getElementById("join").hidden = !joining;
  document.getElementById("join-seats").replaceChildren(...(joining ? open : []).map((info) =>
    el("button", { type: "button", "data-join": info.seat, onclick: () => join(info.seat) },
      open.length > 1 ? `Take this seat (P${info.seat + 1})` : "Take this seat")));
  document.getElementById("leave").hidden = seat === null || room.status === "finished";
  document.getElementById("rematch").hidden = room.status !== "finished" || seat === null;
  const replayLink = document.getElementById("replay-link");
  replayLink.hidden = room.status === "waiting";  // a game under way can be followed live
  replayLink.href = `/room.html?code=${encodeURIComponent(code)}&replay`;
  // the chat is kept with the room: everyone reads it, a seat writes in it, and spectators too where the room allows
  const mayChat = seat !== null || room.spectator_chat;
  document.getElementById("chat-panel").hidden = replaying;
  document.getElementById("chat").hidden = !mayChat || replaying;
  document.getElementById("chat-name-box").hidden = seat !== null;  // a seat writes under its seat's name
  document.getElementById("chat-seated-only").hidden = mayChat || replaying;
  document.getElementById("chat-spectators").hidden = !room.spectator_chat || replaying;
  showWatching(room.watching ?? 0);
  document.getElementById("seat-link-box").hidden = token === null;
  showTurnNotices();
  if (token !== null) document.getElementById("seat-link").value = seatLink(code, seat, token);
}

// Turn notices: the seat's own e-mail address or chat webhook, read once its settings are opened.
let noticesOf = null;  // the token whose settings the form shows

function showTurnNotices() {
  const box = document.getElementById("turn-notices");
  box.hidden = token === null || room.status === "finished" || replaying;
  if (box.hidden || noticesOf === token) return;
  noticesOf = token;
  api(`/api/rooms/${encodeURIComponent(code)}/notices`, { token }).then(fillTurnNotices).catch(() => { noticesOf = null; });
}

function fillTurnNotices(settings) {
  document.getElementById("notice-email").value = settings.email ?? "";
  document.getElementById("notice-webhook").value = settings.webhook ?? "";
  document.getElementById("notice-email-box").hidden = !settings.email_available;
}

async function saveTurnNotices(event) {
  event.preventDefault();
  const status = document.getElementById("notice-status");
  status.textContent = "";
  const value = (id) => document.getElementById(id).value.trim() || null;
  try {
    const saved = await api(`/api/rooms/${encodeURIComponent(code)}/notices`, { method: "PUT", token,
      body: { email: document.getElementById("notice-email-box").hidden ? null : value("notice-email"), webhook: value("notice-webhook") } });
    fillTurnNotices(saved);
    status.textContent = saved.email || saved.webhook ? "Saved: you will be told." : "Saved: no notices.";
  } catch (error) {
    status.textContent = error.message;
  }
}

async function handOver(number) {
  clearError(errorBox);
  try {
    await api(`/api/rooms/${encodeURIComponent(code)}/seats/${number}/hand-over`, { method: "POST", token });
  } catch (error) {
    fail(error);
  }
}

async function claim() {
  clearError(errorBox);
  try {
    await api(`/api/rooms/${encodeURIComponent(code)}/claim`, { method: "POST", token });
  } catch (error) {
    fail(error);
  }
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
    ...legal.map((action) => el("button", { type: "button", title: action, onclick: () => act(action) }, plainWords(action))));
}

// The engines' texts say "P2"; the log names the player too ("P2 Bo"), as the seat list does.
function namePlayers(text) {
  return text.replace(/\bP(\d+)\b(?! [A-Z])/g, (whole, number) => {
    const seatNumber = Number(number) - 1;
    return room?.seats[seatNumber] ? seatName(room, seatNumber) : whole;
  });
}

// A log line names the rules that made it happen; each opens in the rules panel.
function logLine(event) {
  return el("li", {}, namePlayers(event.text), " ", ruleLinks(event.rules));
}

function appendEvents(events, from) {
  if (from === 0 && eventsSeen > 0) {  // the log was cut back (a move taken back): it comes whole
    logList.replaceChildren();
    eventsSeen = 0;
  }
  // a reconnect may resend events already shown; show each once
  const fresh = events.slice(Math.max(0, eventsSeen - from));
  for (const event of fresh) logList.append(logLine(event));
  eventsSeen = Math.max(eventsSeen, from + events.length);
  logList.scrollTop = logList.scrollHeight;
  showLatest();
}

// The newest log lines, under the banner on a phone (the log itself is far below the board there); the log
// is what a screen reader hears, so this copy is hidden from it.
function showLatest() {
  const lines = [...logList.children].slice(-2).map((line) => el("li", {}, line.firstChild?.textContent ?? line.textContent));
  document.getElementById("latest").replaceChildren(...lines);
}

function render() {
  document.getElementById("title").textContent = `${room.title} · room ${code.slice(0, 6)}…`;
  if (seat !== null && token !== null) saveSeat(code, seat, token, room.title);
  renderTurn();
  renderSeats();
  const focused = focusKey(document.activeElement);
  const before = snapshot(board);
  board.replaceChildren();
  board.dataset.version = view.version;  // lets a test (or a person with dev tools) see each update
  gameModule.render(board, context());
  showChanges(board, before);
  renderActions();
  showWords();
  restoreFocus(focused);
  raceInView();
  if (room.status === "finished" && review === null) offerReview();
}

// The end screen offers the review; the replay shows it under the board, and moves to where it is clicked.
function offerReview() {
  review = mountReview(document.getElementById("review-panel"), { code, token, room, live: !replaying,
    offer: document.getElementById("review-banner"),
    jump: showReviewedStep, replayUrl: `/room.html?code=${encodeURIComponent(code)}&replay` });
}

// A move picked on the review's graph shows on the board; where the board's top is out of sight (on a phone
// the board stands above the graph), the page scrolls up to it.
async function showReviewedStep(step) {
  await showStep(step);
  const top = board.getBoundingClientRect().top;
  if (top > -2 && top < window.innerHeight) return;  // in sight (to a subpixel)
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  board.scrollIntoView({ block: "start", behavior: still ? "instant" : "smooth" });
}

// The table in words: the board and the hands listed as sentences, with every move as a button, in place of
// the pictures (as lichess's blind mode); the choice is kept in this browser.
function showWords() {
  drawWords(board, wordsBox, document.getElementById("words-toggle"), gameModule, context(), { moves: !replaying });
}

function toggleWords() {
  switchWords();
  showWords();
}

// A race (a swat, a grab) is lost by scrolling: the moment one opens, its control comes into view, and the
// docked hand steps aside so that nothing covers it.
function raceInView() {
  const racing = view.decision_kind === "race" && view.legal_actions.length > 0 && seat !== null && view.to_act.includes(seat);
  const opened = racing && !board.classList.contains("racing");
  board.classList.toggle("racing", racing);
  if (!racing) return;
  const table = wordsBox.hidden ? board : wordsBox;
  const control = table.querySelector(".lg-swat, .lg-grab") ?? table.querySelector("[data-action]:enabled");
  if (!control) return;
  // a keyboard player's focus jumps to it (unless they are typing elsewhere): Enter is all it takes
  const focus = document.activeElement;
  if (opened && (!focus || focus === document.body || table.contains(focus)
    || document.getElementById("actions").contains(focus))) control.focus();
  const box = control.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) control.scrollIntoView({ block: "center", behavior: "instant" });
}

// Each update redraws the table; a keyboard player's focus stays where it was (the same tile or move), or on
// the table, never thrown back to the top of the page.
const TABLE = "table";  // the focus was on the table, on nothing that is drawn again: its first move takes it

function focusKey(element) {
  if (!element || !(board.contains(element) || wordsBox.contains(element)
    || document.getElementById("actions").contains(element))) return null;
  if (element.dataset?.tile) return `[data-tile="${element.dataset.tile}"]`;
  if (element.dataset?.action) return `[data-action="${CSS.escape(element.dataset.action)}"]`;
  return TABLE;
}

function restoreFocus(key) {
  if (key === null) return;
  const table = wordsBox.hidden ? board : wordsBox;
  const again = key === TABLE ? null : table.querySelector(key) ?? document.querySelector(`#actions ${key}`);
  if (again && !again.disabled) {
    again.focus();
    return;
  }
  (table.querySelector("[data-tile][tabindex='0'], [data-action]:enabled, button:enabled") ?? table).focus();
}

function receive(message) {
  if (message.type === "welcome" || message.type === "state") {
    if (message.type === "welcome" && notConnectedShown) {
      clearError(errorBox);  // connected again: the "not connected" notice is out of date
      notConnectedShown = false;
    }
    view = message.view;
    room = view.room;
    appendEvents(view.events, view.events_from);
    if (followRematch()) return;
    render();
  } else if (message.type === "error") {
    showRefusal(errorBox, message.message, message.rules ?? []);  // a refused move names its rules
  } else if (message.type === "accepted") {
    clearError(errorBox);
  } else if (message.type === "notice") {
    logList.append(el("li", { class: "notice" }, namePlayers(message.text)));
    logList.scrollTop = logList.scrollHeight;
    showLatest();
  } else if (message.type === "chat") {
    chatList.append(chatLine(message));
    chatList.scrollTop = chatList.scrollHeight;
  } else if (message.type === "chat_history") {  // sent on each (re)connect: the whole kept chat
    chatList.replaceChildren(...message.lines.map(chatLine));
    chatList.scrollTop = chatList.scrollHeight;
  } else if (message.type === "watching") {
    showWatching(message.count);
  }
}

// a chat line is text, never markup: the name and the words go in as text nodes; a spectator's line (seat null)
// says so, so that no one watching passes for a player
function chatLine(line) {
  const name = line.seat === null ? (line.name === SPECTATOR ? SPECTATOR : `${line.name} (spectator)`)
    : seatName(room, line.seat);
  return el("li", { class: line.seat === null ? "chat-line spectator-line" : "chat-line" }, el("strong", {}, `${name}: `),
    line.text);
}

function showWatching(count) {
  const line = document.getElementById("watching");
  line.hidden = count === 0;
  line.textContent = `${count} watching without a seat`;
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
    if (leavingPage) return;
    if (switchingSeat) {
      switchingSeat = false;
      connect();
      return;
    }
    if (room?.status === "finished" && event.wasClean) return;
    turnBanner.textContent = "Connection lost; reconnecting…";
    turnBanner.classList.remove("mine");  // nothing can be played until the page is connected again
    turnBanner.dataset.kind = "offline";
    for (const header of board.querySelectorAll("[data-header-turn]")) header.textContent = "Not connected: reconnecting…";
    setTimeout(connect, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 8000);
  });
}

async function join(number) {
  clearError(errorBox);
  try {
    const name = document.getElementById("name").value.trim();
    const joined = await api(`/api/rooms/${encodeURIComponent(code)}/seats/${number}`, { method: "POST", body: { name } });
    saveSeat(code, number, joined.token, room.title);
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
    await api(`/api/rooms/${encodeURIComponent(code)}/rematch`, { method: "POST", token });
  } catch (error) {
    fail(error);
  }
}

// A rematch was made: a player's page moves to it with the same seat (the token is the seat's there too).
function followRematch() {
  if (!room.rematch || seat === null || token === null || replaying) return false;
  if (leavingPage) return true;  // already on the way: a second navigation would abort the first
  saveSeat(room.rematch, seat, token, room.title);
  leavingPage = true;
  location.href = `/room.html?code=${encodeURIComponent(room.rematch)}`;
  return true;
}

// A seat link: #seat=N&token=T. The fragment never reaches the server; it is taken off the address bar too.
function adoptSeatLink() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const linked = fragment.get("token");
  if (linked && /^\d+$/.test(fragment.get("seat") ?? "")) saveSeat(code, Number(fragment.get("seat")), linked);
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
}

function copier(inputId) {
  return async () => {
    const input = document.getElementById(inputId);
    input.select();
    try { await navigator.clipboard.writeText(input.value); } catch { document.execCommand("copy"); }
  };
}

// The replay: one stop per decision (chance outcomes folded into the decision that caused them), a scrubber,
// autoplay at a chosen speed, the arrow keys, the result at the end, and "follow live" for a game under way.
let decisions = [0];
let shownIndex = 0;
let autoplay = null;

let wantedIndex = 0;  // the step asked for last: arrow keys pressed back to back add up while a fetch is under way
let requests = 0;

async function showDecision(index) {
  wantedIndex = Math.max(0, decisions.length > 1 ? Math.min(index, decisions.length - 1) : index);
  const request = ++requests;
  try {
    const first = await api(`/api/rooms/${encodeURIComponent(code)}/replay?step=0`, { token });
    decisions = first.decisions.length ? first.decisions : [0];
    const clamped = Math.max(0, Math.min(index, decisions.length - 1));
    const shown = clamped === 0 && decisions[0] === 0 ? first
      : await api(`/api/rooms/${encodeURIComponent(code)}/replay?step=${decisions[clamped]}`, { token });
    if (request !== requests) return;  // a later key asked for another step: that one is drawn
    wantedIndex = clamped;
    shownIndex = clamped;
    const last = decisions.length - 1;
    const atEnd = clamped === last;
    room = await api(`/api/rooms/${encodeURIComponent(code)}`);
    if (request !== requests) return;
    replayAtEnd = atEnd;
    view = { ...view, observation: shown.observation, legal_actions: [], to_act: [], window: null };
    const before = snapshot(board);
    board.replaceChildren();
    gameModule.render(board, context());
    showChanges(board, before);
    showWords();
    logList.replaceChildren(...shown.events.map(logLine));
    logList.scrollTop = logList.scrollHeight;
    document.getElementById("step").textContent = `decision ${clamped} of ${last}`;
    review?.setStep(decisions[clamped]);
    const scrubber = document.getElementById("scrubber");
    scrubber.max = String(last);
    scrubber.value = String(clamped);
    turnBanner.textContent = atEnd && room.status === "finished" ? resultText(room)
      : `Replay: decision ${clamped} of ${last}${room.status === "playing" ? " (the game goes on)" : ""}.`;
    const controls = { first: 0, back: clamped - 1, forward: clamped + 1, last };
    for (const [id, target] of Object.entries(controls)) {
      const button = document.getElementById(id);
      button.disabled = target < 0 || target > last || target === clamped;
      button.onclick = () => showDecision(target);
    }
    if (atEnd && autoplay && !document.getElementById("follow").checked) toggleAutoplay();
  } catch (error) {
    fail(error);
  }
}

// The replay's stop that shows the position after the move at `step` (and the draws and rolls it caused).
function showStep(step) {
  const index = decisions.findIndex((applied) => applied > step);
  return showDecision(index === -1 ? decisions.length - 1 : index);
}

function toggleAutoplay() {
  const button = document.getElementById("play");
  if (autoplay) {
    clearInterval(autoplay);
    autoplay = null;
    button.textContent = "Play";
    return;
  }
  button.textContent = "Pause";
  autoplay = setInterval(() => showDecision(shownIndex + 1), Number(document.getElementById("speed").value));
}

function startReplay() {
  document.getElementById("scrubber").addEventListener("input", (event) => showDecision(Number(event.target.value)));
  document.getElementById("play").addEventListener("click", toggleAutoplay);
  document.getElementById("speed").addEventListener("change", () => { if (autoplay) { toggleAutoplay(); toggleAutoplay(); } });
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement && event.target.type !== "range") return;
    if (event.key === "ArrowLeft") showDecision(wantedIndex - 1);
    else if (event.key === "ArrowRight") showDecision(wantedIndex + 1);
    else return;
    event.preventDefault();
  });
  setInterval(() => {  // follow live: keep to the newest decision of a game under way
    if (document.getElementById("follow").checked) showDecision(Number.MAX_SAFE_INTEGER);
  }, 2000);
  showDecision(0);
}

async function start() {
  if (!code) {
    fail("This page needs a room code: open it from the lobby or an invite link.");
    return;
  }
  adoptSeatLink();
  document.getElementById("invite").value = `${location.origin}/room.html?code=${encodeURIComponent(code)}`;
  document.getElementById("copy").addEventListener("click", copier("invite"));
  document.getElementById("copy-seat").addEventListener("click", copier("seat-link"));
  document.getElementById("claim").addEventListener("click", claim);
  document.getElementById("review-banner").addEventListener("click", () => review?.ask());
  document.getElementById("notify").hidden = !("Notification" in window);
  document.getElementById("notify").addEventListener("click", async () => {
    const answer = await Notification.requestPermission();  // asked on a click, as browsers want
    document.getElementById("notify").textContent = answer === "granted" ? "Notifications on" : "Notifications blocked";
  });
  document.getElementById("leave").addEventListener("click", leave);
  document.getElementById("words-toggle").addEventListener("click", toggleWords);
  document.getElementById("take-back").addEventListener("click", takeBack);
  document.getElementById("turn-notices-form").addEventListener("submit", saveTurnNotices);
  document.addEventListener("keydown", (event) => {
    const typing = event.target instanceof HTMLElement && (event.target.isContentEditable
      || ["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName));
    if (event.key.toLowerCase() !== "u" || typing || event.ctrlKey || event.metaKey || event.altKey || replaying) return;
    event.preventDefault();
    takeBack();
  });
  document.getElementById("rematch").addEventListener("click", rematch);
  document.getElementById("chat").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = document.getElementById("chat-text");
    if (input.value.trim() && socket?.readyState === WebSocket.OPEN) {
      const name = seat === null ? chatName.value.trim() : "";  // a seat's lines carry its seat's name
      if (seat === null) localStorage.setItem(CHAT_NAME_KEY, name);
      socket.send(JSON.stringify({ type: "chat", text: input.value.trim(), name }));
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
  mountRules(room.game);
  setComputerLevels((await teachingOf(room.game))?.computers);
  gameModule = await loadGameModule(room.game);
  if (replaying) {
    document.getElementById("title").textContent = `${room.title} · replay`;
    document.title = `Bestiary: ${room.title} (replay)`;
    turnBanner.textContent = "Replay: step through the game.";
    document.getElementById("replay-panel").hidden = false;
    renderSeats();
    startReplay();
    if (room.status === "finished") offerReview();
    return;
  }
  connect();
}

start();
