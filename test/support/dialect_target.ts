/**
 * An attempt target of a given dialect prepared from a URL, for tests that call the runner's attempt and request
 * flow directly (no routes file).
 *
 * @module
 */
import { type AttemptContext, type AttemptResult, type AttemptTarget, runAttempt } from "../../runner/attempt.ts";
import { dialectNamed } from "../../runner/dialects/mod.ts";
import type { HttpClient } from "../../runner/http/client.ts";
import { Watchdog } from "../../runner/watchdog.ts";

/**
 * The route `route` of `dialect` (default `openai-chat`) at `url`, serving `model`.
 *
 * @example
 * ```ts
 * import { dialectTarget } from "./dialect_target.ts";
 * import assert from "node:assert/strict";
 * const t = dialectTarget("http://127.0.0.1:1");
 * assert.equal(t.prepared.url(true).href, "http://127.0.0.1:1/v1/chat/completions");
 * ```
 */
export function dialectTarget(
  url: string | URL,
  o: {
    route?: string;
    provider?: string;
    model?: string;
    dialect?: string;
    key?: string | null;
    options?: Record<string, unknown>;
  } = {},
): AttemptTarget {
  const dialect = dialectNamed(o.dialect, "test");
  const model = o.model ?? "m";
  const prepared = dialect.prepare({
    url: String(url),
    model,
    key: o.key ?? null,
    options: o.options ?? {},
    where: "test",
  });
  return { dialect, prepared, route: o.route ?? "r", provider: o.provider ?? "p", model };
}

/** One attempt (request `q`, body `{}`) through `client` to an `openai-chat` target, on a clock stopped at 0. */
export async function attemptWith(client: HttpClient, stream: boolean): Promise<AttemptResult> {
  const watchdog = new Watchdog(() => 0, 60_000);
  try {
    const ctx: AttemptContext = {
      runId: "run-1",
      clock: { now: () => 0, epochUnixMs: 0 },
      client,
      watchdog,
      attemptTimeoutMs: 60_000,
    };
    const target = dialectTarget("http://127.0.0.1:1");
    return await runAttempt(ctx, target, { requestId: "q", round: 0, attempt: 1, body: "{}", stream, deadlineMs: 1e9 });
  } finally {
    watchdog.stop();
  }
}
