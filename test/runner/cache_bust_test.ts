import assert from "node:assert/strict";
import { join } from "node:path";
import { CACHE_BUST_RULE, cacheBustPrefix, prefixFirstUser } from "../../runner/cache_bust.ts";
import type { WireMessage } from "../../runner/dialects/openai_chat.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { type FaultMode, startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

Deno.test("prefixFirstUser() changes only the first user message, and says when there is none", () => {
  const messages: WireMessage[] = [
    { role: "system", content: "be brief" },
    { role: "user", content: "hello" },
    { role: "user", content: "again" },
  ];
  assert.equal(prefixFirstUser(messages, "[cb x r1] "), true);
  assert.deepEqual(messages.map((m) => m.content), ["be brief", "[cb x r1] hello", "again"]);
  const none: WireMessage[] = [{ role: "system", content: "only" }];
  assert.equal(prefixFirstUser(none, "[cb x r1] "), false);
  assert.deepEqual(none, [{ role: "system", content: "only" }]);
});

/** Runs 3 requests of a two-message case against `mode` and returns what the server received and the log. */
async function run(mode: FaultMode, cacheBust: boolean) {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({ tokens: 2 });
  const c = tinyCase({
    messages: [{ role: "system", content: "You answer." }, { role: "user", content: "Say tok0 please" }],
  });
  try {
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [c]),
      plan: constantPlan(dir, 10, 0.3),
      target: `${srv.url}/${mode}`,
      out: join(dir, "out"),
      formats: ["csv"],
      runId: "bust-run",
      retryFile: writeJson(dir, "retry.json", { max_attempts: 2, base_ms: 5, cap_ms: 20, budget_min: 100 }),
      progress: false,
      serverTimeline: false,
      cacheBust,
    });
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    const sent = srv.requests.map((q) => ({
      id: q.headers.get("idempotency-key")!.split(":")[1]!,
      messages: JSON.parse(q.body).messages as { role: string; content: string }[],
    }));
    return { manifest, requests, sent, case: c };
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("--cache-bust sends each request's first user message behind its own prefix, retries alike", async () => {
  const { manifest, requests, sent, case: c } = await run("500", true);
  assert.equal(manifest.runner.cache_bust, CACHE_BUST_RULE, "run.json states the rule");
  const prefix = cacheBustPrefix("bust-run");
  assert.equal(sent.length, 6, "3 requests × 2 attempts");
  for (const s of sent) {
    assert.deepEqual(s.messages, [
      { role: "system", content: "You answer." },
      { role: "user", content: `${prefix(s.id)}Say tok0 please` },
    ]);
  }
  assert.equal(new Set(sent.map((s) => s.messages[1]!.content)).size, 3, "one prefix per request, shared by its retry");
  for (const r of requests) assert.equal(r.prompt_sha256, c.prompt_sha256, "the case's prompt hash, no prefix");
});

Deno.test("without --cache-bust the case's messages are sent as they are and run.json says null", async () => {
  const { manifest, requests, sent } = await run("ok-sse", false);
  assert.equal(manifest.runner.cache_bust, null);
  assert.deepEqual(requests.map((r) => r.outcome), ["ok", "ok", "ok"]);
  for (const s of sent) assert.equal(s.messages[1]!.content, "Say tok0 please");
});

Deno.test("the busted prompt's usage counts the prefix: the fault server counts words of the messages", async () => {
  const { requests } = await run("ok-sse", true);
  // "You answer." (2 words) + "[cb <hex> rNNNNNNN] Say tok0 please" (3 + 3 words) = 8 prompt tokens by the server's
  // count, against 5 without the prefix.
  assert.deepEqual(requests.map((r) => r.input_tokens), [8, 8, 8]);
});
