import assert from "node:assert/strict";
import { join } from "node:path";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import { formatSensitivity } from "../../../analysis/compare/format_sensitivity.ts";
import {
  parseRangeFactor,
  parseRangeFlag,
  sensitivity,
  type SensitivityOptions,
  withPrice,
} from "../../../analysis/compare/sensitivity.ts";
import { tornadoFigure } from "../../../analysis/plots/tornado.ts";
import { InputError } from "../../../schema/errors.ts";
import { type OverheadSheet, PriceSheet } from "../../../schema/prices.ts";
import { att, makeManifest, overheadSheet, req, writeRun } from "../_fixture.ts";
import { hosted, LEDGER_POLICY, LEDGER_STAGES } from "../cost/ledger_fixture.ts";

/*
 * Two tiny routes on the same 10-s window (LEDGER_STAGES: warm-up 0–10 s excluded, steady 10–20 s; qa accepted when
 * e2e ≤ 1000 ms, output_valid and quality_ok):
 *
 * - route hosted: h1..h4, one served attempt each of 1000 uncached input and 500 output tokens at 1 USD/Mtok input,
 *   4 USD/Mtok output: 0.001 + 0.002 = 0.003 each, 0.012 in all. h4 fails quality_ok: 3 accepted → 0.004 each.
 *   Slopes per accepted task: input 4 × 1000 / 1e6 / 3 = 0.004 / 3 per USD/Mtok; output 4 × 500 / 1e6 / 3 = 0.002 / 3.
 * - route selfhosted: s1..s4 (s3, s4 answer in 2000 ms: completed, not accepted): 2 accepted. fixed_replicas 1,
 *   1 GPU, gpu_time "window", no timeline: 10 s × 3.6 USD/h = 0.01 USD → 0.005 per accepted task.
 *   Slope: 10 / 3600 / 2 = 1 / 720 per USD/GPU-hour.
 *
 * hosted 0.004 < selfhosted 0.005, gap 0.001. Break-even = price + gap / (slope hosted − slope selfhosted):
 * - gpu_hour: 3.6 + 0.001 / (0 − 1/720) = 3.6 − 0.72 = 2.88 (selfhosted cheaper below it; 10 × 2.88 / 3600 / 2 = 0.004)
 * - input_per_mtok: 1 + 0.001 / (0.004/3) = 1.75 (selfhosted cheaper above it; 4 × (0.00175 + 0.002) / 3 = 0.005)
 * - output_per_mtok: 4 + 0.001 / (0.002/3) = 5.5 (4 × (0.001 + 0.00275) / 3 = 0.005)
 */
const SOURCED = "test quote, 2026-01-01";

function sheet(selfSource = SOURCED, hostedSource = SOURCED): PriceSheet {
  return PriceSheet.parse({
    price_sheet_version: 1,
    name: "two-routes",
    currency: "USD",
    as_of: "2026-01-01",
    source: "the routes' own",
    routes: {
      hosted: { ...hosted(1, null, 4, { rejected: false, failed: false, cancelled: false }), source: hostedSource },
      selfhosted: {
        kind: "self_hosted",
        gpu_type: "T4",
        gpu_hour: 3.6,
        gpus_per_replica: 1,
        fixed_replicas: 1,
        gpu_time: "window",
        source: selfSource,
      },
    },
  });
}

/** Every overhead at 0 but shared operations (36 USD/h) and human review (accepted tasks, 0.6 min at `hourly`). */
function overheads(hourly = 6): OverheadSheet {
  return overheadSheet({ name: "oh", as_of: "2026-01-01", source: "test overheads" }, {
    retrieval: { per_call: 0 },
    tools: { per_call: 0 },
    storage: { per_gb_month: 0, bytes_per_request: 0, retention_months: 0 },
    observability: { per_request: 0 },
    human_review: {
      basis: "accepted",
      sample_rate: 1,
      minutes_per_review: 0.6,
      correction_rate: 0,
      minutes_per_correction: 0,
      hourly,
    },
    allocated_operations: { per_hour: 36 },
  });
}

function writeRoute(route: string, ids: string[], bad: (id: string) => { e2e?: number; quality_ok?: boolean }) {
  const requests = ids.map((id, i) => {
    const t = 10_500 + i * 1000, b = bad(id);
    return req({
      request_id: id,
      class: "qa",
      stage: "steady",
      scheduled_ms: t,
      route,
      first_token_ms: t + 100,
      completed_ms: t + (b.e2e ?? 500),
      input_tokens: 1000,
      output_tokens: 500,
      quality_ok: b.quality_ok ?? true,
    });
  });
  const attempts = requests.map((r) =>
    att({
      request_id: r.request_id,
      sent_ms: r.scheduled_ms,
      route,
      input_tokens: 1000,
      output_tokens: 500,
      completed_ms: r.completed_ms,
    })
  );
  const manifest = makeManifest(LEDGER_STAGES, { run_id: `run-${route}` });
  manifest.conditions = { ...manifest.conditions, route };
  return writeRun(join(Deno.makeTempDirSync(), route), manifest, { requests, attempts });
}

async function routes(): Promise<LoadedRun[]> {
  return [
    await loadRun(writeRoute("hosted", ["h1", "h2", "h3", "h4"], (id) => (id === "h4" ? { quality_ok: false } : {})), {
      onWarning: () => {},
    }),
    await loadRun(
      writeRoute("selfhosted", ["s1", "s2", "s3", "s4"], (id) => (id >= "s3" ? { e2e: 2000 } : {})),
      { onWarning: () => {} },
    ),
  ];
}

const close = (a: number | null | undefined, b: number, what: string) =>
  assert.ok(a != null && Math.abs(a - b) < 1e-12, `${what}: ${a} ≠ ${b}`);

const run = (opts: SensitivityOptions = {}, prices = sheet()) =>
  routes().then((r) => sensitivity(r, LEDGER_POLICY, prices, opts));

Deno.test("sensitivity() of a hosted and a self-hosted route: hand-computed break-even prices and swings", async (t) => {
  const r = await run();
  const be = (line: string) => r.break_even.find((b) => b.line === line)!;

  await t.step("the routes ranked by the ledger's cost per accepted task", () => {
    assert.deepEqual(r.routes.map((x) => [x.route, x.rank, x.accepted]), [["hosted", 1, 3], ["selfhosted", 2, 2]]);
    close(r.routes[0]!.cost_per_accepted_task, 0.004, "hosted");
    close(r.routes[1]!.cost_per_accepted_task, 0.005, "selfhosted");
  });
  await t.step("break-even per GPU-hour: 2.88, selfhosted cheaper below it", () => {
    const b = be("routes.selfhosted.gpu_hour");
    close(b.slope_dearer, 1 / 720, "selfhosted slope");
    close(b.slope_cheaper, 0, "hosted slope");
    close(b.price, 2.88, "break-even");
    close(b.factor, 0.8, "factor");
    assert.equal(b.dearer_wins, "below");
    assert.equal(b.within_range, true); // default range 1.8–7.2
  });
  await t.step("break-even per million input and output tokens: 1.75 and 5.5, selfhosted cheaper above", () => {
    close(be("routes.hosted.input_per_mtok").price, 1.75, "input");
    close(be("routes.hosted.output_per_mtok").price, 5.5, "output");
    assert.equal(be("routes.hosted.output_per_mtok").dearer_wins, "above");
  });
  await t.step(
    "lines at 0: the slope read 1 unit above; a positive break-even, or one that needs a negative price",
    () => {
      // The hosted per-attempt fee: 4 charged attempts / 3 accepted per USD of fee; 0 + 0.001 / (4/3 − 0) = 0.00075.
      const fee = be("routes.hosted.per_request");
      close(fee.slope_cheaper, 4 / 3, "fee slope");
      close(fee.price, 0.00075, "fee break-even");
      assert.equal(fee.dearer_wins, "above");
      // Self-hosted operations: 10 s / 3600 / 2 accepted = 1/720 per USD/h on the dearer route:
      // 0 + 0.001 / (0 − 1/720) = −0.72.
      assert.equal(be("routes.selfhosted.operations_per_hour").reason, "the flip needs a negative price (-0.7200)");
    },
  );
  await t.step("the break-even price flips the order when the ledger is re-run there", async () => {
    const rs = await routes();
    const at = (line: string, x: number) => {
      const l = r.lines.find((y) => y.id === line)!;
      const s = withPrice(l, x, sheet(), null);
      return rs.map((run) => ledger(run, LEDGER_POLICY, s.prices).overall.cost_per_accepted_task!);
    };
    const [h, s] = at("routes.selfhosted.gpu_hour", 2.88);
    close(h, s!, "equal at 2.88");
    const [h2, s2] = at("routes.selfhosted.gpu_hour", 2.8);
    assert.ok(s2! < h2!, "selfhosted cheaper below");
    // linear: a third price on the line through the range's ends
    const [, s3] = at("routes.selfhosted.gpu_hour", 10);
    close(s3, 0.005 + (10 - 3.6) / 720, "cost at 10 USD/GPU-hour on the line");
  });
  await t.step("tornado: default ×0.5–×2, largest swing first, hand-computed ends", () => {
    assert.deepEqual(r.tornado.map((x) => x.line), [
      "routes.selfhosted.gpu_hour",
      "routes.hosted.output_per_mtok",
      "routes.hosted.input_per_mtok",
    ]);
    const [gpu, out, inp] = r.tornado;
    const sh = (row: typeof gpu) => row!.effects.find((e) => e.route === "selfhosted")!;
    const ho = (row: typeof gpu) => row!.effects.find((e) => e.route === "hosted")!;
    // gpu 1.8–7.2: 10 × 1.8 / 3600 / 2 = 0.0025, 10 × 7.2 / 3600 / 2 = 0.01; hosted stays 0.004.
    close(sh(gpu).at_low, 0.0025, "gpu low");
    close(sh(gpu).at_high, 0.01, "gpu high");
    close(gpu!.max_swing, 0.0075, "gpu swing");
    assert.deepEqual([ho(gpu).at_low, ho(gpu).swing], [0.004, 0]);
    // output 2–8: 4 × (0.001 + 0.001) / 3, 4 × (0.001 + 0.004) / 3; input 0.5–2: 4 × 0.0025 / 3, 4 × 0.004 / 3.
    close(ho(out).at_low, 0.008 / 3, "output low");
    close(ho(out).at_high, 0.02 / 3, "output high");
    close(inp!.max_swing, 0.016 / 3 - 0.01 / 3, "input swing");
    assert.deepEqual(r.lines.filter((l) => !l.range).map((l) => l.id), [
      "routes.hosted.per_request",
      "routes.selfhosted.operations_per_hour",
    ]);
  });
  await t.step("the tornado figure: one panel per route, two traces each, the other route marked", () => {
    const f = tornadoFigure(r);
    assert.equal(f.data.length, 4);
    assert.deepEqual(f.data[2]!.y, ["hosted input price", "hosted output price", "selfhosted T4 GPU-hour"]);
    const high = f.data[3]!.x as number[];
    close(high[2]!, 0.01 - 0.005, "selfhosted gpu bar at the high end");
    assert.match(f.layout.title.subtitle.text.replaceAll("<br>", " "), /n = hosted 3 accepted of 4 offered/);
    assert.equal((f.layout.shapes as { x0: number }[])[0]!.x0, 0.005);
  });
});

Deno.test("sensitivity() marks assumptions and says when an assumed line drives the ranking", async (t) => {
  await t.step("driven: the assumed GPU-hour flips the pair inside its default range (2.88 in 1.8–7.2)", async () => {
    const r = await run({}, sheet("ILLUSTRATIVE ASSUMPTION, not a quote"));
    assert.equal(r.lines.find((l) => l.id === "routes.selfhosted.gpu_hour")!.assumed, "its source says ILLUSTRATIVE");
    assert.equal(r.lines.find((l) => l.id === "routes.hosted.input_per_mtok")!.assumed, null);
    assert.deepEqual(r.driven_by.map((d) => d.line), ["routes.selfhosted.gpu_hour"]);
    assert.deepEqual(r.routes.map((x) => x.assumed_lines), [[], ["routes.selfhosted.gpu_hour"]]);
    // the GPU line is all of selfhosted's cost: 1/720 × 3.6 / 0.005 = 1
    assert.deepEqual(r.dominant.map((d) => [d.line, d.route]), [["routes.selfhosted.gpu_hour", "selfhosted"]]);
    close(r.dominant[0]!.share, 1, "share");
    assert.match(
      r.caveats[0]!,
      /^the ranking is driven by an assumed selfhosted T4 GPU-hour cost .*flips at 2\.88, inside its range 1\.8–7\.2/,
    );
    const text = formatSensitivity(r).join("\n");
    assert.match(text, /routes\.selfhosted\.gpu_hour \*/);
  });
  await t.step("driven by majority: outside the range but the line is most of the difference", async () => {
    // range 3–7.2 leaves 2.88 out; the GPU line is (1/720 − 0) × 3.6 / 0.001 = 5 × the difference
    const r = await run({ ranges: [parseRangeFlag("gpu_hour=3:7.2")] }, sheet("ASSUMPTION"));
    const b = r.driven_by[0]!.pairs[0]!;
    assert.equal(b.within_range, false);
    close(b.share_of_gap, 5, "share");
    assert.match(r.caveats[0]!, /it makes 500 % of the difference/);
  });
  await t.step(
    "not driven: an assumed input price whose break-even (1.75) lies outside 0.5–1.5 and works against the gap",
    async () => {
      const r = await run({
        ranges: [parseRangeFlag("input_per_mtok=0.5:1.5")],
        assumed: { "routes.hosted.input_per_mtok": "the caller says so" },
      });
      assert.deepEqual(r.driven_by, []);
      // (0 − 0.004/3) × 1 / 0.001 = −1.33: the input line narrows hosted's lead
      close(r.break_even.find((b) => b.line === "routes.hosted.input_per_mtok")!.share_of_gap, -4 / 3, "share");
      assert.match(r.caveats[0]!, /^no assumed line drives the ranking \(routes\.hosted\.input_per_mtok\)/);
    },
  );
  await t.step("driven: the same assumed input price with the range 0.5–2 that holds 1.75", async () => {
    const r = await run({
      ranges: [parseRangeFlag("input_per_mtok=0.5:2")],
      assumed: { "routes.hosted.input_per_mtok": "the caller says so" },
    });
    assert.deepEqual(r.driven_by.map((d) => d.line), ["routes.hosted.input_per_mtok"]);
  });
  await t.step(
    "an assumed review line that is most of each cost but moves no pair: dominant, not driving",
    async () => {
      const r = await run({ overheads: overheads(), assumed: { "overheads.human_review.hourly": "a guess" } });
      assert.deepEqual(r.driven_by, []);
      // review 0.06 per accepted task of hosted 0.004 + 0.06 + 0.1/3 and selfhosted 0.005 + 0.06 + 0.05
      assert.deepEqual(r.dominant.map((d) => d.route), ["hosted", "selfhosted"]);
      close(r.dominant[0]!.share, 0.06 / (0.004 + 0.06 + 0.1 / 3), "hosted share");
      close(r.dominant[1]!.share, 0.06 / 0.115, "selfhosted share");
      assert.ok(
        r.caveats.includes(
          "an assumed human review cost (overheads.human_review.hourly = 6 USD per reviewer hour, a guess) makes most of " +
            "the cost per accepted task: hosted 61.64 %, selfhosted 52.17 %",
        ),
        r.caveats.join("\n"),
      );
      assert.match(r.caveats[0]!, /^no assumed line drives the ranking \(overheads\.human_review\.hourly\)/);
    },
  );
  await t.step("other assumptions are caveats; overhead lines carry their section's source", async () => {
    const r = await run({
      overheads: overheads(),
      otherAssumptions: [{ name: "volume", reason: "extrapolated from 2/s" }],
    });
    assert.ok(r.caveats.includes("assumed: volume: extrapolated from 2/s"));
    // review of accepted tasks: 0.6 / 60 × 6 = 0.06 per accepted task on both routes, equal slopes (0.01 per USD/h)
    const review = r.break_even.find((b) => b.line === "overheads.human_review.hourly")!;
    close(review.slope_cheaper, 0.01, "review slope");
    assert.equal(review.reason, "costs both routes the same per accepted task");
    // operations 36 USD/h × 10 s = 0.1 spread over 4 offered each: hosted 0.1 / 3, selfhosted 0.1 / 2 per accepted.
    // hosted 0.004 + 0.06 + 0.1/3 < selfhosted 0.005 + 0.06 + 0.05, gap 0.017667; the dearer route gains more per
    // USD/h, so the flip is at 36 − 0.017667 / (10/3600 × (1/2 − 1/3)) = 36 − 38.16 < 0.
    const ops = r.break_even.find((b) => b.line === "overheads.allocated_operations.per_hour")!;
    close(ops.slope_dearer - ops.slope_cheaper, 10 / 3600 * (1 / 2 - 1 / 3), "ops slope difference");
    assert.match(ops.reason!, /negative price/);
  });
});

Deno.test("sensitivity ranges: bad flags and ranges that do not hold the price are input errors naming the flag", async (t) => {
  await t.step("parse errors", () => {
    assert.throws(() => parseRangeFlag("gpu_hour"), /--range gpu_hour: expected LINE=LOW:HIGH/);
    assert.throws(() => parseRangeFlag("gpu_hour=a:2"), /--range gpu_hour=a:2: LOW "a" is not a number/);
    assert.throws(() => parseRangeFlag("gpu_hour=-1:2"), /LOW -1 is negative/);
    assert.throws(() => parseRangeFlag("gpu_hour=3:2"), /LOW 3 is above HIGH 2/);
    assert.throws(() => parseRangeFactor("2"), /--range-factor 2: expected LOW:HIGH/);
    assert.throws(() => parseRangeFactor("0.5:0.9"), /must contain 1/);
    assert.throws(() => parseRangeFactor("-0.5:2"), /must contain 1/);
  });
  const rejects = (opts: SensitivityOptions, re: RegExp) =>
    assert.rejects(() => run(opts), (e: unknown) => e instanceof InputError && re.test(e.message));
  await t.step("a range that does not contain the sheet's price", () =>
    rejects(
      { ranges: [parseRangeFlag("gpu_hour=4:6")] },
      /--range gpu_hour=4:6: the range 4–6 does not contain routes\.selfhosted\.gpu_hour's price on the sheet, 3\.6/,
    ));
  await t.step(
    "an unknown line, listing the lines",
    () =>
      rejects(
        { ranges: [parseRangeFlag("tpu_hour=1:2")] },
        /--range tpu_hour=1:2: no price line "tpu_hour" \(lines: .*routes\.selfhosted\.gpu_hour/,
      ),
  );
  await t.step("an ambiguous line", () =>
    rejects(
      { overheads: overheads(), ranges: [parseRangeFlag("per_call=0:1")] },
      /"per_call" names 2 lines \(overheads\.retrieval\.per_call, overheads\.tools\.per_call\)/,
    ));
  await t.step("the same line twice", () =>
    rejects(
      { ranges: [parseRangeFlag("gpu_hour=1:4"), parseRangeFlag("routes.selfhosted.gpu_hour=2:5")] },
      /already has a range \(--range gpu_hour=1:4\)/,
    ));
  await t.step("one run", async () => {
    const [one] = await routes();
    assert.throws(() => sensitivity([one!], LEDGER_POLICY, sheet()), /at least two runs, got 1/);
  });
});
