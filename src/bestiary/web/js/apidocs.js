// The REST API from /openapi.json: each path and method with its summary, parameters, body and answers.
import { api, el, showError } from "/js/api.js";

function schemaName(schema) {
  if (!schema) return "";
  if (schema.$ref) return schema.$ref.split("/").pop();
  if (schema.anyOf) return schema.anyOf.map(schemaName).join(" | ");
  if (schema.type === "array") return `${schemaName(schema.items)}[]`;
  return schema.type ?? "";
}

function endpoint(path, method, spec) {
  const body = spec.requestBody?.content?.["application/json"]?.schema;
  const params = (spec.parameters ?? []).map((p) => `${p.name} (${p.in}${p.required ? ", required" : ""})`);
  const answers = Object.entries(spec.responses ?? {}).map(([status, r]) =>
    `${status}: ${schemaName(r.content?.["application/json"]?.schema) || r.description}`);
  return el("section", { class: "panel endpoint" },
    el("h3", {}, el("code", {}, `${method.toUpperCase()} ${path}`)),
    spec.summary ? el("p", {}, spec.summary) : null,
    spec.description ? el("p", { class: "muted" }, spec.description) : null,
    params.length ? el("p", {}, el("strong", {}, "Parameters: "), params.join(", ")) : null,
    body ? el("p", {}, el("strong", {}, "Body: "), schemaName(body)) : null,
    el("p", { class: "muted" }, answers.join(" · ")));
}

async function start() {
  const box = document.getElementById("endpoints");
  try {
    const schema = await api("/openapi.json");
    box.replaceChildren(...Object.entries(schema.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, spec]) => endpoint(path, method, spec))));
  } catch (error) {
    showError(document.getElementById("error"), error);
  }
}

start();
