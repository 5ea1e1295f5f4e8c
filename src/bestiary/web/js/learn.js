// /learn/{game}: a guided first game. The server replays the tutorial from the learner's moves at every step
// (bestiary/tutorial.py), so this page keeps only the list of moves; the table is drawn by the game's own page
// module, as at a real table. Each rule is told in plain words the first time an event names it, the suggested
// move is highlighted, "Why?" explains what just happened, and the end offers a real game.
import { api, clearError, el, saveSeat, seatName, setComputerLevels, showError } from "/js/api.js";
import { turnState } from "/js/banner.js";
import { showChanges, snapshot } from "/js/motion.js";
import { mountRules, ruleLinks, showRefusal, teachingOf } from "/js/rules.js";
import { showWords, switchWords } from "/js/words.js";

const game = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] ?? "");
const STORE = `bestiary:learn:${game}`;
const errorBox = document.getElementById("error");
const board = document.getElementById("board");
const coach = document.getElementById("coach");
const logList = document.getElementById("log");
const banner = document.getElementById("turn");

let tutorial = null;
let gameModule = null;
let busy = false;
let showWhy = false;
let lessonsFrom = 0;  // the first event of the latest step: its lessons are the ones shown in the coach

function savedMoves() {
  try { return JSON.parse(sessionStorage.getItem(STORE)) ?? []; } catch { return []; }
}

async function step(move = null) {
  if (busy) return;
  busy = true;
  clearError(errorBox);
  try {
    const before = tutorial?.events.length ?? 0;
    const answer = await fetch(`/api/learn/${encodeURIComponent(game)}`, { method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ moves: tutorial?.moves ?? savedMoves(), move }) });
    const data = await answer.json();
    if (answer.status === 409) {
      showRefusal(errorBox, data.message);  // a refused move's message ends with the ids of its rules
      return;
    }
    if (!answer.ok) {
      if (tutorial === null && savedMoves().length) {  // moves kept from an older version of the lesson
        sessionStorage.removeItem(STORE);
        busy = false;
        return step();
      }
      throw new Error(data.message ?? `The server answered ${answer.status}.`);
    }
    lessonsFrom = move === null ? 0 : before;
    showWhy = false;
    tutorial = data;
    sessionStorage.setItem(STORE, JSON.stringify(tutorial.moves));
    render();
  } catch (error) {
    showError(errorBox, error);
  } finally {
    busy = false;
  }
}

function roomOf(t) {
  const seats = Array.from({ length: t.players }, (_, seat) => seat === t.learner
    ? { seat, kind: "human", agent: null, name: null, taken: true, presence: "connected" }
    : { seat, kind: "bot", agent: t.computer, name: null, taken: true, presence: "computer" });
  return { code: "", game: t.game, title: t.title, status: t.finished ? "finished" : "playing", seats,
    result: t.finished ? { returns: t.returns } : null, rematch: null };
}

function viewOf(t, room) {
  return { room, seat: t.learner, version: t.moves.length, decision_kind: t.finished ? "finished" : t.decision_kind,
    to_act: t.to_act, legal_actions: t.legal_actions, observation: t.observation,
    events: t.events.map((e) => ({ kind: "", text: e.text, rules: e.rules, data: {} })), events_from: 0,
    window: null, turn_closes_in: null };
}

// The engines' texts say "P2"; the log names the computer too, as the seat list does.
function namePlayers(text, room) {
  return text.replace(/\bP(\d+)\b(?! [A-Z])/g, (whole, number) => {
    const seat = Number(number) - 1;
    return room.seats[seat] ? seatName(room, seat) : whole;
  });
}

// What happened, with the rules it brought up for the first time in plain words.
function lessonCard(event, room) {
  return el("div", { class: "lesson", "data-lessons": event.lessons.map((lesson) => lesson.rule).join(" ") },
    el("div", { class: "lesson-event" }, namePlayers(event.text, room)),
    event.lessons.map((lesson) => el("p", { class: "lesson-words" },
      el("span", { class: "lesson-tag" }, "New rule"), " ", el("strong", {}, lesson.words), " ", ruleLinks([lesson.rule]))));
}

// The new rules of the latest step: the last few in full, the others folded (a battle may bring up a dozen).
const LESSONS_SHOWN = 3;
function lessonsOfStep(events, room) {
  const taught = events.filter((event) => event.lessons.length);
  if (!taught.length) return null;
  const earlier = taught.slice(0, -LESSONS_SHOWN);
  const count = earlier.reduce((sum, event) => sum + event.lessons.length, 0);
  return el("div", { class: "lessons" },
    earlier.length ? el("details", { class: "earlier-lessons" },
      el("summary", {}, `${count} more new rule${count === 1 ? "" : "s"} just before`), earlier.map((e) => lessonCard(e, room))) : null,
    taught.slice(-LESSONS_SHOWN).map((e) => lessonCard(e, room)));
}

function renderCoach(room) {
  const t = tutorial;
  const parts = [];
  if (!t.moves.length) {
    parts.push(el("p", { class: "welcome" }, t.welcome),
      el("p", { class: "muted" }, `You are P1; the computer${t.players > 2 ? "s are" : " is"} ${room.seats.slice(1).map((s) => `P${s.seat + 1}`).join(", ")}.`));
  }
  parts.push(lessonsOfStep(t.events.slice(lessonsFrom), room));
  if (t.finished) {
    parts.push(el("p", { class: "learn-result" }, t.result),
      el("p", {}, "You know the rules now. Ready for a real game against an easy computer?"),
      el("div", { class: "row" },
        el("button", { type: "button", id: "real-game", onclick: realGame }, "Play a real game"),
        el("button", { type: "button", class: "secondary", onclick: restart }, "Play this lesson again")));
  } else if (t.suggestion) {
    parts.push(el("div", { class: "suggestion" },
      el("p", {}, el("strong", {}, "Try this: "), t.suggestion_words ?? "", " ",
        el("span", { class: "muted" }, `(${t.suggestion.replace(/#\d+\b/g, "")})`)),
      el("p", { class: "muted" }, "It is highlighted on the table. You may also make any other move."),
      el("div", { class: "row" },
        el("button", { type: "button", id: "do-suggestion", "data-suggestion": t.suggestion, onclick: () => step(t.suggestion) }, "Do it"),
        el("button", { type: "button", class: "secondary", id: "why", "aria-expanded": String(showWhy),
          onclick: () => { showWhy = !showWhy; renderCoach(room); } }, "Why?"))));
    if (showWhy) parts.push(whyBox(t));
  }
  coach.replaceChildren(...parts.filter(Boolean));
}

function whyBox(t) {
  const items = t.why.map((why) => el("li", {}, el("strong", {}, why.words), " ", ruleLinks([why.rule]),
    why.text && why.text !== why.words ? el("div", { class: "muted" }, `The rule book: “${why.text}”`) : null));
  return el("div", { class: "why", id: "why-box" },
    el("h3", {}, "Why?"),
    t.suggestion_words ? el("p", {}, el("strong", {}, "The suggested move: "), t.suggestion_words) : null,
    items.length ? el("p", {}, "What just happened follows these rules:") : el("p", {}, "Nothing has happened yet: the rules come as the game goes."),
    items.length ? el("ul", {}, items) : null);
}

function highlight(action) {
  if (!action) return;
  const target = board.querySelector(`[data-action="${CSS.escape(action)}"]`)
    ?? board.querySelector(`[data-tile="${CSS.escape(action.split(" ")[1] ?? "")}"]`);  // a board move: its piece
  target?.classList.add("suggested");
}

function render() {
  const t = tutorial;
  const room = roomOf(t);
  const view = viewOf(t, room);
  document.getElementById("title").textContent = `Learn ${t.title}`;
  document.title = `Bestiary: learn ${t.title}`;
  const turn = turnState(view, room, t.learner);
  banner.textContent = t.finished ? t.result : turn.text;
  banner.classList.toggle("mine", turn.mine);
  const before = snapshot(board);
  board.replaceChildren();
  board.dataset.version = String(t.moves.length);
  const ctx = { view, room, me: t.learner, el, seatName: (s) => seatName(room, s), replay: null, act: (action) => step(action) };
  gameModule.render(board, ctx);
  showChanges(board, before);
  highlight(t.suggestion);
  const words = document.getElementById("words");
  showWords(board, words, document.getElementById("words-toggle"), gameModule, ctx);
  if (t.suggestion) words.querySelector(`[data-action="${CSS.escape(t.suggestion)}"]`)?.classList.add("suggested");
  renderCoach(room);
  logList.replaceChildren(...t.events.map((e) => el("li", { class: e.lessons.length ? "taught" : "" },
    namePlayers(e.text, room), " ", ruleLinks(e.rules))));
  logList.scrollTop = logList.scrollHeight;
}

async function realGame() {
  try {
    const levels = (await teachingOf(game))?.computers ?? {};
    const seats = Array.from({ length: tutorial.players }, (_, seat) => (seat === 0 ? { kind: "human" }
      : { kind: "bot", agent: levels.easy ?? "random" }));
    const room = await api("/api/rooms", { method: "POST", body: { game, options: { players: tutorial.players }, seats } });
    const joined = await api(`/api/rooms/${room.code}/seats/0`, { method: "POST", body: { name: "" } });
    saveSeat(room.code, 0, joined.token, room.title);
    location.href = `/room.html?code=${encodeURIComponent(room.code)}`;
  } catch (error) {
    showError(errorBox, error);
  }
}

function restart() {
  sessionStorage.removeItem(STORE);
  tutorial = null;
  step();
}

async function loadGameModule(name) {
  try {
    return await import(`/games/${name}.js`);
  } catch {
    return import("/games/generic.js");
  }
}

async function start() {
  document.getElementById("restart").addEventListener("click", restart);
  document.getElementById("words-toggle").addEventListener("click", () => {
    switchWords();
    if (tutorial) render();
  });
  mountRules(game);
  const teaching = await teachingOf(game);
  if (!teaching) {
    showError(errorBox, `There is no game called '${game}'. Pick one in the lobby.`);
    banner.textContent = "No lesson to show.";
    return;
  }
  setComputerLevels(teaching.computers);
  gameModule = await loadGameModule(game);
  step();
}

start();
