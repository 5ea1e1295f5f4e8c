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

// Seat tokens live in this browser only, one per room.
export function savedSeat(code) {
  try { return JSON.parse(localStorage.getItem(`bestiary:seat:${code}`)); } catch { return null; }
}

export function saveSeat(code, seat, token) {
  localStorage.setItem(`bestiary:seat:${code}`, JSON.stringify({ seat, token }));
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

export function seatName(room, seat) {
  const info = room.seats[seat];
  return info?.name ? `P${seat + 1} ${info.name}` : `P${seat + 1}`;
}
