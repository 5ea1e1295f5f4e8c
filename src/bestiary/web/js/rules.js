// The rule book one click away: a panel with every rule of a game (grouped by the book's sections, searchable),
// links from rule ids anywhere on a page to that rule in the panel, and the words for computer players.
import { api, el } from "/js/api.js";

const RULE_ID = /\b(?:CRITS|CRITTERS|CUBE|LUNGO)-\d+(?:\.\d+)*[a-z]?\b/g;

let panel = null;  // the one panel of this page: { game, root, list, search, count, inline }
const teachingCache = new Map();

// The game's computer levels, option rules and plain words for its rules (null when the server has none).
export async function teachingOf(game) {
  if (!teachingCache.has(game)) {
    teachingCache.set(game, api(`/api/games/${encodeURIComponent(game)}/teaching`).catch(() => null));
  }
  return teachingCache.get(game);
}

// The rule ids a text names, in order, each once.
export function ruleIdsIn(text) {
  return [...new Set(String(text).match(RULE_ID) ?? [])];
}

// A link to one rule: it opens the rule in this page's panel (a new tab, with the modifier keys, opens its page).
export function ruleLink(id, game = panel?.game) {
  return el("a", { class: "rule-link", href: `/rules/${encodeURIComponent(game ?? "")}#${id}`, "data-rule": id,
    title: `Rule ${id}: open it in the rules`,
    onclick: (event) => {
      if (!panel || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      openRule(id);
    } }, id);
}

// A row of rule links, or null when there is none.
export function ruleLinks(ids) {
  const list = [...new Set(ids ?? [])];
  return list.length ? el("span", { class: "rule-links" }, list.map((id) => ruleLink(id))) : null;
}

// Text in which every rule id is a link.
export function linkified(text) {
  const parts = [];
  let last = 0;
  for (const match of String(text).matchAll(RULE_ID)) {
    parts.push(String(text).slice(last, match.index), ruleLink(match[0]));
    last = match.index + match[0].length;
  }
  parts.push(String(text).slice(last));
  return parts.filter((part) => part !== "");
}

// A refusal in the page's error box, its rules linked (from the message and from `rules`, when given).
export function showRefusal(box, message, rules = []) {
  const named = ruleIdsIn(message);
  const more = rules.filter((id) => !named.includes(id));
  box.replaceChildren(...linkified(message), ...(more.length ? [" ", ruleLinks(more)] : []));
  box.hidden = false;
}

// The rule book's light markdown (`code`, **bold**, *italic*) as elements, rule ids as links.
const MARKUP = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*/g;
function formatted(text) {
  const parts = [];
  let last = 0;
  for (const match of String(text).matchAll(MARKUP)) {
    parts.push(...linkified(text.slice(last, match.index)));
    if (match[1] !== undefined) parts.push(el("code", {}, match[1]));
    else if (match[2] !== undefined) parts.push(el("strong", {}, ...linkified(match[2])));
    else parts.push(el("em", {}, ...linkified(match[3])));
    last = match.index + match[0].length;
  }
  parts.push(...linkified(text.slice(last)));
  return parts;
}

function ruleArticle(rule, words) {
  return el("article", { class: "rule", id: `rule-${rule.id}`, "data-rule": rule.id, tabindex: "-1" },
    el("div", { class: "rule-id" }, rule.id),
    words ? el("p", { class: "rule-words" }, words) : null,
    rule.text ? el("p", { class: "rule-text" }, el("span", { class: "rule-label" }, "The rule book: "), "“", ...formatted(rule.text), "”") : null,
    rule.reading ? el("p", { class: "rule-reading" }, el("span", { class: "rule-label" }, "In Bestiary: "), ...formatted(rule.reading)) : null);
}

function filter(query) {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  let shown = 0;
  for (const section of panel.list.querySelectorAll("section.rule-section")) {
    let any = false;
    for (const article of section.querySelectorAll("article.rule")) {
      const text = article.textContent.toLowerCase();
      const match = words.every((word) => text.includes(word));
      article.hidden = !match;
      any ||= match;
      if (match) shown++;
    }
    section.hidden = !any;
  }
  panel.count.textContent = words.length ? `${shown} rule${shown === 1 ? "" : "s"} found` : "";
}

// The panel of `game`'s rules. `inline`: part of the page (the /rules page); otherwise a drawer that opens over
// the table and closes again, and a "Rules" button in the page header opens it.
export async function mountRules(game, { inline = false, container = document.body } = {}) {
  if (panel) {  // another game's rules (the lobby, when the game chosen changes)
    panel.root.remove();
    document.getElementById("rules-button")?.remove();
    document.removeEventListener("keydown", closeOnEscape);
    document.body.classList.remove("rules-open");
  }
  const search = el("input", { type: "search", class: "rule-search", placeholder: "Search the rules", "aria-label": "search the rules" });
  const count = el("span", { class: "muted rule-count", "aria-live": "polite" });
  const list = el("div", { class: "rule-list" }, el("p", { class: "muted" }, "Loading the rules…"));
  const close = inline ? null : el("button", { type: "button", class: "secondary rules-close", "aria-label": "close the rules",
    onclick: closeRules }, "Close");
  const heading = el("h2", { id: "rules-heading" }, "Rules");
  const root = el(inline ? "section" : "aside", { class: inline ? "panel rules-page" : "rules-drawer", id: "rules-panel",
    "aria-labelledby": "rules-heading", hidden: !inline },
  el("div", { class: "rules-head" }, heading, close), el("div", { class: "row" }, search, count), list);
  container.append(root);
  panel = { game, root, list, search, count, inline, ready: null };
  search.addEventListener("input", () => filter(search.value));
  if (!inline) {
    const button = el("button", { type: "button", class: "rules-button", id: "rules-button", onclick: () => openRules() }, "Rules");
    const nav = document.querySelector("header.top .nav");
    if (nav) nav.before(button);
    else document.querySelector("header.top")?.append(button);
    document.addEventListener("keydown", closeOnEscape);
  }
  panel.ready = fillRules(game, heading, list);
  await panel.ready;
  return root;
}

async function fillRules(game, heading, list) {
  try {
    const [rules, teaching] = await Promise.all([api(`/api/games/${encodeURIComponent(game)}/rules`), teachingOf(game)]);
    heading.textContent = `Rules of ${teaching?.title ?? game}`;
    const lessons = teaching?.lessons ?? {};
    const sections = new Map();
    for (const rule of rules) {
      if (!sections.has(rule.section)) sections.set(rule.section, []);
      sections.get(rule.section).push(rule);
    }
    list.replaceChildren(...[...sections].map(([section, members]) => el("section", { class: "rule-section" },
      el("h3", {}, section), members.map((rule) => ruleArticle(rule, lessons[rule.id])))));
  } catch (error) {
    list.replaceChildren(el("p", { class: "error" }, `The rules could not be loaded: ${error.message}`));
  }
}

function closeOnEscape(event) {
  if (event.key === "Escape" && panel && !panel.root.hidden) closeRules();
}

export function openRules() {
  if (!panel) return;
  panel.root.hidden = false;
  document.body.classList.add("rules-open");
  if (!panel.inline) panel.search.focus({ preventScroll: true });
}

export function closeRules() {
  if (!panel || panel.inline) return;
  panel.root.hidden = true;
  document.body.classList.remove("rules-open");
  document.getElementById("rules-button")?.focus({ preventScroll: true });
}

// Open the panel on one rule: the search is cleared, the rule scrolled into view and marked.
export async function openRule(id) {
  if (!panel) return;
  openRules();
  await panel.ready;
  panel.search.value = "";
  filter("");
  for (const marked of panel.list.querySelectorAll(".rule-focus")) marked.classList.remove("rule-focus");
  const article = document.getElementById(`rule-${id}`);
  if (!article) {
    panel.count.textContent = `No rule ${id} in this game's rule book.`;
    return;
  }
  article.classList.add("rule-focus");
  article.scrollIntoView({ block: "start" });
  article.focus({ preventScroll: true });
}

