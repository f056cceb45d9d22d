/**
 * Whole runs, with each HTTP client, against a server that misbehaves around connection reuse,
 * redirects and body encoding (test/support/reuse_server.ts): every call the server received is an
 * attempt row, every answer reached its own request, and both clients give the same rows.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { runLoadTest } from "../../runner/run.ts";
import { HTTP_CLIENT_KINDS, type HttpClientKind } from "../../runner/http/mod.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { answerText, type ReuseMode, startReuseServer } from "../support/reuse_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

/** The mode of each request, by the number in its request id (`r0000005` → index 5 mod 8). */
const MODES: ReuseMode[] = [
  "ok",
  "double",
  "double-later",
  "late",
  "close-idle",
  "redirect-301",
  "redirect-307",
  "gzip-json",
];

/**
 * What each mode ends as. `late` answers after 500 ms, past attempt_ms (300): two attempts (the
 * timeout is retried), both `attempt_timeout`. 3xx is not in retry_statuses; an invalid response is
 * never retried.
 */
const EXPECT: Record<string, { outcome: string; kind: string | null; attempts: number; status: number | null }> = {
  "ok": { outcome: "ok", kind: null, attempts: 1, status: 200 },
  "double": { outcome: "ok", kind: null, attempts: 1, status: 200 },
  "double-later": { outcome: "ok", kind: null, attempts: 1, status: 200 },
  "late": { outcome: "timeout", kind: "attempt_timeout", attempts: 2, status: null },
  "close-idle": { outcome: "ok", kind: null, attempts: 1, status: 200 },
  "redirect-301": { outcome: "http_error", kind: "http_301", attempts: 1, status: 301 },
  "redirect-307": { outcome: "http_error", kind: "http_307", attempts: 1, status: 307 },
  "gzip-json": { outcome: "invalid_response", kind: "content_encoding", attempts: 1, status: 200 },
};

const modeOf = (key: string, modes = MODES) => modes[Number(/:r(\d+):/.exec(key)![1]) % modes.length]!;

async function runWith(kind: HttpClientKind, modes = MODES, stream = false) {
  const dir = Deno.makeTempDirSync();
  const srv = startReuseServer({ pick: (r) => modeOf(r.tag, modes), laterMs: 30, lateMs: 500, closeMs: 20 });
  try {
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()], { qa: stream }),
      plan: constantPlan(dir, 10, modes.length * 0.2), // 2 requests of each mode
      target: srv.url,
      out: join(dir, "out"),
      formats: ["csv"],
      httpClient: kind,
      retryFile: writeJson(dir, "retry.json", { max_attempts: 2, base_ms: 5, cap_ms: 20, budget_min: 100 }),
      timeoutsFile: writeJson(dir, "timeouts.json", { attempt_ms: 300, request_ms: 2500, idle_ms: 1000 }),
      progress: false,
      serverTimeline: false,
    });
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
    return { requests, attempts, manifest, received: srv.requests.slice() };
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("a run against a server that misbehaves around reuse: attempt rows = calls received, each answer its own, same rows with both clients", async (t) => {
  const byClient = new Map<HttpClientKind, Map<string, string>>();
  for (const kind of HTTP_CLIENT_KINDS) {
    await t.step(kind, async () => {
      const { requests, attempts, manifest, received } = await runWith(kind);
      const chat = received.filter((r) => r.target.endsWith("/chat/completions"));
      assert.equal(chat.length, received.length, "no redirect followed (nothing sent to /moved)");
      assert.equal(attempts.length, received.length, "every call the server received is an attempt row");
      assert.ok(received.every((r) => r.headers.get("accept-encoding") === "identity"));
      assert.equal(manifest.result.retries, attempts.filter((a) => a.attempt > 1).length);
      assert.equal(requests.length, 16);
      const rows = new Map<string, string>();
      for (const r of requests) {
        const key = `${manifest.run_id}:${r.request_id}:0`;
        const mode = modeOf(key);
        const want = EXPECT[mode]!;
        const got = { outcome: r.outcome, kind: r.error_kind, attempts: r.attempts, status: r.http_status };
        assert.deepEqual(got, want, `${r.request_id} (${mode})`);
        assert.equal(attempts.filter((a) => a.request_id === r.request_id).length, want.attempts);
        assert.equal(received.filter((q) => q.tag === key).length, want.attempts, `${r.request_id}: calls received`);
        if (r.outcome === "ok") {
          // The answer the request got is the one tagged with its own idempotency key.
          assert.equal(r.output_sha256, createHash("sha256").update(answerText(key)).digest("hex"), r.request_id);
        }
        rows.set(r.request_id, JSON.stringify(got));
      }
      byClient.set(kind, rows);
    });
  }
  assert.deepEqual(byClient.get("fetch"), byClient.get("raw"), "both clients give the same outcome for every request");
});

Deno.test("a streamed answer gzip-encoded despite accept-encoding: identity is content_encoding with both clients", async () => {
  for (const kind of HTTP_CLIENT_KINDS) {
    const { requests, attempts, manifest, received } = await runWith(kind, ["ok-sse", "gzip-sse"], true);
    assert.equal(attempts.length, received.length);
    assert.equal(requests.length, 4);
    for (const r of requests) {
      const key = `${manifest.run_id}:${r.request_id}:0`;
      if (modeOf(key, ["ok-sse", "gzip-sse"]) === "ok-sse") {
        assert.equal(r.outcome, "ok", `${kind} ${r.request_id}`);
        assert.equal(r.output_sha256, createHash("sha256").update(answerText(key)).digest("hex"));
      } else {
        assert.deepEqual([r.outcome, r.error_kind, r.attempts], ["invalid_response", "content_encoding", 1]);
      }
    }
  }
});
