import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { ledger } from "../../analysis/ledger.ts";
import { loadRun } from "../../analysis/load_run.ts";
import { resolveWindow } from "../../analysis/policy.ts";
import { replicaTime } from "../../analysis/price_gpu.ts";
import { COLUMNS } from "../../schema/events.ts";
import type { SelfHostedPrice } from "../../schema/prices.ts";
import { addServer, hosted, LEDGER_POLICY, LEDGER_STAGES, sheetA, writeLedgerRun } from "./ledger_fixture.ts";

const close = (a: number | null, b: number, what: string) =>
  assert.ok(a !== null && Math.abs(a - b) < 1e-12, `${what}: ${a} ≠ ${b}`);

const window = resolveWindow(LEDGER_STAGES, LEDGER_POLICY.window);

Deno.test("replicaTime() pays idle and warming replicas for each row's real length", () => {
  const server = pl.DataFrame({
    t_ms: [9_000, 10_000, 11_000, 12_000, 15_000, 16_000, 12_000],
    route: ["self", "self", "self", "self", "self", "self", "other"],
    replicas: [5, 1, 1, 2, 2, 1, 9],
    replicas_warming: [0, 0, 1, 0, 0, 0, 0],
  });
  const t = replicaTime(server, window, (l) => l === "self");
  // Window [10000, 20000): rows 10000..16000. Gaps 1, 1, 1, 3 (a stall: one longer row), 1 s.
  // 1×1 + (1+1)×1 + 2×1 + 2×3 + 1×1 = 12 replica-seconds over 7 s; the 9000 row and route "other" are out.
  assert.deepEqual(t, { replica_seconds: 12, covered_seconds: 7, rows: 5 });
  // First row of a label: the median gap (1 s here) since nothing precedes it.
  const first = replicaTime(server.filter(pl.col("t_ms").gtEq(10_000)), window, (l) => l === "self");
  assert.equal(first.replica_seconds, 12);
});

const SELF: SelfHostedPrice = {
  kind: "self_hosted",
  gpu_type: "TEST-GPU",
  gpu_hour: 3.6,
  gpus_per_replica: 2,
  redundancy_replicas: 1,
  operations_per_hour: 7.2,
  fixed_replicas: null,
};

Deno.test("ledger() prices a self-hosted route from its own rows of the server timeline", async (t) => {
  assert.ok((COLUMNS.server as readonly string[]).includes("route"), "the server table has a route column");
  const dir = writeLedgerRun();
  const rows = [];
  for (let s = 9; s < 20; s++) {
    rows.push({ t_ms: s * 1000, route: "hosted", replicas: s === 9 ? 5 : 1, replicas_warming: s === 12 ? 1 : 0 });
    rows.push({ t_ms: s * 1000, route: "backup", replicas: 7, replicas_warming: 0 });
  }
  addServer(dir, rows);
  const run = await loadRun(dir, { onWarning: () => {} });
  const sheet = sheetA({
    routes: { hosted: SELF, backup: hosted(2, null, 8, { rejected: false, failed: false, cancelled: false }) },
  });
  const r = ledger(run, LEDGER_POLICY, sheet);

  await t.step("GPU time, redundancy and operations", () => {
    // Rows of route hosted at 10..19 s: 10 × 1 replica + 1 warming at 12 s = 11 replica-s (backup's 7 replicas
    // are not this route's; 9 s is before the window) × 2 GPUs = 22 GPU-s = 22/3600 h × 3.6 = 0.022.
    const gpu = r.lines.find((l) => /^GPU time/.test(l.detail))!;
    close(gpu.quantity, 22 / 3600, "GPU-hours");
    close(gpu.amount, 0.022, "GPU cost");
    // Redundancy: 1 spare × 2 GPUs × 10 s = 20/3600 h × 3.6 = 0.02; operations 7.2 $/h × 10 s = 0.02.
    close(r.lines.find((l) => /^redundancy/.test(l.detail))!.amount, 0.02, "redundancy");
    const ops = r.lines.find((l) => l.item === "allocated_operations" && l.route === "hosted")!;
    close(ops.amount, 0.02, "operations");
    // The self-hosted route has no token lines; h1's fallback on hosted backup is still 0.003.
    assert.ok(!r.lines.some((l) => l.route === "hosted" && l.unit === "Mtok"));
    close(r.overall.cost.retries, 0.003, "fallback");
    close(r.overall.cost.provider_or_gpu, 0.042, "GPU + redundancy");
  });

  await t.step("fixed costs are spread by tokens on the route", () => {
    // Tokens on hosted in the window: a1 1500 + a2 2400 + a3 800 + a4 900 + a5 600 + h1 700 = 6900; a4 (class other)
    // carries 900/6900 of 0.042 and of the 0.02 operations.
    const other = r.by_class.find((c) => c.class === "other")!;
    close(other.cost.provider_or_gpu, 0.042 * 900 / 6900, "other's GPU share");
    close(other.cost.allocated_operations, 0.02 * 900 / 6900, "other's operations share");
    // Served tokens: hosted attempts except the failed/429/cancelled ones: a1 1500, a2 retry 1400, a4 900 = 3800,
    // plus backup's served 900 = 4700; model bill 0.042 + 0.003 = 0.045.
    assert.equal(r.overall.naive.tokens, 4700);
    close(r.overall.naive.per_mtok, 0.045 / 4700 * 1e6, "naive per Mtok");
  });

  await t.step("a timeline shorter than the window is warned about", () => {
    assert.deepEqual(r.pricing.warnings, []);
    const short = ledger({ ...run, server: run.server!.filter(pl.col("t_ms").lt(15_000)) }, LEDGER_POLICY, sheet);
    assert.ok(
      short.pricing.warnings.some((w) => /covers 5\.0 s of the 10 s window/.test(w)),
      short.pricing.warnings.join(),
    );
  });

  await t.step("without a timeline: fixed_replicas, else an input error", () => {
    const bare = { ...run, server: null };
    assert.throws(() => ledger(bare, LEDGER_POLICY, sheet), /fixed_replicas/);
    const fixed = sheetA({ routes: { ...sheet.routes, hosted: { ...SELF, fixed_replicas: 3 } } });
    const f = ledger(bare, LEDGER_POLICY, fixed);
    // 3 replicas × 2 GPUs × 10 s = 60/3600 h × 3.6 = 0.06.
    close(f.lines.find((l) => /^GPU time: fixed_replicas/.test(l.detail))!.amount, 0.06, "fixed replicas");
    assert.ok(f.pricing.warnings.some((w) => /fixed_replicas = 3/.test(w)));
  });
});
