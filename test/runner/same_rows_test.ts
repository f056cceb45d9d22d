/**
 * The runner's hot path may be made cheaper, never different: one seeded schedule against the fault server (each
 * request given a fixed mode by its id) must log the same rows as the code recorded in fixtures/same_rows.json did,
 * column by column; only the columns that are measured times may differ. Regenerate the fixture (only when a change
 * is meant to change what is recorded) with `SAME_ROWS_WRITE=1 deno test -A test/runner/same_rows_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { readLogCsvBatches } from "../../runner/sinks/csv_read_batches.ts";
import { RequestTally } from "../../runner/request_tally.ts";
import { type FaultMode, startFaultServer } from "../support/fault_server.ts";
import { promptSha256 } from "../../schema/workload_file.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

const FIXTURE = new URL("./fixtures/same_rows.json", import.meta.url);

/** Modes answered at once (none waits on a timer), so every request's rows depend on its mode only. */
const MODES: FaultMode[] = [
  "ok-sse",
  "ok-sse-eof",
  "ok-json",
  "500",
  "429",
  "reset",
  "malformed-sse",
  "cut",
  "wrong-content-type",
  "garbage",
  "bad-chunk",
  "tool-index-2",
  "finish-object",
  "content-number",
  "after-done",
  "sse-crlf",
  "sse-byte-chunks",
  "sse-error-event",
  "sse-usage-missing",
  "sse-usage-float",
  "sse-no-done",
  "sse-bad-utf8",
  "sse-two-choices",
  "json-empty",
];

/**
 * Columns that are measured instants or durations (they move with the machine); every other column, the
 * answers' hashes, token counts, outcomes, checks and provider signals included, must be equal.
 */
const TIME_COLUMNS = new Set([
  "scheduled_epoch_ms",
  "send_lag_ms",
  "first_sent_ms",
  "first_token_ms",
  "completed_ms",
  "tool_ms",
  "sent_epoch_ms",
  "sent_ms",
  "headers_ms",
  "last_token_ms",
  "itl_p50_ms",
  "itl_max_ms",
]);

type Row = Record<string, unknown>;

/** An unstreamed case with its own prompt (a workload refuses two cases with one prompt). */
function batchCase() {
  const messages = [{ role: "user" as const, content: "Say tok0 in one batch" }];
  return tinyCase({ case_id: "bt-001", class: "batch", messages, prompt_sha256: promptSha256(messages) });
}

/** run.json `result` fields that count (the others are measured times, CPU, memory and the machine's load). */
const RESULT_COUNTS = [
  "status",
  "offered",
  "not_sent",
  "client_shed",
  "retries",
  "retry_budget_exhausted",
  "retry_past_deadline",
] as const;

/** The client verdict run.json gives, recomputed from requests.csv as written (time-valued figures included). */
const VERDICT = ["offered", "not_sent", "client_shed", "send_lag_p99_ms", "send_lag_max_ms", "client_limited"] as const;

interface Logged {
  requests: Row[];
  attempts: Row[];
  result: Row;
}

/**
 * Runs the seeded schedule and returns its requests and attempts rows, time columns dropped, in request order, and
 * run.json's counts; checks run.json's client verdict against one tallied from the file read back.
 */
async function runSchedule(): Promise<Logged> {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({
    tokens: 6,
    pick: (req) => {
      // idempotency-key: <run id>:<request id>:<n>; the request's own number picks its mode.
      const id = req.headers.get("idempotency-key")?.split(":")[1] ?? "";
      const n = Number(id.replace(/\D/g, ""));
      return Number.isFinite(n) ? MODES[n % MODES.length] : undefined;
    },
  });
  try {
    const workload = writeWorkload(dir, [tinyCase(), batchCase()], {
      qa: true,
      batch: false,
    });
    const { dir: runDir, manifest } = await runLoadTest({
      workload,
      plan: constantPlan(dir, 40, 1.5),
      target: srv.url,
      out: join(dir, "out"),
      formats: ["csv"],
      seed: 7,
      runId: "same-rows",
      retryFile: writeJson(dir, "retry.json", { max_attempts: 2, base_ms: 5, cap_ms: 20, budget_min: 100 }),
      progress: false,
      serverTimeline: false,
    });
    const strip = (rows: Row[]) =>
      rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !TIME_COLUMNS.has(k))));
    const byId = (a: Row, b: Row) =>
      String(a.request_id).localeCompare(String(b.request_id)) || Number(a.attempt ?? 0) - Number(b.attempt ?? 0);
    const requests = strip(await readLogCsv(join(runDir, "requests.csv"), "requests") as unknown as Row[]);
    const attempts = strip(await readLogCsv(join(runDir, "attempts.csv"), "attempts") as unknown as Row[]);
    const tally = new RequestTally();
    for await (const rows of readLogCsvBatches(join(runDir, "requests.csv"), "requests")) tally.add(rows);
    const fromFile = tally.verdict({ stages: manifest.stages, lagLimitMs: manifest.runner.lag_limit_ms ?? null });
    for (const k of VERDICT) assert.deepEqual(manifest.result[k], fromFile[k], `run.json result.${k}`);
    const result = Object.fromEntries(RESULT_COUNTS.map((k) => [k, manifest.result[k]]));
    return { requests: requests.sort(byId), attempts: attempts.sort(byId), result };
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("the same seeded schedule against the same answers logs the same rows, column by column", async () => {
  const now = await runSchedule();
  if (Deno.env.get("SAME_ROWS_WRITE") === "1") {
    Deno.writeTextFileSync(FIXTURE, JSON.stringify(now, null, 1) + "\n");
  }
  const want = JSON.parse(Deno.readTextFileSync(FIXTURE)) as Logged;
  assert.deepEqual(now.result, want.result, "run.json result counts");
  // The schedule covers every mode, and both an answer that is ok and ones that fail.
  assert.equal(want.requests.length, 60);
  assert.ok(want.requests.some((r) => r.outcome === "ok") && want.requests.some((r) => r.outcome !== "ok"));
  for (const table of ["requests", "attempts"] as const) {
    assert.equal(now[table].length, want[table].length, `${table}: row count`);
    for (let i = 0; i < want[table].length; i++) {
      const w = want[table][i]!, g = now[table][i]!;
      assert.deepEqual(Object.keys(g), Object.keys(w), `${table} row ${i}: columns`);
      for (const k of Object.keys(w)) {
        assert.deepEqual(g[k], w[k], `${table} row ${i} (${w.request_id}) column ${k}`);
      }
    }
  }
});
