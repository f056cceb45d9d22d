import assert from "node:assert/strict";
import { join } from "node:path";
import { HTTP_CLIENT_KINDS } from "../../runner/http/mod.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

/**
 * What the test target answers, by the order in which each request (its idempotency key without the round) first
 * arrives, and by attempt: a header value to announce (null: no header) and whether to refuse with 503.
 */
const SCRIPT: { mode: string | null; refuse?: boolean }[][] = [
  [{ mode: "degraded-short" }],
  [{ mode: "degraded short!" }],
  [{ mode: null }],
  [{ mode: "overload", refuse: true }, { mode: "x".repeat(65) }],
];

function startTarget(): { url: string; close: () => Promise<void> } {
  const order = new Map<string, number>();
  const seen = new Map<string, number>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    await req.text();
    const key = req.headers.get("idempotency-key") ?? "";
    if (!order.has(key)) order.set(key, order.size);
    const attempt = seen.get(key) ?? 0;
    seen.set(key, attempt + 1);
    const step = SCRIPT[order.get(key)!]![attempt]!;
    const headers: Record<string, string> = step.mode === null ? {} : { "x-service-mode": step.mode };
    if (step.refuse) {
      return Response.json({ error: { message: "busy", type: "server_error" } }, {
        status: 503,
        headers: { ...headers, "retry-after": "0" },
      });
    }
    return Response.json({
      id: "c",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: "tok0" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 },
    }, { headers });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

Deno.test("the runner records the x-service-mode a target announces, and marks a malformed one", async (t) => {
  for (const httpClient of HTTP_CLIENT_KINDS) {
    await t.step(`${httpClient} client`, async () => {
      const dir = Deno.makeTempDirSync();
      const target = startTarget();
      try {
        // 4 requests, 150 ms apart, unstreamed JSON answers.
        const { dir: runDir } = await runLoadTest({
          workload: writeWorkload(dir, [tinyCase()], { qa: false }),
          plan: constantPlan(dir, 1000 / 150, 0.6),
          target: target.url,
          out: join(dir, "out"),
          formats: ["csv"],
          retryFile: writeJson(dir, "retry.json", { max_attempts: 2, base_ms: 1, cap_ms: 5 }),
          httpClient,
          progress: false,
          serverTimeline: false,
        });
        const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
        const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
        const ids = requests.map((r) => r.request_id).sort();
        assert.equal(ids.length, 4);
        const modesOf = (id: string) =>
          attempts.filter((a) => a.request_id === id).sort((a, b) => a.attempt - b.attempt).map((a) => a.service_mode);
        // Valid names are kept as sent; a space, a "!" or 65 characters make the value malformed.
        assert.deepEqual(ids.map(modesOf), [["degraded-short"], ["!malformed"], [null], ["overload", "!malformed"]]);
        // The request takes the mode of the attempt that gave its final answer (the retry, not the refused one).
        const byId = new Map(requests.map((r) => [r.request_id, r]));
        assert.deepEqual(ids.map((id) => byId.get(id)!.service_mode), [
          "degraded-short",
          "!malformed",
          null,
          "!malformed",
        ]);
        // The refusal's Retry-After (0 s) is recorded in ms; answers without the header record null.
        const retryAfter = (id: string) =>
          attempts.filter((a) => a.request_id === id).sort((a, b) => a.attempt - b.attempt).map((a) =>
            a.retry_after_ms
          );
        assert.deepEqual(ids.map(retryAfter), [[null], [null], [null], [0, null]]);
        // A malformed announcement does not break the answer: every request completed.
        assert.deepEqual(ids.map((id) => byId.get(id)!.outcome), ["ok", "ok", "ok", "ok"]);
      } finally {
        await target.close();
        Deno.removeSync(dir, { recursive: true });
      }
    });
  }
});
