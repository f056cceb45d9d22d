import { latencyRow } from "../_fixture.ts";
import assert from "node:assert/strict";
import { CAVEAT_DOCS, type CaveatInput, reportCaveats } from "../../../analysis/report/caveats.ts";
import { anchors } from "../../docs/links_test.ts";
import type { LatencyRow } from "../../../analysis/latency/latency.ts";
import { COLUMN_SINCE_MINOR, EPOCH_COLUMNS, PROVIDER_SIGNAL_COLUMNS } from "../../../schema/events.ts";
import { SCHEMA_MINOR } from "../../../schema/version.ts";

const row = (o: Partial<LatencyRow>): LatencyRow => latencyRow({ stage: null, ...o });

/** A complete run of the current contract, nothing to say: each case changes one thing. */
function input(over: {
  minor?: number;
  stopped_by?: unknown;
  plan_warnings?: string[];
  headline?: string | null;
  no_capacity?: string | null;
  lines?: string[];
  partial?: { shard_count: number; missing_shards: number[] };
  warnings?: string[];
  tableRows?: LatencyRow[];
  figureRows?: LatencyRow[];
} = {}): CaveatInput {
  const manifest = {
    schema_minor: over.minor ?? SCHEMA_MINOR,
    plan: over.plan_warnings ? { warnings: over.plan_warnings } : {},
    result: { stopped_by: over.stopped_by ?? null },
  };
  return {
    run: { manifest, manifests: [manifest] },
    verdicts: {
      lines: over.lines ?? [],
      source: [],
      run_end: { headline: over.headline ?? null },
      no_capacity: over.no_capacity ?? null,
    },
    disclosure: {
      files: { shards: 2, ...(over.partial ? { partial: over.partial } : {}) },
      warnings: over.warnings ?? [],
    },
    tableRows: over.tableRows ?? [row({})],
    figureRows: over.figureRows ?? [row({ stage: "low" })],
    supportConfidence: 0.99,
  } as unknown as CaveatInput;
}

Deno.test("reportCaveats() says nothing about a complete, current, supported run", () => {
  assert.deepEqual(reportCaveats(input()), []);
});

Deno.test("reportCaveats() names a log that lacks the columns of a later contract minor", () => {
  // A 1.0 log lacks the 1.1 columns: requests streamed, applicable_gates, service_mode, reasoning_tokens,
  // cache_write_tokens (5) and attempts streamed, service_mode, reasoning_tokens, cache_write_tokens, retry_after_ms
  // (5): 10 columns, and any column a later minor added, but the epoch columns (1.6), which are derived, never null,
  // and the provider's tier and limit columns (1.7), which no runner before them read.
  const derived = new Set<string>([...Object.values(EPOCH_COLUMNS).map((e) => e.name), ...PROVIDER_SIGNAL_COLUMNS]);
  const later = Object.values(COLUMN_SINCE_MINOR).flatMap((s) => Object.entries(s ?? {}))
    .filter(([c, m]) => m > 1 && !derived.has(c)).length;
  const [c, ...rest] = reportCaveats(input({ minor: 0 }));
  assert.equal(rest.length, 0);
  assert.equal(c!.kind, "log_lacks_fields");
  assert.deepEqual([c!.severity, c!.level], ["note", "NOTE"]);
  // One line: 1.0 log, the count, the current contract; 140 characters at most.
  assert.equal(
    c!.line,
    `LOG LACKS FIELDS: a contract 1.0 log: ${10 + later} columns of 1.${SCHEMA_MINOR} read as null; streaming inferred`,
  );
  assert.equal(c!.docs, "docs/log_format.md#logs-older-than-13");
  assert.ok(
    c!.text.startsWith(
      `a contract 1.0 log (run.json schema_minor 0): ${10 + later} columns of contract 1.${SCHEMA_MINOR} `,
    ),
    c!.text,
  );
  assert.match(c!.text, /requests: streamed, applicable_gates, service_mode, reasoning_tokens, cache_write_tokens[;)]/);
  assert.match(c!.text, /streaming is inferred and every required gate applies/);
  // A log of the current minor lacks nothing; nor does a 1.5 log, whose only missing columns (the epoch columns of 1.6)
  // are derived from run.json epoch_iso.
  assert.deepEqual(reportCaveats(input({ minor: SCHEMA_MINOR })), []);
  assert.deepEqual(reportCaveats(input({ minor: 5 })), []);
  // Nor a 1.6 log, whose only missing columns (1.7) are the provider's tier and limits, which no runner read before.
  assert.deepEqual(reportCaveats(input({ minor: 6 })), []);
});

Deno.test("reportCaveats() counts the unsupported bars and table rows with the n the rule needs", () => {
  const caveats = reportCaveats(input({
    // Figure: 3 bars, 2 UNSUPPORTED; a row without a value draws no bar and is not counted.
    figureRows: [
      row({ stage: "a" }),
      row({ stage: "b", n: 40, supported: false, bound: null }),
      row({ stage: "c", n: 12, supported: false, bound: null }),
      row({ stage: "d", n: 0, value: null, supported: false, bound: null }),
    ],
    // Table: 3 rows, 1 UNSUPPORTED p50 (n 5 < 7) and 1 supported.
    tableRows: [row({}), row({ p: 0.5, n: 5, supported: false, bound: null }), row({ class: "json" })],
  }));
  assert.deepEqual(caveats.map((c) => c.kind), ["unsupported_percentiles"]);
  // At 99 %: p50 needs 7 (0.5^7 = 0.0078 ≤ 0.01 < 0.5^6), p99 needs 459.
  assert.equal(
    caveats[0]!.text,
    "2 of 3 bars of p99 e2e_ms per class per stage and 1 of 3 rows of the latency table have fewer samples than " +
      "the early-stopping rule needs at 99 % one-sided confidence (n ≥ 7 for p50, 459 for p99): not supported " +
      "estimates (hatched, hollow bars; UNSUPPORTED in the table)",
  );
  assert.equal(
    caveats[0]!.line,
    "UNSUPPORTED PERCENTILES: 2 of 3 bars and 1 of 3 table rows have too few samples to support their percentile " +
      "(hatched; UNSUPPORTED)",
  );
});

Deno.test("reportCaveats() lists INVALID first (incomplete run, no capacity, client limits), then WARNING, then NOTE", () => {
  const noCap = "no capacity can be derived from this run: no request in the window was accepted (0 of 9 offered)";
  const caveats = reportCaveats(input({
    minor: 0,
    headline: "INCOMPLETE RUN: interrupted at 12 s",
    no_capacity: noCap,
    lines: [
      "INCOMPLETE RUN: interrupted at 12 s",
      `NO CAPACITY: ${noCap}`,
      "CLIENT-LIMITED RUN: the runner reports …",
      "CLIENT-LIMITED STAGE: peak …",
    ],
    partial: { shard_count: 3, missing_shards: [2] },
    warnings: ["requests.csv: sha256 differs"],
    stopped_by: {
      rule: "acceptance_below",
      step: "s8",
      value: 0.5,
      threshold: 0.8,
      offered: 1,
      in_flight: 0,
      basis: "",
    },
  }));
  assert.deepEqual(caveats.map((c) => [c.kind, c.severity, c.level]), [
    ["run_end", "alert", "INVALID"],
    ["no_capacity", "alert", "INVALID"],
    ["client_limited", "alert", "INVALID"],
    ["client_limited", "alert", "INVALID"],
    ["partial_shards", "alert", "WARNING"],
    ["load_warning", "alert", "WARNING"],
    ["sweep_stopped", "note", "NOTE"],
    ["log_lacks_fields", "note", "NOTE"],
  ]);
  // One caveat per client line; the run-end and no-capacity lines are not repeated among them.
  assert.deepEqual(caveats.slice(2, 4).map((c) => c.text), [
    "CLIENT-LIMITED RUN: the runner reports …",
    "CLIENT-LIMITED STAGE: peak …",
  ]);
  assert.equal(caveats[4]!.text, "2 of 3 shards read (missing 2): the numbers cover only the shards present");
  assert.equal(caveats[4]!.line, "PARTIAL SHARDS: 2 of 3 shards read: the numbers cover only the shards present");
  assert.match(caveats[6]!.text, /stop rule acceptance_below held at step s8 \(0\.5 against 0\.8\)/);
  // Every line is one line of at most 140 characters, with a docs anchor.
  for (const c of caveats) {
    assert.ok(c.line.length <= 140 && !c.line.includes("\n"), c.line);
    assert.match(c.docs, /^docs\/[a-z_]+\.md#[a-z0-9-]+$/);
  }
  // A sweep that ran every planned step (max_rps) is not cut short.
  const full = { rule: "max_rps", step: "s16", value: 16, threshold: 16, offered: 1, in_flight: 0, basis: "" };
  assert.deepEqual(reportCaveats(input({ stopped_by: full })), []);
});

Deno.test("reportCaveats() notes the levels the runner found too short for the knee (run.json plan.warnings)", () => {
  const w = [
    "warning: plan too short for the knee: stage step-02 (4 req/s for 20 s): p95 needs n ≥ 90",
    "warning: plan too short for the knee: stage step-03 (6 req/s for 20 s): p99 needs n ≥ 459",
  ];
  const caveats = reportCaveats(input({ plan_warnings: w }));
  assert.deepEqual(caveats.map((c) => [c.kind, c.severity, c.label]), [["plan_too_short", "note", "PLAN TOO SHORT"]]);
  assert.equal(
    caveats[0]!.text,
    "the runner warned before ms 0 that the plan's levels are too short for the knee's percentile signals " +
      "(run.json plan.warnings): stage step-02 (4 req/s for 20 s): p95 needs n ≥ 90 | " +
      "stage step-03 (6 req/s for 20 s): p99 needs n ≥ 459",
  );
  // A run written before the one-line warning kept a line per level: the caveat's line counts them.
  assert.equal(
    caveats[0]!.line,
    "PLAN TOO SHORT: 2 levels too short for the knee's percentile signals: their departures may be undecidable",
  );
  // A run of this version keeps one line for the plan: the caveat's line is it, without the pointer to the plan CLI.
  const one = reportCaveats(input({
    plan_warnings: [
      "plan too short for the knee: p95 untestable at 2 of 2 levels (make steps ≥ 23 s over all classes), p99 at 2 " +
      "of 2 (≥ 115 s); each level: npx deno task plan --plan p.json",
    ],
  }));
  assert.equal(
    one[0]!.line,
    "PLAN TOO SHORT: p95 untestable at 2 of 2 levels (make steps ≥ 23 s over all classes), p99 at 2 of 2 (≥ 115 s)",
  );
  // A plan long enough (no warnings field) says nothing.
  assert.deepEqual(reportCaveats(input()), []);
});

Deno.test("every caveat's docs anchor names a heading of an existing docs file", () => {
  const root = new URL("../../../", import.meta.url);
  for (const [kind, link] of Object.entries(CAVEAT_DOCS)) {
    const [file, anchor] = link.split("#") as [string, string];
    const text = Deno.readTextFileSync(new URL(file, root));
    assert.ok(anchors(text).has(anchor), `${kind}: ${link}`);
  }
});
