// Critter capture's table: the four colour decks (draw by tapping one), the active card with the
// announced edge, the challenge, every corral with its totals, and the final scores.
import { headerTurn } from "/js/banner.js";

export const handlesActions = true;

const COLOURS = ["fish", "bird", "mammal", "other"];
const EDGES = ["commonness", "size"];

function cardFace(card, ctx, { edge = null, label = null } = {}) {
  const { el } = ctx;
  const value = (name) => el("div", { class: `cc-value${edge === name ? " cc-chosen" : ""}` },
    el("span", {}, name), el("strong", {}, card[name]));
  return el("div", { class: `cc-card cc-${card.colour}`, "data-card": card.id },
    label ? el("div", { class: "cc-label" }, label) : null,
    el("div", { class: "cc-name" }, card.name),
    el("div", { class: "cc-colour" }, card.colour),
    el("div", { class: "cc-values" }, value("commonness"), value("size")),
    el("div", { class: "cc-ability" }, card.ability));
}

function decks(o, ctx, legal) {
  const { el } = ctx;
  return el("div", { class: "cc-decks" }, COLOURS.map((colour) => {
    const action = `draw ${colour}`;
    const count = o.decks[colour];
    const canDraw = legal.includes(action);
    return el("button", {
      type: "button", class: `cc-deck cc-${colour}`, disabled: !canDraw, "data-action": action,
      onclick: () => ctx.act(action),
    }, el("span", { class: "cc-deck-name" }, colour), el("span", { class: "cc-deck-count" }, `${count} left`),
    canDraw ? el("span", { class: "cc-deck-draw" }, "Draw") : null);
  }));
}

function choice(ctx, legal, o) {
  const { el } = ctx;
  const choices = EDGES.filter((edge) => legal.includes(`choose ${edge}`));
  if (!choices.length) return null;
  const why = o.phase === "final-choose" ? "All cards are played: choose how the corrals are scored."
    : o.phase === "tie-choose" ? "A tie! Your card is now the active card: announce its edge."
      : "Announce the edge your face-down card will fight with.";
  return el("div", { class: "cc-choice" }, el("p", {}, why), el("div", { class: "actions" },
    choices.map((edge) => el("button", { type: "button", "data-action": `choose ${edge}`,
      onclick: () => ctx.act(`choose ${edge}`) }, `Choose ${edge}`))));
}

function centre(o, ctx) {
  const { el } = ctx;
  const parts = [];
  if (o.active_card) {
    parts.push(cardFace(o.active_card, ctx, { edge: o.attribute,
      label: `Active card · ${ctx.seatName(o.active_player)}${o.attribute ? ` · ${o.attribute}` : ""}` }));
  } else if (o.active_player !== null && o.attribute) {
    parts.push(el("p", {}, `${ctx.seatName(o.active_player)} announced ${o.attribute}.`));
  }
  if (o.under_active.length) {
    parts.push(el("p", { class: "muted" }, `Under it: ${o.under_active.map((c) => c.name).join(", ")}`));
  }
  if (o.face_down_card) {
    const drawer = o.face_down_card.drawn_by;
    parts.push(el("div", { class: `cc-card cc-back cc-${o.face_down_card.colour}` },
      el("div", { class: "cc-label" }, `Face down · ${ctx.seatName(drawer)}`),
      el("div", { class: "cc-name" }, `${o.face_down_card.colour} card`)));
  }
  if (o.challenger !== null) {
    parts.push(el("p", { class: "cc-challenge" }, `${ctx.seatName(o.challenger)} challenges`
      + (o.attribute ? ` on ${o.attribute}` : "") + "."));
  }
  return el("div", { class: "cc-centre" }, parts.length ? parts : el("p", { class: "muted" }, "No card in play yet."));
}

function corrals(o, ctx) {
  const { el } = ctx;
  return el("div", { class: "cc-corrals" }, o.corrals.map((corral, seat) => {
    const total = (name) => corral.reduce((sum, card) => sum + card[name], 0);
    const score = o.scores ? el("strong", { class: "cc-score" }, `${o.scores[seat]} points`) : null;
    const heading = el("h3", {}, ctx.seatName(seat), seat === ctx.me ? " (you)" : "", seat === o.starting_player ? " ★" : "");
    if (o.corrals_face_down) {  // face down: how many cards, not which
      return el("section", { class: `cc-corral${seat === ctx.me ? " cc-mine" : ""}`, "data-seat": seat },
        heading, el("p", { class: "muted" }, `${corral.length} card${corral.length === 1 ? "" : "s"} face down`));
    }
    return el("section", { class: `cc-corral${seat === ctx.me ? " cc-mine" : ""}`, "data-seat": seat },
      heading,
      el("p", { class: "muted" }, `${corral.length} cards · commonness ${total("commonness")} · size ${total("size")}`),
      score,
      el("div", { class: "cc-chips" }, corral.map((card) =>
        el("span", { class: `cc-chip cc-${card.colour}`, "data-card": card.id, title: `${card.name}: commonness ${card.commonness}, size ${card.size}, ${card.ability}` },
          card.name))));
  }));
}

export function render(board, ctx) {
  const { el, view } = ctx;
  const o = view.observation;
  const legal = view.legal_actions;
  board.append(...[
    el("div", { class: "cc-header" },
      el("h2", {}, `Round ${Math.min(o.round, o.rounds)} of ${o.rounds}`), headerTurn(ctx),
      el("span", { class: "muted" }, `${ctx.seatName(o.starting_player)} started this round`)),
    decks(o, ctx, legal),
    choice(ctx, legal, o),
    centre(o, ctx),
    o.scores ? el("p", { class: "cc-final" }, `Final scoring by ${o.final_attribute}.`) : null,
    corrals(o, ctx)].filter(Boolean));
}

// The table in words (js/words.js): the decks, the card in play, the challenge, every corral.
const cardWords = (card) => `${card.name}, ${card.colour}, commonness ${card.commonness}, size ${card.size}, ability ${card.ability}`;

export function words(o, ctx) {
  const you = (seat) => `${ctx.seatName(seat)}${seat === ctx.me ? " (you)" : ""}`;
  const play = [
    `Round ${Math.min(o.round, o.rounds)} of ${o.rounds}; ${ctx.seatName(o.starting_player)} started it.`,
    `Decks: ${COLOURS.map((colour) => `${colour} ${o.decks[colour]}`).join(", ")} cards left.`,
    o.active_card ? `Active card, ${ctx.seatName(o.active_player)}'s: ${cardWords(o.active_card)}.` : "No card in play yet.",
    o.attribute ? `The announced edge: ${o.attribute}.` : null,
    o.under_active.length ? `Under it: ${o.under_active.map((c) => c.name).join(", ")}.` : null,
    o.face_down_card ? `A ${o.face_down_card.colour} card lies face down, drawn by ${ctx.seatName(o.face_down_card.drawn_by)}.` : null,
    o.challenger !== null ? `${ctx.seatName(o.challenger)} challenges.` : null,
    o.scores ? `Final scoring by ${o.final_attribute}.` : null,
  ];
  const corralLines = o.corrals.map((corral, seat) => {
    const score = o.scores ? ` Score: ${o.scores[seat]} points.` : "";
    if (o.corrals_face_down) return `${you(seat)}: ${corral.length} card${corral.length === 1 ? "" : "s"} face down.${score}`;
    const total = (name) => corral.reduce((sum, card) => sum + card[name], 0);
    return `${you(seat)}: ${corral.length} card${corral.length === 1 ? "" : "s"}, commonness ${total("commonness")}, size ${total("size")}${
      corral.length ? `: ${corral.map(cardWords).join("; ")}` : ""}.${score}`;
  });
  return [["In play", play], ["Corrals", corralLines]];
}
