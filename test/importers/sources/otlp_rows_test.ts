/**
 * `--from otlp` on the spans of another app (no goodput.* attribute): a hand-written file shaped like an app
 * instrumented with OpenTelemetry's FastAPI and OpenAI instrumentations (data/import-examples/otlp_third_party.json),
 * read through the semantic conventions; every expected value is worked out from the file's times in the comments.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { isImported } from "../../../schema/imported_manifest.ts";
import { readOtlp } from "../../../importers/sources/otlp.ts";
import { sourceText } from "../../../importers/sources/_source_text.ts";
import { importPeer } from "../../../importers/import_peer.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";

const THIRD_PARTY = new URL("../../../data/import-examples/otlp_third_party.json", import.meta.url).pathname;

Deno.test("another app's spans (no goodput.* attribute) are read through the semantic conventions", async () => {
  const run = readOtlp([sourceText(THIRD_PARTY, await Deno.readTextFile(THIRD_PARTY))]);
  const { requests, attempts, tools, phases, epoch_iso, timeline } = run.rows!;
  // ms 0: the earliest root start, 1700000000005.25 ms, floored to the ms; every time below is file time − 5 ms.
  assert.equal(epoch_iso, "2023-11-14T22:13:20.005Z");
  assert.equal(timeline.scheduled_from, "send");
  const A = "0af7651916cd43dd8448eb211c80319c", B = "4bf92f3577b34da6a3ce929d0e0e4736";
  const base = {
    run_id: "",
    case_id: "",
    class: "imported",
    priority: 0,
    stage: "traces",
    shard: 0,
    send_lag_ms: null,
    cached_input_tokens: 0,
    output_valid: null,
    schema_ok: null,
    quality_ok: null,
    safety_ok: null,
    auth_ok: null,
    quality_detail: null,
    prompt_sha256: "",
    output_sha256: null,
    applicable_gates: "",
    service_mode: null,
    reasoning_tokens: null,
    cache_write_tokens: null,
  };
  assert.deepEqual(requests, [{
    ...base,
    request_id: A,
    route: "gpt-4o-mini",
    scheduled_ms: 0.25, // the root's start, 5.25 − 5
    first_sent_ms: 26, // the first call's start, 31 − 5
    first_token_ms: 745, // the first token of the first call that did not fail: its event at 750 − 5
    completed_ms: 1200.25, // the root's end, 1205.25 − 5 (its status is not ERROR)
    outcome: "ok",
    http_status: 200,
    error_kind: null,
    attempts: 3,
    rounds: 1, // every call in round 0
    tool_calls: 1, // get_weather; the retrieval step is a tool row but no tool call
    tool_ms: 70.5, // (30.5 − 10) + (1150 − 1100)
    input_tokens: 320, // 0 + 120 + 200 (the last call states the older gen_ai.usage.prompt_tokens)
    output_tokens: 55, // 0 + 45 + 10
    finish_reason: "stop", // the last call's
    streamed: true, // a call has a first-token event
  }, {
    ...base,
    request_id: B,
    route: "gpt-4o",
    scheduled_ms: 1995,
    first_sent_ms: 1995, // the root is its own call
    first_token_ms: null,
    completed_ms: null, // status ERROR
    outcome: "transport_error", // ERROR with no HTTP status
    http_status: null,
    error_kind: "source: Connection error.", // no error.type: the status message
    attempts: 1,
    rounds: 1,
    tool_calls: 0,
    tool_ms: 0,
    input_tokens: 0,
    output_tokens: 0,
    finish_reason: null,
    streamed: null,
  }]);
  assert.deepEqual(
    attempts.map((a) => [a.request_id, a.attempt, a.provider, a.model, a.sent_ms, a.first_token_ms, a.completed_ms]),
    [
      [A, 1, "openai", "gpt-4o-mini", 26, null, null], // gen_ai.system names the provider
      [A, 2, "openai", "gpt-4o-mini", 595, 745, 1095], // gen_ai.provider.name
      [A, 3, "openai", "gpt-4o-mini", 1145, null, 1195],
      [B, 1, "openai", "gpt-4o", 1995, null, null],
    ],
  );
  assert.deepEqual(
    attempts.map((
      a,
    ) => [a.http_status, a.error_kind, a.token_source, a.input_tokens, a.output_tokens, a.finish_reason]),
    [
      [429, "source: RateLimitError", null, 0, 0, null],
      [null, null, "usage", 120, 45, "tool_calls"],
      [null, null, "usage", 200, 10, "stop"],
      [null, "source: Connection error.", null, 0, 0, null],
    ],
  );
  assert.deepEqual(attempts.map((a) => [a.round, a.retry_reason, a.backoff_ms, a.streamed]), [
    [0, null, null, null],
    [0, null, null, true],
    [0, null, null, null],
    [0, null, null, null],
  ]);
  assert.deepEqual(tools, [
    {
      run_id: "",
      request_id: A,
      round: 0,
      tool: "retrieval",
      started_ms: 5,
      ended_ms: 25.5,
      ok: true,
      error_kind: null,
    },
    {
      run_id: "",
      request_id: A,
      round: 0,
      tool: "get_weather",
      started_ms: 1095,
      ended_ms: 1145,
      ok: true,
      error_kind: null,
    },
  ]);
  assert.deepEqual(phases, []);
  assert.deepEqual(run.lacks.map((l) => l.field), [
    "offered",
    "scheduled_ms",
    "gates",
    "class",
    "retries",
    "first token",
    "token counts",
    "phases",
  ]);
  // Calls without a first-token event: 1, 3 and B's = 3 of 4; without usage: 1 and B's = 2 of 4.
  assert.match(run.lacks.find((l) => l.field === "first token")!.consequence, /^3 of 4 call/);
  assert.match(run.lacks.find((l) => l.field === "token counts")!.consequence, /^2 of 4 call/);
  assert.deepEqual(run.notes, [
    "9 span(s) in 1 file(s): 2 task(s) (root spans), service.name support-bot, batch-summarizer",
    "1 span(s) under a root are neither a model call, a tool step nor a phase: not read",
    `1 span(s) whose parent is not in the files belong to no task: not read (first at ${THIRD_PARTY}:1)`,
  ]);
});

Deno.test("another app's file becomes a run folder the analysis reads, with its lacks in run.json", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "run");
    const done = await importPeer("otlp", [THIRD_PARTY], out);
    assert.equal(done.kind, "run");
    const run = await loadRun(out, { onWarning: () => {} });
    assert.ok(isImported(run.manifest));
    assert.equal(run.manifest.source.tool, "otlp");
    assert.deepEqual(run.manifest.workload.classes, ["imported"]);
    assert.deepEqual([run.requests.height, run.attempts.height, run.tools.height], [2, 4, 2]);
    assert.ok(run.manifest.lacks.some((l) => l.field === "scheduled_ms"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
