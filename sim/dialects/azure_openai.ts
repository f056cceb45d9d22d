/**
 * Azure OpenAI chat completions: `POST /openai/deployments/{deployment}/chat/completions?api-version=…` (the
 * deployment, named in the path, is the model; `api-version` is required) and the newer v1 API,
 * `POST /openai/v1/chat/completions` (no `api-version`; the deployment is the body's `model`). Answers, streams,
 * usage and the `x-ratelimit-*` headers are OpenAI's (openai_chat.ts); errors are Azure's
 * `{error: {code, message, param, type}}`, with Azure's own codes where the service answers before the model does.
 *
 * @module
 */
import type { SimDialect, SimError, SimErrorClass, SimMatch } from "./dialect.ts";
import { ChunkFormat, completion, OPENAI_ERRORS, openaiLimitHeaders, parseChatRequest } from "./openai_chat.ts";

const DEPLOYMENT_PATH = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/;
const V1_PATH = "/openai/v1/chat/completions";

/** The refusal of a deployment path without `api-version`. */
const MISSING_API_VERSION: SimError = {
  class: "invalid_request",
  code: "BadRequest",
  param: "api-version",
  message: "The api-version query parameter is required on this path (e.g. ?api-version=2024-10-21).",
};

/**
 * Azure's `code` of the classes the service (not the model) answers; the model's own 4xx keep OpenAI's code
 * (`context_length_exceeded`, …).
 */
const AZURE_CODES: Readonly<Partial<Record<SimErrorClass, string>>> = {
  not_found: "404",
  server_error: "InternalServerError",
  unavailable: "ServiceUnavailable",
  overloaded: "429",
  rate_limited: "429",
  client_closed: "ClientClosedRequest",
};

/**
 * An error in Azure OpenAI's format.
 *
 * @example A quota refusal
 * ```ts
 * import { azureError } from "./azure_openai.ts";
 * import assert from "node:assert/strict";
 * const res = azureError({ class: "rate_limited", message: "Retry after 2 seconds.", headers: { "retry-after": "2" } });
 * assert.equal(res.status, 429);
 * assert.equal(res.headers.get("retry-after"), "2");
 * assert.deepEqual((await res.json()).error, { code: "429", message: "Retry after 2 seconds.", param: null, type: null });
 * ```
 */
export function azureError(e: SimError): Response {
  const c = OPENAI_ERRORS[e.class];
  const code = AZURE_CODES[e.class] ?? (e.code === undefined ? c.code : e.code);
  const type = e.class === "invalid_request" ? c.type : null;
  return Response.json({ error: { code, message: e.message, param: e.param ?? null, type } }, {
    status: c.status,
    headers: e.headers ?? {},
  });
}

/**
 * The deployment of an Azure chat-completions path, with the refusal when `api-version` is missing; `{}` for the v1
 * path; null for any other.
 *
 * @example
 * ```ts
 * import { matchAzure } from "./azure_openai.ts";
 * import assert from "node:assert/strict";
 * const u = (p: string) => new URL(`http://127.0.0.1${p}`);
 * assert.deepEqual(matchAzure("POST", u("/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21")), { model: "gpt-4o" });
 * assert.equal(matchAzure("POST", u("/openai/deployments/gpt-4o/chat/completions"))?.error?.param, "api-version");
 * assert.deepEqual(matchAzure("POST", u("/openai/v1/chat/completions")), {});
 * assert.equal(matchAzure("POST", u("/v1/chat/completions")), null);
 * ```
 */
export function matchAzure(method: string, url: URL): SimMatch | null {
  if (method !== "POST") return null;
  if (url.pathname === V1_PATH) return {};
  const m = DEPLOYMENT_PATH.exec(url.pathname);
  if (!m) return null;
  let model: string;
  try {
    model = decodeURIComponent(m[1]!);
  } catch {
    // A malformed escape: the deployment is named as sent.
    model = m[1]!;
  }
  return url.searchParams.get("api-version") ? { model } : { model, error: MISSING_API_VERSION };
}

/** The Azure OpenAI dialect. */
export const AZURE_OPENAI: SimDialect = {
  name: "azure_openai",
  match: matchAzure,
  // On a deployment path the deployment is the model, whatever the body says (the body needs none).
  parse: (body: unknown, match: SimMatch) =>
    parseChatRequest(
      match.model !== undefined && typeof body === "object" && body !== null && !Array.isArray(body)
        ? { ...body, model: match.model }
        : body,
    ),
  error: azureError,
  limitHeaders: openaiLimitHeaders,
  streamContentType: "text/event-stream",
  stream: (id, model, created, serviceTier) => new ChunkFormat(id, model, created, serviceTier),
  body: completion,
};
