/**
 * The pre-flight probe: before ms 0, one small chat request per route, so
 * that a target that cannot be reached or does not speak the OpenAI Chat
 * Completions API stops the run before it starts, with a message naming the
 * target and what was wrong, instead of a run of 100 % failures.
 *
 * The probe is `{"model": <route model>, "messages": [{"role": "user",
 * "content": "Reply with OK."}], "max_tokens": 1, "stream": <as the run's
 * first request>}` (a streamed probe asks for usage as a run does) in the
 * route's dialect (runner/dialects/: the same message and cap in that
 * provider's body), POSTed with the route's own headers (signed, for a
 * signing dialect) to the route's URL by `fetch` with redirects not followed. It is a real
 * call on the target: its result goes to run.json `preflight`, never to the
 * requests or attempts tables (it is not an offered request).
 *
 * @module
 */
import type { PreflightProbe, WorkloadCase } from "../schema/mod.ts";
import { classifyBody, concat } from "./attempt.ts";
import { SseDecoder } from "./http/sse.ts";
import type { Dialect, PreparedRoute } from "./dialects/dialect.ts";
import { openaiChatDialect } from "./dialects/openai_chat.ts";
import { isObject } from "./dialects/openai_chat_shape.ts";
import { redactUrl, scrubUrl } from "./target_url.ts";
import { hostPort } from "./net_allow.ts";

/** Exit code of `deno task run` when a target fails the pre-flight probe. */
export const EXIT_PREFLIGHT = 4;

/** Longest the probe waits for a whole answer: the run's attempt timeout, at most 30 s. */
export const PREFLIGHT_MAX_TIMEOUT_MS = 30_000;

/** Statuses that prove the API is spoken when the body is an error object: the target is busy, not wrong. */
const BUSY = new Set([429, 503]);

/** The probe's case: no tools, no output schema (only those and the class reach a dialect's body). */
const PROBE_CASE = { class: "preflight", tools: [], expected_output_schema: null } as unknown as WorkloadCase;

/** A route prepared by hand (tests): its URL and headers, no signing, no tier. */
function plainRoute(t: PreflightTarget): PreparedRoute {
  return { url: () => t.url, headers: t.headers, secretHeaders: [], sign: null, serviceTier: null, options: {} };
}

/** One route to probe. */
export interface PreflightTarget {
  route: string;
  url: URL;
  headers: Record<string, string>;
  model: string;
  stream: boolean;
  /** The route's dialect. @default the OpenAI Chat Completions dialect */
  dialect?: Dialect;
  /** The route as its dialect prepared it (its signing and tier); absent: `url` and `headers` as given. */
  prepared?: PreparedRoute;
}

/** One or more targets failed the probe; the message names each target and what was wrong. */
export class PreflightError extends Error {
  readonly probes: PreflightProbe[];
  constructor(probes: PreflightProbe[]) {
    const failed = probes.filter((p) => !p.ok);
    super(
      `pre-flight failed: ${
        failed.map((p) => `${p.url} (route ${p.route}): ${p.reason}`).join("; ")
      }. No run was started and nothing was written; --no-preflight runs against it anyway`,
    );
    this.name = "PreflightError";
    this.probes = probes;
  }
}

/** The probe's request body in the route's dialect. */
export function probeBody(
  model: string,
  stream: boolean,
  dialect: Dialect = openaiChatDialect,
  prepared?: PreparedRoute,
): string {
  const route = prepared ??
    { url: () => new URL("http://x"), headers: {}, secretHeaders: [], sign: null, serviceTier: null, options: {} };
  return dialect.body(
    PROBE_CASE,
    [{ role: "user", content: "Reply with OK." }],
    { model, stream, maxTokens: 1 },
    route,
  );
}

/**
 * Probes every target concurrently and returns one record per target.
 * `ok` means an OpenAI answer: a 2xx answer that passes the checks every
 * attempt's answer passes (runner/attempt.ts `classifyBody`: content type,
 * stream or body shape, usage), or a 429/503 whose body is a JSON object
 * with an `error` field (busy, but speaking the API; `reason` says so).
 * Anything else — no connection, no whole answer within `timeoutMs`, a
 * redirect, another status, HTML, not JSON, a wrong shape, an answer over
 * `maxBytes` — is not ok, with the reason.
 */
export async function preflight(
  targets: readonly PreflightTarget[],
  options: { timeoutMs: number; maxBytes: number },
): Promise<PreflightProbe[]> {
  return await Promise.all(targets.map((t) => probe(t, options.timeoutMs, options.maxBytes)));
}

async function probe(t: PreflightTarget, timeoutMs: number, maxBytes: number): Promise<PreflightProbe> {
  const t0 = performance.now();
  const record = (status: number | null, ok: boolean, reason: string | null): PreflightProbe => ({
    route: t.route,
    url: redactUrl(t.url),
    stream: t.stream,
    status,
    ms: Math.round((performance.now() - t0) * 1000) / 1000,
    ok,
    reason,
  });
  const dialect = t.dialect ?? openaiChatDialect;
  const prepared = t.prepared ?? plainRoute(t);
  const name = dialect.name === "openai-chat" ? "an OpenAI" : `a ${dialect.name}`;
  const signal = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    const body = probeBody(t.model, t.stream, dialect, prepared);
    const headers = prepared.sign ? await prepared.sign({ url: t.url, headers: { ...t.headers }, body }) : t.headers;
    res = await fetch(t.url, { method: "POST", headers, body, redirect: "manual", signal });
  } catch (e) {
    return record(null, false, signal.aborted ? `no answer within ${timeoutMs} ms` : connectProblem(e, t.url));
  }
  const status = res.status;
  const contentType = res.headers.get("content-type") ?? "";
  if (status >= 300 && status < 400) {
    await res.body?.cancel();
    const to = res.headers.get("location");
    return record(status, false, `HTTP ${status} redirect${to ? ` to ${printable(to)}` : ""}, not followed`);
  }
  const ok2xx = status >= 200 && status < 300;
  const sse = ok2xx && t.stream && contentType.includes(dialect.streamContentType)
    ? dialect.newDecoder?.() ?? new SseDecoder()
    : null;
  const state = dialect.newAnswer();
  const parts: Uint8Array[] = [];
  let bytes = 0;
  try {
    for await (const chunk of res.body ?? []) {
      bytes += chunk.length;
      // Leaving the loop cancels the body.
      if (bytes > maxBytes) return record(status, false, `HTTP ${status}, answer over ${maxBytes} bytes`);
      if (sse) { for (const ev of sse.push(chunk)) state.feedEvent(ev, 0); }
      else parts.push(chunk);
    }
  } catch (e) {
    const why = signal.aborted ? `no whole answer within ${timeoutMs} ms` : `answer cut: ${connectProblem(e, t.url)}`;
    return record(status, false, `HTTP ${status}, ${why}`);
  }
  if (ok2xx) {
    const failure = classifyBody({ stream: t.stream, contentType, sse, parts, state, endMs: 0, dialect });
    if (failure === null) return record(status, true, null);
    if (failure.kind === "bad_content_type") {
      return record(
        status,
        false,
        `HTTP ${status} with content-type ${JSON.stringify(printable(contentType))}, not ${name} answer`,
      );
    }
    const what = state.malformed ?? state.badUsage ??
      (state.streamFailure ? `the stream reported ${state.streamFailure.kind}` : null) ??
      (dialect.name === "openai-chat"
        ? "the stream ended without [DONE] or a finish_reason"
        : "the stream ended early");
    return record(status, false, `HTTP ${status}, not ${name} answer (${failure.kind}): ${printable(what)}`);
  }
  const error = errorBody(parts);
  const busy = BUSY.has(status) ||
    dialect.classifyError(status, new Map(res.headers), new TextDecoder().decode(concat(parts))).outcome === "rejected";
  if (busy && error !== null) {
    return record(status, true, `busy: HTTP ${status} with ${name} error body (${printable(error)})`);
  }
  const hint = status === 401 || status === 403 ? " (the key was refused: see --api-key-env)" : "";
  return record(status, false, `HTTP ${status}${hint}${error === null ? "" : `: ${printable(error)}`}`);
}

/**
 * The `error` of a JSON error body (its message when it has one; Bedrock's body is `{"message": …}` alone), or null
 * when the body is not one.
 */
function errorBody(parts: Uint8Array[]): string | null {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(concat(parts)));
  } catch {
    return null;
  }
  if (!isObject(body)) return null;
  if (body.error == null) return typeof body.message === "string" ? body.message : null;
  const e = body.error;
  return isObject(e) && typeof e.message === "string" ? e.message : JSON.stringify(e);
}

function connectProblem(e: unknown, url: URL): string {
  // fetch says "fetch failed"; what failed is in its causes, which name the whole URL: its secrets are scrubbed.
  const messages: string[] = [];
  for (let c: unknown = e; c instanceof Error && messages.length < 4; c = c.cause) messages.push(c.message);
  const m = scrubUrl(messages.join(": ") || String(e), url);
  // A certificate the run does not trust stops the run here, named: never retried, never a run of failed attempts.
  const cert = /invalid peer certificate: ([^:]+)/i.exec(m);
  if (cert) {
    return `TLS certificate of ${hostPort(url)} not trusted: ${printable(cert[1]!.trim())} (set DENO_CERT=FILE to ` +
      "trust a private CA's PEM certificate: docs/reach.md)";
  }
  if (/connection refused/i.test(m)) return "connection refused";
  if (/connection reset/i.test(m)) return "connection reset";
  if (/dns|lookup|resolve/i.test(m)) return `name not resolved: ${printable(m)}`;
  return printable(m);
}

/** Server text shown on a terminal: control characters replaced, at most 160 characters. */
function printable(s: string): string {
  // deno-lint-ignore no-control-regex -- control characters are exactly what must not reach the terminal
  return s.replace(/[\x00-\x1f\x7f]/g, "?").slice(0, 160);
}

/**
 * The run's pre-flight: probes each route (the run's first request streamed or not), prints a note for a busy
 * target, and throws {@linkcode PreflightError} when any target failed. Returns run.json `preflight`.
 */
export async function checkTargets(
  routes: Iterable<{ route: string; model: string; dialect: Dialect; prepared: PreparedRoute }>,
  options: { stream: boolean; timeoutMs: number; maxBytes: number },
): Promise<PreflightProbe[]> {
  const targets = [...routes].map((r) => ({
    route: r.route,
    url: r.prepared.url(options.stream),
    headers: r.prepared.headers,
    model: r.model,
    stream: options.stream,
    dialect: r.dialect,
    prepared: r.prepared,
  }));
  const timeoutMs = Math.min(options.timeoutMs, PREFLIGHT_MAX_TIMEOUT_MS);
  const probes = await preflight(targets, { timeoutMs, maxBytes: options.maxBytes });
  if (probes.some((p) => !p.ok)) throw new PreflightError(probes);
  for (const p of probes) if (p.reason) console.error(`note: pre-flight ${p.url}: ${p.reason}; the run goes on`);
  return probes;
}
