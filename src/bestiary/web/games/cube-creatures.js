// Cube Creatures' table: each battlefield (Guard first) with health, upgrades and used powers, the
// victory piles, the attack under way with its die, reaction prompts with their countdown, and your
// hand. Moves sit on the cards they concern; the rest (end turn, pass) below the table.
import { headerTurn } from "/js/banner.js";
import { countdown, dock, moveButton, otherMoves, seatLabel, turnOwner } from "/js/table.js";

export const handlesActions = true;

const spotName = (spot) => (spot === 0 ? "guard" : `spot ${spot + 1}`);
const spotLabel = (spot) => (spot === 0 ? "Guard" : `Spot ${spot + 1}`);
const DIE_TEXT = { "+2": "+2 damage", "+1": "+1 damage", "-1": "1 less damage", "-2": "2 less damage",
  "2x": "double damage", miss: "a miss: no damage" };

function upgrade(ctx, card) {
  if (!card) return null;
  return ctx.el("span", { class: `cube-upgrade cube-${card.kind}`, title: card.text },
    `${card.kind}: ${card.name} +${card.bonus}`);
}

function creature(o, ctx, placed, owner, spot, c) {
  const { el } = ctx;
  const legal = ctx.view.legal_actions;
  const buttons = [];
  const attackers = o.battlefields[o.current] ?? [];
  attackers.forEach((mine, from) => {
    const action = `attack P${owner + 1} ${spotName(spot)} with ${spotName(from)}`;
    if (legal.includes(action)) buttons.push(moveButton(ctx, placed, action, `Attack with ${mine.name}`, "cube-attack",
      `Attack with ${mine.name}: ${c.name}`));
  });
  // each button's name begins with its visible words (what a voice-control user says), then names the card
  const offers = [[`target P${owner + 1} ${spotName(spot)}`, "Target this", `Target this: ${c.name}`],
    [`use power of ${spotName(spot)}`, "Use power", `Use power of ${c.name}`],
    [`swap guard with ${spotName(spot)}`, "Make Guard", `Make Guard: ${c.name}`]];
  for (const [action, label, name] of offers) {
    // powers and Guard swaps are the owner's moves: only the seat to act sees them as legal
    if (legal.includes(action) && (action.startsWith("target") || owner === ctx.me)) {
      buttons.push(moveButton(ctx, placed, action, label, "", name));
    }
  }
  const ratio = c.max_health ? c.health_left / c.max_health : 0;
  const attack = o.attack;
  const fighting = attack && (attack.attacker === c.id && attack.attacker_player === owner
    || attack.defender === c.id && attack.defender_player === owner);
  return el("div", { class: `cube-creature${spot === 0 ? " cube-guard" : ""}${fighting ? " cube-fighting" : ""}`,
    "data-spot": spot, "data-card": c.id },
  el("div", { class: "cube-spot" }, spotLabel(spot), c.foil ? " · foil" : ""),
  el("div", { class: "cube-name" }, c.name),
  el("div", { class: "cube-stats" }, el("span", {}, `⚔ ${c.attack_now}`),
    el("span", {}, `❤ ${c.health_left}/${c.max_health}`)),
  el("div", { class: "cube-health", role: "meter", "aria-valuemin": 0, "aria-valuemax": c.max_health,
    "aria-valuenow": c.health_left, "aria-label": `health ${c.health_left} of ${c.max_health}` },
  el("span", { class: ratio <= 1 / 3 ? "low" : "", style: `width:${Math.round(ratio * 100)}%` })),
  el("div", { class: "cube-upgrades" }, upgrade(ctx, c.weapon), upgrade(ctx, c.armor)),
  c.power ? el("div", { class: `cube-power${c.power_used ? " used" : ""}` },
    el("strong", {}, c.power_used ? "Power used: " : "Power ready: "), c.power) : null,
  buttons.length ? el("div", { class: "actions" }, buttons) : null);
}

function battlefield(o, ctx, placed, owner) {
  const { el } = ctx;
  const field = o.battlefields[owner];
  const pile = o.victory[owner];
  return el("section", { class: `cube-field${owner === ctx.me ? " cube-mine" : ""}${o.current === owner ? " cube-current" : ""}`,
    "data-seat": owner },
  el("h3", {}, seatLabel(ctx, owner), o.current === owner ? turnOwner(ctx, owner) : "", o.out[owner] ? " · out of the game" : ""),
  el("p", { class: "muted" }, `${o.hand_sizes[owner]} cards in hand · ${field.length} of ${o.limits[owner]} spots filled`),
  el("div", { class: "cube-victory" }, el("strong", {}, `Victory pile ${pile.length}/${o.win_at}`),
    pile.length ? `: ${pile.map((card) => card.name).join(", ")}` : ""),
  el("div", { class: "cube-creatures" }, field.length
    ? field.map((c, spot) => creature(o, ctx, placed, owner, spot, c))
    : el("p", { class: "muted" }, "No creatures yet.")));
}

function situation(o, ctx, placed) {
  const { el } = ctx;
  const parts = [];
  if (o.attack) {
    const a = o.attack;
    const attacker = o.battlefields[a.attacker_player].find((c) => c.id === a.attacker);
    const strength = attacker ? ` (attack ${attacker.attack_now + o.boost})` : "";
    const notes = [a.prevented ? "stopped" : "", a.reduce ? `${a.reduce} less damage` : ""].filter(Boolean);
    parts.push(el("p", { class: "cube-under-way" }, el("strong", {}, "Attack! "),
      `${ctx.seatName(a.attacker_player)}'s ${a.attacker_name}${strength} attacks ${ctx.seatName(a.defender_player)}'s ${a.defender_name}`,
      notes.length ? ` (${notes.join(", ")})` : "", "."));
  }
  if (o.pending) {
    const p = o.pending;
    parts.push(el("p", { class: "cube-under-way" }, el("strong", {}, `${p.kind === "power" ? "Power" : "Action"} under way: `),
      `${p.name}: ${p.text}`, p.target ? ` (on ${p.target})` : ""));
  }
  if (o.window) {
    const mine = o.to_act.includes(ctx.me);
    // the reactions are offered in the prompt itself: on a phone the hand may be out of sight
    const reactions = mine ? (o.hand ?? []).filter((card) => ctx.view.legal_actions.includes(`react ${card.id}`))
      .map((card) => moveButton(ctx, placed, `react ${card.id}`, `React: ${card.name}`)) : [];
    const pass = mine && ctx.view.legal_actions.includes("pass") ? moveButton(ctx, placed, "pass", "Pass", "secondary") : null;
    parts.push(el("div", { class: "cube-prompt", role: "status" },
      el("strong", {}, mine ? `React to this ${o.window}? ` : `Reactions may answer this ${o.window}. `),
      mine ? "Play a reaction card or pass." : `Waiting for ${o.to_act.map((s) => ctx.seatName(s)).join(", ")}.`,
      " ", countdown(ctx, ctx.view.window?.closes_in),
      reactions.length || pass ? el("div", { class: "actions" }, reactions, pass) : null));
  }
  if (o.last_roll) {
    parts.push(el("div", { class: "cube-roll" }, el("span", { class: "cube-die", "aria-hidden": "true" }, o.last_roll),
      el("span", {}, `Last roll of the attack die: ${o.last_roll} (${DIE_TEXT[o.last_roll] ?? o.last_roll})`)));
  }
  if (o.used_this_turn.length) parts.push(el("p", { class: "muted" }, `Done this turn: ${o.used_this_turn.join(", ")}`));
  return parts.length ? el("div", { class: "cube-situation" }, parts) : null;
}

function cardDetail(card, inWords = false) {
  if (card.type === "creature") {
    return (inWords ? `attack ${card.attack}, health ${card.health}` : `⚔ ${card.attack} ❤ ${card.health}`)
      + (card.power ? `${inWords ? ", power:" : " ·"} ${card.power}` : "");
  }
  if (card.type === "upgrade") return `${card.kind} +${card.bonus} ${card.kind === "weapon" ? "attack" : "health"}`;
  if (card.type === "reaction") return `Reaction to ${card.responds_to}: ${card.text}`;
  return card.text;
}

function handCard(o, ctx, placed, card) {
  const { el } = ctx;
  const legal = ctx.view.legal_actions;
  const buttons = [];
  for (const verb of ["play", "react"]) {
    const action = `${verb} ${card.id}`;
    if (legal.includes(action) && !placed.has(action)) buttons.push(moveButton(ctx, placed, action, verb === "play" ? "Play" : "React", "",
      `${verb === "play" ? "Play" : "React with"} ${card.name}`));
  }
  (o.battlefields[ctx.me] ?? []).forEach((c, spot) => {
    const action = `attach ${card.id} to ${spotName(spot)}`;
    if (legal.includes(action) && !placed.has(action)) buttons.push(moveButton(ctx, placed, action, `Attach to ${c.name}`, "",
      `Attach to ${c.name}: ${card.name}`));
  });
  return el("div", { class: `cube-card cube-type-${card.type}`, "data-card": card.id },
    el("div", { class: "cube-spot" }, card.type, card.foil ? " · foil" : ""),
    el("div", { class: "cube-name" }, card.name),
    el("div", { class: "cube-detail" }, cardDetail(card)),
    buttons.length ? el("div", { class: "actions" }, buttons) : null);
}

export function render(board, ctx) {
  const { el, view } = ctx;
  const o = view.observation;
  const placed = new Set();
  const top = o.discard.length ? `, top: ${o.discard[o.discard.length - 1].name}` : "";
  const prompt = situation(o, ctx, placed);
  const fields = o.battlefields.map((_, owner) => battlefield(o, ctx, placed, owner));
  const hand = o.hand === null ? null : el("section", { class: "cube-hand" },
    el("h3", {}, `Your hand (${o.hand.length})`),
    el("div", { class: "cube-cards" }, o.hand.length ? o.hand.map((card) => handCard(o, ctx, placed, card))
      : el("p", { class: "muted" }, "Empty.")));
  board.append(...[
    el("div", { class: "cube-header" },
      el("h2", {}, o.turn ? `Turn ${o.turn} of at most ${o.turn_limit}` : "Setting up"), headerTurn(ctx),
      el("span", { class: "muted" }, `First to ${o.win_at} defeated creatures wins · deck ${o.deck} · discard ${o.discard.length}${top}`)),
    prompt,
    ...fields,
    dock(ctx, otherMoves(ctx, placed), hand)].filter(Boolean));
}

// The table in words (js/words.js): the attack under way, each player's creatures spot by spot, your hand.
function creatureWords(c, spot) {
  const upgrades = [c.weapon, c.armor].filter(Boolean).map((u) => `${u.kind} ${u.name} +${u.bonus}`);
  return `${spotLabel(spot)}: ${c.name}${c.foil ? " (foil)" : ""}, attack ${c.attack_now}, health ${c.health_left} of ${c.max_health}`
    + (upgrades.length ? `, ${upgrades.join(", ")}` : "")
    + (c.power ? `, power ${c.power_used ? "used" : "ready"}: ${c.power}` : "");
}

export function words(o, ctx) {
  const top = o.discard.length ? `, top: ${o.discard[o.discard.length - 1].name}` : "";
  const now = [
    o.turn ? `Turn ${o.turn} of at most ${o.turn_limit}.` : "Setting up.",
    `First to ${o.win_at} defeated creatures wins. Deck ${o.deck} cards, discard ${o.discard.length}${top}.`,
    o.attack ? `Attack under way: ${ctx.seatName(o.attack.attacker_player)}'s ${o.attack.attacker_name} attacks `
      + `${ctx.seatName(o.attack.defender_player)}'s ${o.attack.defender_name}.` : null,
    o.pending ? `${o.pending.kind === "power" ? "Power" : "Action"} under way: ${o.pending.name}: ${o.pending.text}.` : null,
    o.window ? `Reactions may answer this ${o.window}; waiting for ${o.to_act.map((s) => ctx.seatName(s)).join(", ")}.` : null,
    o.last_roll ? `Last roll of the attack die: ${DIE_TEXT[o.last_roll] ?? o.last_roll}.` : null,
    o.used_this_turn.length ? `Done this turn: ${o.used_this_turn.join(", ")}.` : null,
  ];
  const sections = [["Now", now]];
  o.battlefields.forEach((field, owner) => {
    const pile = o.victory[owner];
    sections.push([`${seatLabel(ctx, owner)}${o.current === owner ? ", whose turn it is" : ""}${o.out[owner] ? ", out of the game" : ""}`, [
      `${o.hand_sizes[owner]} cards in hand; ${field.length} of ${o.limits[owner]} spots filled.`,
      `Victory pile ${pile.length} of ${o.win_at}${pile.length ? `: ${pile.map((card) => card.name).join(", ")}` : ""}.`,
      ...field.map((c, spot) => `${creatureWords(c, spot)}.`)]]);
  });
  if (o.hand !== null) {
    sections.push([`Your hand (${o.hand.length})`, o.hand.length
      ? o.hand.map((card) => `${card.name}: ${card.type}, ${cardDetail(card, true)}.`) : ["Empty."]]);
  }
  return sections;
}
