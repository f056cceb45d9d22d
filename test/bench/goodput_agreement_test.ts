/**
 * The analysis bench's two other goodput implementations (plain TypeScript
 * loops, danfojs) must agree with `goodput()` and the polars curves, as the
 * bench asserts before it times anything — here on a small generated log
 * that has every case of the streaming and gate rules, so a rule changed in
 * one path only fails a test, not just a bench run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type * as Danfo from "danfojs";
import { goodput, type GoodputResult } from "../../analysis/goodput/goodput.ts";
import { loadRun } from "../../analysis/run/load_run.ts";
import { loadSloPolicy } from "../../analysis/goodput/policy.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { danfoGoodput } from "../../bench/_danfo_goodput.ts";
import { generateRunLog } from "../../bench/_gen_log.ts";
import { type BenchResult, columnsOf, plainGoodput } from "../../bench/_plain_goodput.ts";
import { polarsCurves } from "../../bench/_polars_curves.ts";

const DESIGN = new URL("../../data/slo/design-v1.json", import.meta.url).pathname;

const strip = (t: GoodputResult | BenchResult) => ({
  overall: t.overall,
  by_class: t.by_class,
  by_stage: t.by_stage,
  by_class_stage: t.by_class_stage,
});
const counts = (c: BenchResult["curves"]) =>
  Object.fromEntries(Object.entries(c).map(([k, v]) => [k, [...v.accepted]]));

Deno.test("the bench's plain and danfo goodput agree with goodput() on unstreamed, n/a and 1.0-style rows", async (t) => {
  const dir = generateRunLog(join(Deno.makeTempDirSync(), "bench-log"), 4000, 3);
  const run = await loadRun(dir);
  const design = await loadSloPolicy(DESIGN);
  // The minimal policy requires the default gates (safety_ok, auth_ok) of every class: n/a for most requests.
  const minimal: SloPolicy = { ...design, classes: {}, default: { e2e_ms: 10_000, gates: design.default.gates } };
  const dfd = (await import("danfojs")) as unknown as typeof Danfo;
  for (const [name, policy] of [["design-v1", design], ["minimal", minimal]] as const) {
    await t.step(name, () => {
      const table = goodput(run, policy);
      const curves = polarsCurves(run.requests.lazy(), run.manifest, policy, table);
      const plain = plainGoodput(run, columnsOf(run), policy);
      assert.deepEqual(strip(plain), strip(table), "plain table");
      assert.deepEqual(counts(plain.curves), counts(curves), "plain curves");
      const danfo = danfoGoodput(dfd, run, columnsOf(run), policy);
      assert.deepEqual(danfo.by_class, table.by_class.map(({ failures: _f, ...r }) => r), "danfo by class");
      assert.deepEqual(counts(danfo.curves), counts(curves), "danfo curves");
      // The log has every case the rules distinguish, so the agreement above covers them.
      const d = table.disclosure;
      const json = d.streaming.extract_json!;
      assert.ok(json.not_streamed > 0 && json.inferred_not_streamed > 0, JSON.stringify(json));
      assert.ok(d.streaming.short_qa!.streamed > 0 && d.streaming.short_qa!.assumed_streamed > 0);
      if (name === "minimal") assert.ok(d.gates_not_applicable.overall.auth_ok > 0);
      assert.ok(table.overall.accepted > 0 && table.overall.accepted < table.overall.offered);
    });
  }
});
