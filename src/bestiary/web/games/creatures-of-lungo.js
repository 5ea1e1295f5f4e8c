// Creatures of Lungo's table: your hand and secret goal, the poison and slime face up in front of each
// player, the battle with its face-down choices and their reveal, the swat pile with a big swat button,
// and the tokens to grab. Moves sit on the cards and players they concern; the rest below the table.
import { headerTurn } from "/js/banner.js";
import { countdown, dock, moveButton, otherMoves, seatLabel, turnOwner } from "/js/table.js";

export const handlesActions = true;

const PHASE_TEXT = {
  setup: "dealing", "turn-draw": "drawing", play: "playing cards", target: "choosing a target",
  response: "others may respond", "battle-choose": "battle: choosing creatures face down",
  "battle-fight": "battle: the reveal", "dice-battle": "battle: rolling dice", "swat-place": "turning up cards",
  "swat-race": "SWAT? The first to swat an insect wins the pile", "battle-winnings": "collecting winnings",
  "token-moment": "anyone taking a token?", "token-race": "RACE for the tokens!", over: "game over" };

function cardDetail(card, joint = " · ") {
  if (card.kind === "creature") return [`${card.element} ${card.species}`, `power ${card.power}`, `weak to ${card.weakness}`].join(joint);
  if (card.kind === "mutant") return [`mutant ${card.species}`, `power ${card.power}`, "no weakness"].join(joint);
  if (card.kind === "power") return `power card: ${card.species} +2`;
  return card.text ?? card.kind;
}

function cardFace(ctx, card, { buttons = [], big = false } = {}) {
  const { el } = ctx;
  const detail = cardDetail(card);
  const insect = big && card.species === "insect";  // only an insect on top of the swat pile calls for a swat
  return el("div", { class: `lg-card lg-${card.element ?? card.kind}${big ? " lg-big" : ""}${insect ? " lg-insect" : ""}`,
    "data-card": card.id },
  el("div", { class: "lg-kind" }, card.kind, insect ? " · INSECT!" : ""),
  el("div", { class: "lg-name" }, card.name),
  el("div", { class: "lg-detail" }, detail),
  buttons.length ? el("div", { class: "actions" }, buttons) : null);
}

function players(o, ctx, placed) {
  const { el } = ctx;
  const legal = ctx.view.legal_actions;
  return el("div", { class: "lg-players" }, o.hand_sizes.map((size, seat) => {
    const place = o.token_takers.indexOf(seat);
    const aim = `target P${seat + 1}`;
    return el("section", { class: `lg-player${seat === ctx.me ? " lg-mine" : ""}${seat === o.active_player ? " lg-active" : ""}`,
      "data-seat": seat },
    el("h3", {}, seatLabel(ctx, seat), seat === o.active_player && o.phase !== "over" ? turnOwner(ctx, seat) : ""),
    el("p", { class: "muted" }, `${size} card${size === 1 ? "" : "s"} in hand`),
    place >= 0 ? el("p", { class: "lg-token-taken" }, place === 0 ? "● took the first token" : "● has a token") : null,
    o.loser === seat ? el("p", { class: "lg-loser" }, "the loser") : null,
    o.in_front[seat].length ? el("div", { class: "lg-front" }, o.in_front[seat].map((card) =>
      el("span", { class: `lg-affliction lg-${card.kind}`, title: card.text }, card.name))) : null,
    legal.includes(aim) ? moveButton(ctx, placed, aim, `Aim at ${ctx.seatName(seat)}`) : null);
  }));
}

function tokens(o, ctx, placed) {
  const { el } = ctx;
  const grab = ctx.view.legal_actions.includes("grab token");
  return el("div", { class: "lg-tokens" },
    el("span", { class: "lg-token-row", "aria-hidden": "true" },
      Array.from({ length: o.tokens_left }, () => el("span", { class: "lg-token" }))),
    el("span", {}, `${o.tokens_left} token${o.tokens_left === 1 ? "" : "s"} left to grab`),
    grab ? moveButton(ctx, placed, "grab token", "Grab a token!", "lg-grab") : null,
    grab && o.decision === "race" ? countdown(ctx, ctx.view.window?.closes_in) : null);
}

function battle(o, ctx, placed) {
  const { el } = ctx;
  const b = o.battle;
  if (!b) return null;
  const parts = [el("h3", {}, `Battle! ${b.card.name}`),
    el("p", {}, `Drawn by ${ctx.seatName(b.drawer)}: ${b.card.text}`)];
  const sides = b.choices.map((choice, seat) => {
    let shown;
    if (Array.isArray(choice)) {
      shown = choice.length ? el("div", { class: "lg-cards" }, choice.map((card) => cardFace(ctx, card)))
        : el("span", { class: "muted" }, o.phase === "battle-choose" && seat === ctx.me
          ? "put a creature down from your hand" : "nothing put down");
    } else {
      shown = el("div", { class: "lg-cards" }, Array.from({ length: choice.face_down }, () =>
        el("div", { class: "lg-card lg-back" }, el("div", { class: "lg-name" }, "face down"))),
      el("span", { class: "muted" }, choice.chosen ? "chosen" : "choosing…"));
    }
    const roll = b.rolling.includes(seat) ? el("span", { class: "lg-roll" }, `🎲 ${b.rolls[seat] || "–"}`) : null;
    return el("div", { class: `lg-side${b.champion === seat ? " lg-champion" : ""}${seat === ctx.me ? " lg-own" : ""}` },
      el("strong", {}, seatLabel(ctx, seat)), b.champion === seat ? " · wins the battle" : "", " ", roll, shown);
  });
  if (b.choices.some((c) => !Array.isArray(c) || c.length)) parts.push(el("div", { class: "lg-sides" }, sides));
  if (b.central_pile.length) {
    const top = b.central_pile[b.central_pile.length - 1];
    const out = b.in_swat.map((inside, seat) => (inside ? null : ctx.seatName(seat))).filter(Boolean);
    const swat = ctx.view.legal_actions.includes("swat")
      ? moveButton(ctx, placed, "swat", "SWAT!", "lg-swat") : null;
    parts.push(el("div", { class: "lg-swat-pile" },
      el("p", {}, el("strong", {}, `Swat pile: ${b.central_pile.length} card${b.central_pile.length === 1 ? "" : "s"}`),
        out.length ? ` · out of the swat: ${out.join(", ")}` : "", " ",
        o.decision === "race" ? countdown(ctx, ctx.view.window?.closes_in) : null),
      el("div", { class: "lg-swat-row" }, cardFace(ctx, top, { big: true }), swat)));
  }
  return el("section", { class: "lg-battle" }, parts);
}

function hand(o, ctx, placed) {
  const { el } = ctx;
  if (o.hand === null) return null;
  const legal = ctx.view.legal_actions;
  const labels = { play: "Play", commit: "Put down", add: "Add to battle" };
  const goal = o.goal ? el("div", { class: `lg-goal${o.goal_met ? " lg-met" : ""}` },
    el("strong", {}, `Your secret goal: ${o.goal.name}`), o.goal_met ? " (met!)" : "", el("div", {}, o.goal.text)) : null;
  return el("section", { class: "lg-hand" }, goal, el("h3", {}, `Your hand (${o.hand.length})`),
    o.hand.length ? el("div", { class: "lg-cards" }, o.hand.map((card) => cardFace(ctx, card, {
      buttons: Object.entries(labels).filter(([verb]) => legal.includes(`${verb} ${card.id}`) && !placed.has(`${verb} ${card.id}`))
        .map(([verb, label]) => moveButton(ctx, placed, `${verb} ${card.id}`, label, "", `${label} ${card.name}`)) })))
      : el("p", { class: "muted" }, "Empty."));
}

export function render(board, ctx) {
  const { el, view } = ctx;
  const o = view.observation;
  const placed = new Set();
  const top = o.discard.length ? ` · discard top: ${o.discard[o.discard.length - 1].name}` : "";
  // LUNGO-12: the top card's back shows everyone whether a battle is coming
  const battleBack = o.battle_on_top ? el("strong", { class: "lg-battle-back" }, " · a battle card is on top") : null;
  const pending = o.pending_card ? el("div", { class: "lg-pending" }, el("strong", {}, "Being played"),
    o.target !== null ? ` at ${ctx.seatName(o.target)}` : "", ": ", cardFace(ctx, o.pending_card)) : null;
  // the races come first (the swat pile, then the tokens), above the plain moves such as pass
  const sections = [battle(o, ctx, placed), tokens(o, ctx, placed), players(o, ctx, placed), pending, hand(o, ctx, placed)];
  board.append(...[
    el("div", { class: "lg-header" },
      el("h2", {}, `Turn ${o.turn} of at most ${o.turn_limit}`), headerTurn(ctx),
      el("span", { class: "muted" }, `${PHASE_TEXT[o.phase] ?? o.phase} · draw pile ${o.draw_pile}`, battleBack, top)),
    sections[0], sections[1], ...sections.slice(2, 4), dock(ctx, otherMoves(ctx, placed), sections[4])].filter(Boolean));
}

// The table in words (js/words.js): the turn, the battle and its swat pile, each player, your goal and hand.
const cardWords = (card) => (["creature", "mutant", "power"].includes(card.kind)
  ? `${card.name} (${cardDetail(card, ", ")})` : `${card.name}, ${card.kind}: ${cardDetail(card)}`);

export function words(o, ctx) {
  const now = [
    `Turn ${o.turn} of at most ${o.turn_limit}: ${PHASE_TEXT[o.phase] ?? o.phase}.`,
    `Draw pile ${o.draw_pile} cards${o.battle_on_top ? "; a battle card is on top" : ""}.`,
    o.discard.length ? `Discard pile top: ${o.discard[o.discard.length - 1].name}.` : null,
    `${o.tokens_left} token${o.tokens_left === 1 ? "" : "s"} left to grab.`,
    o.pending_card ? `Being played${o.target !== null ? ` at ${ctx.seatName(o.target)}` : ""}: ${cardWords(o.pending_card)}.` : null,
  ];
  const sections = [["Now", now]];
  const b = o.battle;
  if (b) {
    const sides = b.choices.map((choice, seat) => {
      const shown = Array.isArray(choice) ? (choice.length ? choice.map(cardWords).join(", ") : "nothing put down")
        : `${choice.face_down} card${choice.face_down === 1 ? "" : "s"} face down, ${choice.chosen ? "chosen" : "choosing"}`;
      const roll = b.rolling.includes(seat) ? `, rolled ${b.rolls[seat] || "nothing yet"}` : "";
      return `${seatLabel(ctx, seat)}: ${shown}${roll}${b.champion === seat ? "; wins the battle" : ""}.`;
    });
    const pile = b.central_pile.length ? (() => {
      const top = b.central_pile[b.central_pile.length - 1];
      return `Swat pile: ${b.central_pile.length} card${b.central_pile.length === 1 ? "" : "s"}, top: ${cardWords(top)}`
        + `${top.species === "insect" ? ": an insect, swat it!" : "."}`;
    })() : null;
    sections.push([`Battle: ${b.card.name}`, [`Drawn by ${ctx.seatName(b.drawer)}: ${b.card.text}`, ...sides, pile]]);
  }
  sections.push(["Players", o.hand_sizes.map((size, seat) => {
    const place = o.token_takers.indexOf(seat);
    const front = o.in_front[seat].map((card) => `${card.name} (${card.text.replace(/\.$/, "")})`);
    return `${seatLabel(ctx, seat)}${seat === o.active_player && o.phase !== "over" ? ", whose turn it is" : ""}: `
      + `${size} card${size === 1 ? "" : "s"} in hand`
      + (front.length ? `; in front: ${front.join(", ")}` : "; nothing in front")
      + (place === 0 ? "; took the first token" : place > 0 ? "; has a token" : "")
      + (o.loser === seat ? "; the loser" : "") + ".";
  })]);
  if (o.goal) sections.push(["Your secret goal", [`${o.goal.name}${o.goal_met ? " (met)" : ""}: ${o.goal.text}`]]);
  if (o.hand !== null) {
    sections.push([`Your hand (${o.hand.length})`, o.hand.length ? o.hand.map((card) => `${cardWords(card)}.`) : ["Empty."]]);
  }
  return sections;
}
