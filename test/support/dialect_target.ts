/**
 * An attempt target of a given dialect prepared from a URL, for tests that call the runner's attempt and request
 * flow directly (no routes file).
 *
 * @module
 */
import type { AttemptTarget } from "../../runner/attempt.ts";
import { dialectNamed } from "../../runner/dialects/mod.ts";

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
