// The post-game review (docs/review.md): asked for from the end screen, made on the server while a progress
// bar shows how far it has come, then shown under the replay's board: the win-probability graph (plain SVG)
// with the errors and the luckiest events marked, each player's summary and the costliest decisions. A click
// on the graph, a mark or a listed decision moves the replay there. The server sends each viewer only what
// the replay shows it: another seat's hidden move comes as the replay's words, or not at all.
import { api, el, seatName } from "/js/api.js";
import { ruleLinks } from "/js/rules.js";

const SVG = "http://www.w3.org/2000/svg";
const NARROW = 520;  // a panel narrower than this (a phone) gets a taller graph, so that its marks stay apart
const PAD = { left: 34, right: 10, top: 10, bottom: 22 };
const LINES = ["#2b6cb0", "#c53030", "#2f855a", "#6b46c1", "#b7791f", "#319795", "#d53f8c", "#4a5568"];
const ERRORS = { inaccuracy: "#d69e2e", mistake: "#dd6b20", blunder: "#c53030" };
const LUCKIEST = 5;
const POLL_MS = 1000;

// The replay's stops (docs: one per decision, with the draws and rolls it caused), as the server counts them:
// the number of a stop is what the replay calls "decision N".
function replayStops(review) {
  const chance = new Set(review.chance.map((c) => c.step));
  const past = (step) => {
    while (step < review.steps && chance.has(step)) step++;
    return step;
  };
  return [past(0), ...review.decisions.map((d) => past(d.step + 1))];
}

function stopAfter(stops, step) {
  const index = stops.findIndex((applied) => applied > step);
  return index === -1 ? stops.length - 1 : index;
}

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  for (const child of children) node.append(child);
  return node;
}

function signed(value) {
  return `${value >= 0 ? "+" : "−"}${Math.abs(value).toFixed(2)}`;
}

function figure(value, digits = 2) {
  return value === null || value === undefined ? "n/a" : value.toFixed(digits);
}

// `code`, `token`: the room and the viewer's seat token (null: a spectator); `room`: its info, for names;
// `live`: the end screen of a game just played, whose button `offer` asks for the review and opens the replay;
// `jump(step)`: move the replay to the position after `step`. Returns `{ ask, setStep(applied) }`: `ask`
// asks for the review (the end screen's button), `setStep` marks on the graph the position the replay shows
// (after `applied` moves).
export function mountReview(panel, { code, token, room, live, offer, jump, replayUrl }) {
  const path = `/api/rooms/${encodeURIComponent(code)}/review`;
  let shownAt = null;
  let graph = null;
  let poller = null;

  async function ask() {
    try {
      const status = await api(path, { method: "POST", token });
      if (live) {
        location.href = replayUrl;
        return;
      }
      show(status);
    } catch (error) {
      showProblem(error.message);
    }
  }

  async function look() {
    try {
      show(await api(path, { token }));
    } catch (error) {
      showProblem(error.message);
    }
  }

  function showProblem(message) {
    panel.hidden = false;
    panel.replaceChildren(el("h3", {}, "Review"), el("p", { class: "error", role: "alert" }, message),
      el("button", { type: "button", id: "review-ask", onclick: ask }, "Try again"));
  }

  function show(status) {
    clearTimeout(poller);
    panel.hidden = false;
    if (live) {  // the end screen offers it beside the result: only the button's words change here
      panel.hidden = true;
      if (offer) offer.textContent = status.status === "none" ? "Review this game" : "See the review";
      return;
    }
    if (status.status === "none") {
      panel.replaceChildren(el("h3", {}, "Review"),
        el("p", { class: "muted" }, "Every decision weighed against the best one, every roll and draw's luck, and each player's chances move by move."),
        el("button", { type: "button", id: "review-ask", onclick: ask }, "Review this game"));
    } else if (status.status === "running") {
      panel.replaceChildren(el("h3", {}, "Review"),
        el("p", { id: "review-progress-text" }, `Reviewing the game: step ${status.done} of ${status.total}…`),
        el("progress", { id: "review-progress", max: String(Math.max(1, status.total)), value: String(status.done),
          "aria-label": "review progress" }));
      poller = setTimeout(look, POLL_MS);
    } else if (status.status === "failed") {
      showProblem(status.message ?? "The review failed.");
    } else {
      render(status.review);
    }
  }

  function render(review) {
    const name = (player) => seatName(room, player);
    const stops = replayStops(review);
    const label = (step) => `Decision ${stopAfter(stops, step)}`;
    const narrow = (panel.clientWidth || NARROW) < NARROW;
    graph = drawGraph(review, name, jump, label, narrow ? [420, 300] : [640, 220]);
    const decisions = new Map(review.decisions.map((d) => [d.step, d]));
    panel.replaceChildren(
      el("h3", {}, "Review"),
      ...review.verdict.map((sentence) => el("p", { class: "review-verdict" }, sentence.replace(/\bP(\d+)\b/g, (whole, n) => name(Number(n) - 1)))),
      graph.figure,
      summaries(review, name),
      el("h4", {}, "The costliest decisions"),
      review.costliest.length
        ? el("ol", { class: "review-costliest" }, review.costliest.map((step) => costly(decisions.get(step), name, review.viewer, label)))
        : el("p", { class: "muted" }, "No decision lost anything measurable."),
    );
    if (shownAt !== null) graph.mark(shownAt);
  }

  function costly(decision, name, viewer, label) {
    const mine = decision.player === viewer;
    const played = decision.action ?? "a move you could not see";
    const best = decision.best ?? (mine ? decision.action : "a move you could not see");
    return el("li", { class: `review-decision review-${decision.class}`, "data-step": decision.step },
      el("button", { type: "button", class: "secondary review-jump", onclick: () => jump(decision.step),
        title: "show this move in the replay" }, label(decision.step)),
      " ", el("strong", {}, name(decision.player)), ` · ${decision.class}, lost ${decision.loss.toFixed(3)} of the point`,
      el("div", {}, "Played: ", el("span", { class: "review-played" }, played),
        ` (${(decision.value_chosen * 100).toFixed(0)} %)`),
      el("div", {}, "Best: ", el("span", { class: "review-best" }, best), ` (${(decision.value_best * 100).toFixed(0)} %)`),
      decision.rules?.length ? el("div", { class: "muted" }, "What followed: ", ruleLinks(decision.rules)) : null);
  }

  look();
  return {
    ask,
    setStep(applied) {
      shownAt = applied;
      graph?.mark(applied);
    },
  };
}

function summaries(review, name) {
  const counts = (player, kind) => review.decisions.filter((d) => d.player === player && d.class === kind).length;
  const head = ["Player", "Decisions", "Error rate", "Inaccuracies, mistakes, blunders", "Luck", "Result", "Luck-adjusted"];
  return el("div", { class: "review-table-box" }, el("table", { class: "rooms review-players" },
    el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h)))),
    el("tbody", {}, review.players.map((p) => el("tr", { "data-player": p.player },
      el("td", {}, el("span", { class: "review-swatch", style: `background:${LINES[p.player % LINES.length]}` }), " ", name(p.player)),
      [String(p.decisions), figure(p.error_rate, 4),
        `${counts(p.player, "inaccuracy")} / ${counts(p.player, "mistake")} / ${counts(p.player, "blunder")}`,
        signed(p.luck), figure(p.result), figure(p.luck_adjusted)]
        .map((text, column) => el("td", { "data-label": head[column + 1] }, text)))))),
  el("p", { class: "muted" }, "Error rate: the share of the point lost per decision that was not forced. Luck: what the rolls and draws gave, net of the others'. Luck-adjusted: the result less the luck."));
}

// The graph: x counts the moves made (0 to steps), y each player's chance of winning after them.
function drawGraph(review, name, jump, label, [width, height]) {
  const steps = review.steps;
  const players = review.players.length;
  const x = (applied) => PAD.left + (width - PAD.left - PAD.right) * (steps ? applied / steps : 0);
  const y = (value) => PAD.top + (height - PAD.top - PAD.bottom) * (1 - value);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "review-graph", role: "img",
    "aria-label": "each player's chance of winning after every move; click to move the replay there" });
  for (const level of [0, 0.5, 1]) {
    chart.append(svg("line", { x1: PAD.left, x2: width - PAD.right, y1: y(level), y2: y(level), class: "review-grid" }),
      svg("text", { x: PAD.left - 4, y: y(level) + 4, "text-anchor": "end", class: "review-axis" }, `${level * 100}%`));
  }
  chart.append(svg("text", { x: width - PAD.right, y: height - 6, "text-anchor": "end", class: "review-axis" }, "end"),
    svg("text", { x: PAD.left, y: height - 6, class: "review-axis" }, "start"));
  const start = 1 / players;
  for (let player = 0; player < players; player++) {
    const points = [[x(0), y(start)], ...review.win_probability.map((row, step) => [x(step + 1), y(row[player])])];
    chart.append(svg("polyline", { points: points.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(" "),
      class: "review-line", stroke: LINES[player % LINES.length], "data-player": player }));
  }
  const position = svg("line", { y1: PAD.top, y2: height - PAD.bottom, class: "review-now", visibility: "hidden" });
  chart.append(position);
  const marks = svg("g", { class: "review-marks" });
  for (const d of review.decisions) {
    if (!(d.class in ERRORS)) continue;
    marks.append(mark(svg("circle", { cx: x(d.step + 1), cy: y(review.win_probability[d.step][d.player]),
      r: (4 + Math.min(6, d.loss * 30)).toFixed(1), fill: ERRORS[d.class], class: "review-error",
      "data-step": d.step, "data-class": d.class }),
    `${label(d.step)}: ${name(d.player)}, ${d.class}, lost ${d.loss.toFixed(3)}${d.action ? `: ${d.action}` : ""}`, d.step, jump));
  }
  const luckiest = [...review.chance].sort((a, b) => Math.max(...b.luck.map(Math.abs)) - Math.max(...a.luck.map(Math.abs)) || a.step - b.step)
    .slice(0, LUCKIEST).filter((c) => Math.max(...c.luck.map(Math.abs)) > 0);
  for (const c of luckiest) {
    const lucky = c.luck.indexOf(Math.max(...c.luck));
    const cx = x(c.step + 1);
    const cy = y(review.win_probability[c.step][lucky]);
    marks.append(mark(svg("polygon", { points: `${cx},${cy - 7} ${cx - 6},${cy + 5} ${cx + 6},${cy + 5}`,
      fill: LINES[lucky % LINES.length], class: "review-luck", "data-step": c.step }),
    `${label(c.step)}: ${c.outcome ?? "a draw you could not see"}; luck ${c.luck.map((l, p) => `${name(p)} ${signed(l)}`).join(", ")}`, c.step, jump));
  }
  chart.append(marks);
  // a click anywhere on the graph moves the replay to the nearest move
  chart.addEventListener("click", (event) => {
    if (event.target.closest?.(".review-error, .review-luck")) return;
    const box = chart.getBoundingClientRect();
    const fraction = ((event.clientX - box.left) / box.width * width - PAD.left) / (width - PAD.left - PAD.right);
    const applied = Math.round(Math.max(0, Math.min(1, fraction)) * steps);
    jump(applied - 1);
  });
  const legend = el("p", { class: "review-legend" },
    review.players.map((p) => el("span", {}, el("span", { class: "review-swatch", style: `background:${LINES[p.player % LINES.length]}` }), ` ${name(p.player)} `)),
    el("span", {}, "● an error (its size: what it cost) "), el("span", {}, "▲ one of the luckiest rolls and draws"));
  const figureBox = el("figure", { class: "review-figure" }, chart, legend);
  return {
    figure: figureBox,
    mark(applied) {
      position.setAttribute("x1", x(applied));
      position.setAttribute("x2", x(applied));
      position.setAttribute("visibility", "visible");
    },
  };
}

function mark(node, text, step, jump) {
  node.append(svg("title", {}, text));
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", text);
  node.addEventListener("click", () => jump(step));
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      jump(step);
    }
  });
  return node;
}
