// My tables: every room this browser holds a seat at, the ones where it is your turn first.
import { api, el, forgetSeat, savedSeats, seatName } from "/js/api.js";
import { turnState } from "/js/banner.js";

const box = document.getElementById("tables");

async function look(held) {
  try {
    const view = await api(`/api/rooms/${encodeURIComponent(held.code)}/view?events_from=1000000`, { token: held.token });
    if (view.seat === null) {  // the seat was given up: nothing to come back to
      forgetSeat(held.code);
      return null;
    }
    return { held, view, turn: turnState(view, view.room, view.seat) };
  } catch {
    return { held, view: null, turn: null };  // the server cannot say now; keep the seat
  }
}

async function list() {
  const found = (await Promise.all(savedSeats().map(look))).filter(Boolean);
  if (!found.length) {
    box.replaceChildren(el("p", { class: "muted" }, "This browser holds no seat yet. Create a room, or open your seat link."));
    return;
  }
  const order = (t) => (t.turn?.mine ? 0 : t.view?.room.status === "finished" ? 2 : 1);
  found.sort((a, b) => order(a) - order(b));
  box.replaceChildren(el("table", { class: "rooms tables" },
    el("tr", {}, el("th", {}, "Game"), el("th", {}, "You"), el("th", {}, "Now"), el("th", {})),
    ...found.map(({ held, view, turn }) => el("tr", { class: turn?.mine ? "my-turn" : "", "data-code": held.code },
      el("td", {}, view?.room.title ?? held.title ?? "a game"),
      el("td", {}, view ? seatName(view.room, view.seat) : `P${held.seat + 1}`),
      el("td", {}, turn?.mine ? el("strong", { class: "your-turn" }, "Your turn") : turn?.text ?? "cannot be reached now"),
      el("td", {}, el("a", { class: "button", href: `/room.html?code=${encodeURIComponent(held.code)}` }, turn?.mine ? "Play" : "Open"))))));
}

document.getElementById("refresh").addEventListener("click", list);
list();
