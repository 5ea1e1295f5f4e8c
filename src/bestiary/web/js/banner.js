// Who must act, why and for how long, read once from the view: the banner, the seat list, the tab title, the
// turn alerts and the game pages' own headers all use this, so they never disagree.
import { seatName } from "/js/api.js";

const PASS = "pass";

export function resultText(room) {
  const returns = room.result?.returns ?? [];
  if (!returns.length) return "Game over.";
  const best = Math.max(...returns);
  const winners = returns.map((r, s) => (r === best ? seatName(room, s) : null)).filter(Boolean);
  if (winners.length === returns.length) return "Game over. A draw.";
  // a game that names its loser (Creatures of Lungo is about who ends up with the most trouble) says who
  const loser = Number.isInteger(room.result?.loser) ? ` Loser: ${seatName(room, room.result.loser)}.` : "";
  return `Game over. ${winners.length > 1 ? "Shared win" : "Winner"}: ${winners.join(", ")}.${loser}`;
}

export function turnState(view, room, me) {
  if (room.status === "waiting") {
    const open = room.seats.filter((s) => !s.taken).length;
    return { kind: "waiting", toAct: [], mine: false, seconds: null,
      text: `Waiting for ${open} more player${open === 1 ? "" : "s"} to join.` };
  }
  if (room.status === "finished") return { kind: "finished", toAct: [], mine: false, seconds: null, text: resultText(room) };
  const toAct = view.to_act;
  const kind = view.decision_kind;
  const computerHasMine = me !== null && room.seats[me]?.kind === "bot";
  const mine = me !== null && toAct.includes(me) && view.legal_actions.length > 0;
  const onlyPass = mine && view.legal_actions.every((a) => a === PASS);
  const others = toAct.filter((s) => s !== me).map((s) => seatName(room, s));
  const names = toAct.map((s) => (s === me ? "you" : seatName(room, s))).join(", ");
  let text;
  if (computerHasMine) text = `A computer plays your seat. ${names ? `To act: ${names}.` : ""}`.trim();
  else if (onlyPass) text = `Nothing to play now: pass, or let the time run out.${others.length ? ` (${others.join(", ")} may act.)` : ""}`;
  else if (kind === "race") text = mine ? `Race${others.length ? ` with ${others.join(", ")}` : ""}! The first to act wins it.` : `Race between ${names}.`;
  else if (kind === "response") text = mine ? `You may respond now${others.length ? ` (so may ${others.join(", ")})` : ""}.` : `Waiting for a response from ${names}.`;
  else if (kind === "simultaneous") text = mine ? `Choose now${others.length ? `, as ${others.join(", ")} do` : ""} (no one sees your choice yet).` : `Waiting for ${names} to choose.`;
  else text = mine ? "Your turn." : `${names} to play.`;
  const seconds = view.window ? view.window.closes_in : view.turn_closes_in;
  return { kind, toAct, mine, seconds: seconds ?? null, text };
}

// The line a game page's own header shows: the banner's words (who acts now, or the result). In a replay, the
// result at the last step of a finished game, else nothing (the banner counts the decisions).
export function headerTurn(ctx) {
  const text = ctx.replay ? (ctx.replay.atEnd && ctx.room.status === "finished" ? resultText(ctx.room) : null)
    : turnState(ctx.view, ctx.room, ctx.me).text;
  return text === null ? null : ctx.el("strong", { class: "header-turn", "data-header-turn": "" }, text);
}
