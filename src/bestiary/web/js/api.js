// Talking to the Bestiary server: JSON requests whose errors become readable messages.

export class ServerError extends Error {}

export async function api(path, { method = "GET", body, token } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ServerError("The server cannot be reached. Check your connection and try again.");
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) {
    throw new ServerError(data?.message ?? `The server answered ${response.status} ${response.statusText}.`);
  }
  return data;
}

export function showError(element, error) {
  element.textContent = error instanceof Error ? error.message : String(error);
  element.hidden = false;
}

export function clearError(element) {
  element.hidden = true;
  element.textContent = "";
}

// Seat tokens are kept in this browser, one per room; the private seat link carries one to another browser.
const SEAT_KEY = "bestiary:seat:";

export function savedSeat(code) {
  try { return JSON.parse(localStorage.getItem(`${SEAT_KEY}${code}`)); } catch { return null; }
}

export function saveSeat(code, seat, token, title = null) {
  localStorage.setItem(`${SEAT_KEY}${code}`, JSON.stringify({ seat, token, title, saved: Date.now() }));
}

// Every seat this browser holds: [{code, seat, token, title, saved}].
export function savedSeats() {
  const found = [];
  for (let index = 0; index < localStorage.length; index++) {
    const key = localStorage.key(index);
    if (!key.startsWith(SEAT_KEY)) continue;
    const held = savedSeat(key.slice(SEAT_KEY.length));
    if (held?.token) found.push({ code: key.slice(SEAT_KEY.length), ...held });
  }
  return found.sort((a, b) => (b.saved ?? 0) - (a.saved ?? 0));
}

// The private seat link: the token travels in the fragment, which browsers never send to the server.
export function seatLink(code, seat, token) {
  return `${location.origin}/room.html?code=${encodeURIComponent(code)}#seat=${seat}&token=${encodeURIComponent(token)}`;
}

export function forgetSeat(code) {
  localStorage.removeItem(`bestiary:seat:${code}`);
}

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// The agents behind this game's levels ({easy: "random", ...}), so that computer players are named for people.
let computerLevels = {};

export function setComputerLevels(computers) {
  computerLevels = computers ?? {};
}

// "Computer (medium)" for the agent behind a level; "Computer (mcts:sims=50)" for another.
export function computerName(agent) {
  const level = Object.entries(computerLevels).find(([, spec]) => spec === agent)?.[0];
  return `Computer (${level ?? agent ?? "random"})`;
}

export function seatName(room, seat) {
  const info = room.seats[seat];
  // a computer's seat is named for its level; a seat handed to one for an away player keeps the player's name
  if (info?.kind === "bot" && (!info.name || info.name === `${info.agent} bot`)) return `P${seat + 1} ${computerName(info.agent)}`;
  return info?.name ? `P${seat + 1} ${info.name}` : `P${seat + 1}`;
}

// "1:05" for 65 seconds.
export function clock(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}
