// /rules/{game}: the game's rule book as a page of its own; /rules/{game}#CUBE-31 opens on that rule.
import { showError } from "/js/api.js";
import { mountRules, openRule } from "/js/rules.js";

const game = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] ?? "");
document.getElementById("learn-link").href = `/learn/${encodeURIComponent(game)}`;

async function start() {
  const root = await mountRules(game, { inline: true, container: document.getElementById("rules-main") });
  const heading = root.querySelector("h2").textContent;
  document.title = `Bestiary: ${heading}`;
  document.getElementById("title").textContent = heading;
  if (root.querySelector(".error")) showError(document.getElementById("error"), `No rules for '${game}'.`);
  const showHash = () => { if (location.hash.length > 1) openRule(decodeURIComponent(location.hash.slice(1))); };
  window.addEventListener("hashchange", showHash);
  showHash();
}

start();
