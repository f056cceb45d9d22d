import assert from "node:assert/strict";
import { join } from "node:path";
import { InputError, SimProfile, type SimProfileInput } from "../../schema/mod.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { startSim } from "../../sim/mod.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";
import { promptSha256 } from "../../schema/workload_file.ts";
import { loadWorkload } from "../../schema/workload_file.ts";

const CHAT = [{ role: "user" as const, content: "Chat tok0 now" }];
const CASES = [
  tinyCase(),
  tinyCase({ case_id: "night-001", class: "overnight", messages: CHAT, prompt_sha256: promptSha256(CHAT) }),
];

/**
 * Runs 10 rps for 0.6 s of two classes against one simulator: `qa` live, `overnight` to a batch route with `batch`;
 * returns the logs.
 */
async function runSplit(
  batch: Record<string, unknown>,
  profile: Partial<SimProfileInput> = {},
  opts: { seed?: number; dialect?: string } = {},
) {
  const dir = Deno.makeTempDirSync();
  const workloadDir = writeWorkload(dir, CASES);
  const { workload } = await loadWorkload(workloadDir);
  const sim = await startSim({
    profile: SimProfile.parse({ name: "batch-test", engine: { decode_step_ms_base: 1 }, ...profile }),
    workload,
    seed: opts.seed ?? 3,
    quiet: true,
  });
  try {
    const { dir: runDir, manifest } = await runLoadTest({
      workload: workloadDir,
      plan: constantPlan(dir, 10, 0.6),
      routes: writeJson(dir, "routes.json", {
        name: "hybrid-batch",
        routes: {
          live: { url: sim.url, provider: "sim", model: "sim-llm" },
          night: {
            url: sim.url,
            provider: "sim",
            model: "sim-llm",
            batch,
            ...(opts.dialect ? { dialect: opts.dialect } : {}),
          },
        },
        policy: { kind: "split_by_class", classes: { overnight: "night" }, default: "live" },
      }),
      out: join(dir, "out"),
      formats: ["csv"],
      progress: false,
      serverTimeline: false,
    });
    return {
      manifest,
      requests: await readLogCsv(join(runDir, "requests.csv"), "requests"),
      attempts: await readLogCsv(join(runDir, "attempts.csv"), "attempts"),
    };
  } finally {
    await sim.stop();
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("a split_by_class run sends one class live and the other through the OpenAI Batch API of the simulator", async () => {
  const { requests, attempts, manifest } = await runSplit({ window_s: 0.25, poll_interval_s: 0.05, max_wait_s: 10 });
  const night = requests.filter((r) => r.class === "overnight");
  const live = requests.filter((r) => r.class === "qa");
  assert.ok(night.length >= 2 && live.length >= 2, `${night.length} batch and ${live.length} live requests`);
  for (const r of live) assert.equal(r.route, "live");
  for (const r of night) {
    assert.equal(r.route, "night");
    assert.equal(r.outcome, "ok", `${r.request_id}: ${r.error_kind}`);
    assert.equal(r.quality_ok, true, "the checks ran on the batch answer");
    assert.equal(r.streamed, false);
    assert.equal(r.attempts, 1);
    assert.ok(r.output_tokens > 0 && r.input_tokens > 0);
    const [a, ...more] = attempts.filter((x) => x.request_id === r.request_id);
    assert.equal(more.length, 0, "one attempt per batch item");
    assert.equal(a!.route, "night");
    assert.equal(a!.http_status, 200);
    assert.equal(a!.token_source, "usage");
    assert.equal(a!.streamed, false);
    assert.equal(a!.first_token_ms, a!.completed_ms, "an unstreamed answer: first token = collected");
    assert.equal(r.first_sent_ms, a!.sent_ms, "sent = the batch's submission");
    // e2e includes the wait for the batch to close: the request's completion is its item's collection (plus checks).
    assert.ok(r.completed_ms! >= a!.completed_ms! && r.completed_ms! - a!.completed_ms! < 50);
    assert.ok(a!.sent_ms - r.scheduled_ms >= 0, "submitted after its arrival");
    assert.ok(r.send_lag_ms! < 100, `send lag ${r.send_lag_ms} is joining the batch, not the batch window`);
  }
  const batches = manifest.batches!;
  assert.ok(batches.length >= 1);
  assert.equal(batches.reduce((n, b) => n + b.items, 0), night.length);
  for (const b of batches) {
    assert.equal(b.route, "night");
    assert.match(b.id!, /^batch_sim/);
    assert.equal(b.status, "completed");
    assert.ok(b.ended_ms! > b.submitted_ms);
    assert.equal(b.counts!.total, b.items);
  }
  // Each item's sent_ms is its batch's submission, its completed_ms the batch's end.
  for (const a of attempts.filter((x) => x.route === "night")) {
    assert.ok(batches.some((b) => b.submitted_ms === a.sent_ms && b.ended_ms === a.completed_ms));
  }
  assert.ok(manifest.routing!.routes.night!.batch, "run.json routing records the batch config");
  assert.equal(manifest.routing!.routes.live!.batch, undefined);
});

Deno.test("failed batch items (the profile's error_rate) are rows like any other: the item's status code, http_error", async () => {
  const { requests, attempts } = await runSplit(
    { window_s: 0.2, poll_interval_s: 0.05, max_wait_s: 10 },
    // Most calls fail (about 6 requests, half of them batch items): some item fails whatever the arrival order.
    { faults: { error_rate: 0.85 } },
    { seed: 11 },
  );
  const night = requests.filter((r) => r.class === "overnight");
  const failed = night.filter((r) => r.outcome === "http_error");
  assert.ok(failed.length >= 1, `some items failed: ${JSON.stringify(night.map((r) => r.outcome))}`);
  for (const r of failed) {
    assert.equal(r.error_kind, "http_500");
    assert.equal(r.http_status, 500);
    const a = attempts.find((x) => x.request_id === r.request_id)!;
    assert.equal(a.http_status, 500);
    assert.equal(a.completed_ms, null);
    assert.equal(a.error_kind, "http_500");
    assert.equal(a.retry_reason, null, "batch items are not retried");
  }
  assert.equal(attempts.filter((a) => a.route === "night").length, night.length, "no retries of batch items");
});

Deno.test("items of a batch still unfinished at max_wait_s are timeouts batch_max_wait", async () => {
  const { requests, manifest } = await runSplit(
    { window_s: 0.1, poll_interval_s: 0.05, max_wait_s: 0.3 },
    { batch: { turnaround_ms: 60_000 } },
  );
  const night = requests.filter((r) => r.class === "overnight");
  assert.ok(night.length >= 1);
  for (const r of night) {
    assert.equal(r.outcome, "timeout");
    assert.equal(r.error_kind, "batch_max_wait");
  }
  for (const b of manifest.batches!) {
    assert.equal(b.status, "max_wait");
    assert.ok(b.ended_ms! - b.submitted_ms >= 300);
  }
  assert.ok(requests.filter((r) => r.class === "qa").every((r) => r.outcome === "ok"));
});

Deno.test("a bad batch config exits with an error naming the field", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const run = (batch: unknown, dialect?: string) =>
      runLoadTest({
        workload: writeWorkload(dir, CASES),
        plan: constantPlan(dir, 10, 0.1),
        routes: writeJson(dir, "routes.json", {
          name: "bad",
          routes: { night: { url: "http://127.0.0.1:9", provider: "p", model: "m", dialect, batch } },
          policy: { kind: "single", route: "night" },
        }),
        out: join(dir, "out"),
        formats: ["csv"],
        progress: false,
        serverTimeline: false,
      });
    await assert.rejects(
      run({ window_s: -1 }),
      (e) => e instanceof InputError && /routes\.night\.batch\.window_s/.test(e.message),
    );
    await assert.rejects(
      run({ windows: 3 }),
      (e) => e instanceof InputError && /routes\.night\.batch/.test(e.message) && /windows/.test(e.message),
    );
    await assert.rejects(
      run({}, "azure-openai"),
      (e) => e instanceof InputError && /routes\.night\.batch/.test(e.message) && /no batch API/.test(e.message),
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the same split through Anthropic Message Batches: items answered, priced as batch", async () => {
  const { requests, attempts, manifest } = await runSplit(
    { window_s: 0.25, poll_interval_s: 0.05, max_wait_s: 10 },
    {},
    { dialect: "anthropic-messages" },
  );
  const night = requests.filter((r) => r.class === "overnight");
  assert.ok(night.length >= 2, `${night.length} batch requests`);
  for (const r of night) {
    assert.equal(r.route, "night");
    assert.equal(r.outcome, "ok", `${r.request_id}: ${r.error_kind}`);
    assert.equal(r.quality_ok, true, "the checks ran on the batch answer");
    assert.ok(r.output_tokens > 0 && r.input_tokens > 0, "usage read by the Anthropic dialect");
  }
  for (const a of attempts.filter((x) => x.route === "night")) {
    assert.equal(a.service_tier_requested, "batch");
    assert.equal(a.service_tier, "batch");
  }
  assert.equal(manifest.targets.find((t) => t.route === "night")!.dialect, "anthropic-messages");
  assert.ok(manifest.batches!.length >= 1 && manifest.batches!.every((b) => b.id?.startsWith("msgbatch_")));
});
