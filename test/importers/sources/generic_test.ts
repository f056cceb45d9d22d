import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../schema/errors.ts";
import { ImportMapping } from "../../../schema/import_mapping.ts";
import { loadSourceTexts, sourceText } from "../../../importers/sources/_source_text.ts";
import { readGeneric } from "../../../importers/sources/generic.ts";

const EXAMPLES = fileURLToPath(new URL("../../../data/import-examples/", import.meta.url));
const MAPPING = `${EXAMPLES}generic_mapping.json`;
const CSV = `${EXAMPLES}generic_requests.csv`;

Deno.test("readGeneric() reads the example CSV through its mapping", async (t) => {
  const run = readGeneric(await loadSourceTexts([CSV, MAPPING]));
  await t.step("six rows: 3 ok, 2 errors (http_error, timeout), 1 cancelled (aborted), two stages", () => {
    assert.deepEqual(run.requests.map((r) => r.outcome), ["ok", "ok", "error", "ok", "error", "cancelled"]);
    assert.deepEqual(run.requests.map((r) => r.id), ["a1", "a2", "a3", "a4", "a5", "a6"]);
    assert.deepEqual(run.stages.map((s) => s.name), ["warmup", "steady"]);
    assert.equal(run.tool_version, "acme-bench 0.4.1 (as the mapping states)");
    assert.equal(run.model, "llama-3.1-8b-instruct");
  });
  await t.step("relative ms times on the stated epoch; durations, tokens, status kept", () => {
    const epoch = Date.UTC(2026, 2, 2, 10, 0, 0); // "2026-03-02T10:00:00Z"
    const a2 = run.requests[1]!;
    // a2: t_send_ms 1000.0, t_first_ms 1210.0, t_done_ms 2010.0 (line 3 of the CSV).
    assert.deepEqual(
      [a2.sent_epoch_ms, a2.first_token_epoch_ms, a2.completed_epoch_ms],
      [epoch + 1000, epoch + 1210, epoch + 2010],
    );
    assert.deepEqual([a2.ttft_ms, a2.e2e_ms, a2.input_tokens, a2.output_tokens], [210, 1010, 118, 41]);
    assert.equal(a2.at, `${CSV}:3`);
    assert.equal(a2.tool_metrics["acme.tpot_ms"], 20);
    const a3 = run.requests[2]!;
    assert.deepEqual([a3.http_status, a3.tool_status, a3.ttft_ms, a3.first_token_epoch_ms], [
      429,
      "http_error",
      null,
      null,
    ]);
    assert.equal(a2.clock_ms, undefined);
    assert.equal(a2.token_source, "server_usage");
  });
  await t.step("lacks: the user's declaration first, then what the mapping leaves out (gates)", () => {
    assert.equal(
      run.lacks[0]!.consequence,
      "acme-bench runs 4 closed-loop workers: there is no schedule, latency runs from send",
    );
    assert.deepEqual(run.lacks.map((l) => l.field), ["scheduled_ms", "gates"]);
  });
});

/** A mapping object for the hand-built files below. */
const mapping = (over: Record<string, unknown> = {}) => ({
  tool: { name: "t", version: null },
  columns: { outcome: "ok?", sent: "start", completed: "end", ttft: "ttft", output_tokens: "usage.out", itl: "gaps" },
  times: { unit: "s", clock: "relative" },
  durations: { unit: "s" },
  outcomes: { ok: ["true"], error: ["false"] },
  ...over,
});

Deno.test("readGeneric() reads JSONL: dotted columns, s units, ITL arrays, relative times with no epoch", () => {
  const jsonl = [
    { "ok?": true, start: 1.5, end: 2.25, ttft: 0.25, usage: { out: 3 }, gaps: [0.125, 0.375] },
    { "ok?": false, start: 2.0, end: 2.5, ttft: null, usage: { out: 0 }, gaps: null },
  ].map((o) => JSON.stringify(o)).join("\n");
  const run = readGeneric([sourceText("m.json", JSON.stringify(mapping())), sourceText("r.jsonl", jsonl + "\n")]);
  const [a, b] = run.requests;
  assert.deepEqual([a!.outcome, b!.outcome], ["ok", "error"]);
  // 1.5 s → 1500 ms on the file's own clock; no epoch stated, so the epoch fields stay null.
  assert.deepEqual(a!.clock_ms, { scheduled: null, sent: 1500, first_token: null, completed: 2250 });
  assert.equal(a!.sent_epoch_ms, null);
  assert.deepEqual([a!.ttft_ms, a!.itl_ms, a!.output_tokens], [250, [125, 375], 3]);
  assert.deepEqual([b!.ttft_ms, b!.itl_ms, b!.stage], [null, null, "all"]);
  const fields = run.lacks.map((l) => l.field);
  for (const f of ["scheduled_ms", "epoch (wall-clock times)", "token counts", "gates"]) {
    assert.ok(fields.includes(f), f);
  }
});

Deno.test("readGeneric() refuses bad data and bad mappings, naming file, line and column", async (t) => {
  const [csv, map] = await loadSourceTexts([CSV, MAPPING]);
  const fails = (files: ReturnType<typeof sourceText>[], pattern: RegExp) =>
    assert.throws(() => readGeneric(files), (e: unknown) => e instanceof InputError && pattern.test(e.message));
  await t.step("a number that is not one: file, line, column", () => {
    const bad = csv!.text.replace("1500.0,1650.0", "1500.0,soon");
    fails([map!, sourceText("r.csv", bad)], /^r\.csv:5: column "t_first_ms": "soon" is not a number/);
  });
  await t.step("an outcome value the mapping does not list", () => {
    const bad = csv!.text.replace("a6,steady,aborted", "a6,steady,exploded");
    fails([map!, sourceText("r.csv", bad)], /^r\.csv:7: column "status": value "exploded" is not listed/);
  });
  await t.step("a CSV row with a missing cell (the file cut in the middle of a line)", () => {
    const cut = csv!.text.slice(0, csv!.text.indexOf("a4,steady") + 20);
    fails([map!, sourceText("r.csv", cut)], /^r\.csv:5: not valid CSV/);
  });
  await t.step("a mapped column missing from the header", () => {
    fails(
      [map!, sourceText("r.csv", csv!.text.replace("ttft_ms,", "ttft,"))],
      /r\.csv: column "ttft_ms" \(mapping ttft\)/,
    );
  });
  await t.step("a JSONL line cut in the middle: line and column", () => {
    fails(
      [sourceText("m.json", JSON.stringify(mapping())), sourceText("r.jsonl", '{"ok?": true}\n{"ok?": tr')],
      /^r\.jsonl:2:\d+: not valid JSON/,
    );
  });
  await t.step(
    "mappings: an outcome column without its values, both outcome and every_row_ok, a time unit missing",
    () => {
      const data = sourceText("r.jsonl", '{"ok?": true, "start": 1, "end": 2}\n');
      fails(
        [sourceText("m.json", JSON.stringify(mapping({ outcomes: undefined }))), data],
        /m\.json: outcomes: columns\.outcome is mapped/,
      );
      fails(
        [sourceText("m.json", JSON.stringify(mapping({ every_row_ok: true }))), data],
        /every_row_ok: give columns\.outcome or every_row_ok/,
      );
      fails(
        [sourceText("m.json", JSON.stringify(mapping({ times: undefined }))), data],
        /m\.json: times: a time column is mapped/,
      );
      fails(
        [sourceText("m.json", JSON.stringify(mapping({ extra: 1 }))), data],
        /m\.json: \(top level\): Unrecognized key: "extra"/,
      );
    },
  );
});

Deno.test("ImportMapping: every_row_ok declares the file holds answered requests only, and the lack says so", () => {
  const m = ImportMapping.parse({
    tool: { name: "x", version: "1" },
    columns: { e2e: "lat" },
    durations: { unit: "ms" },
    every_row_ok: true,
  });
  assert.equal(m.default_stage, "all");
  const run = readGeneric([sourceText("m.json", JSON.stringify(m)), sourceText("r.csv", "lat\n12\n15\n")]);
  assert.deepEqual(run.requests.map((r) => [r.outcome, r.e2e_ms]), [["ok", 12], ["ok", 15]]);
  assert.ok(
    run.lacks.some((l) =>
      l.field === "failed requests" && /offered denominator cannot be recovered/.test(l.consequence)
    ),
  );
  assert.ok(run.lacks.some((l) => l.field === "absolute times"));
});
