import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../../support/run_cli.ts";
import {
  GPU_POLICY,
  LEDGER_POLICY,
  overheadsA,
  selfSheet,
  sheetA,
  writeGpuRun,
  writeLedgerRun,
} from "../cost/ledger_fixture.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(ROOT, "analysis/cli/ledger.ts");

Deno.test("ledger CLI prints and emits the hand-worked ledger; bad input exits 2 naming file and field", async (t) => {
  const dir = writeLedgerRun();
  const tmp = Deno.makeTempDirSync();
  const file = (name: string, v: unknown) => {
    Deno.writeTextFileSync(join(tmp, name), JSON.stringify(v));
    return join(tmp, name);
  };
  const slo = file("slo.json", LEDGER_POLICY);
  const prices = file("prices.json", sheetA());
  const overheads = file("overheads.json", overheadsA());

  await t.step("text: dates, lines, cost per accepted task beside the naive figures", async () => {
    const r = await runCli(CLI, [dir, "--prices", prices, "--overheads", overheads, "--slo", slo]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /price sheet: sheet-a, as of 2026-01-02/);
    assert.match(r.stdout, /overheads: overheads-a, as of 2026-01-03/);
    // 0.3489 / 3 accepted = 0.1163; naive 0.0129 / 6 sent = 0.00215; 0.1163 / 0.00215 = 54.09.
    assert.match(r.stdout, /cost per accepted task +0\.1163\n/);
    assert.match(r.stdout, /naive: model bill \/ sent requests +0\.00215 +\(cost per accepted task is 54\.09 × this\)/);
    assert.match(r.stdout, /rejected attempts, not charged/);
  });

  await t.step("--json carries the disclosure, the sheets and every line", async () => {
    const r = await runCli(CLI, [dir, "--prices", prices, "--slo", slo, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.pricing.price_sheet.as_of, "2026-01-02");
    assert.equal(j.pricing.overheads, null);
    assert.equal(j.disclosure.denominator, "offered");
    assert.ok(Math.abs(j.overall.total - 0.0129) < 1e-12);
    assert.equal(j.files.prices, prices);
  });

  await t.step("text: a self-hosted route's paid time, its idle line, and a bad gpu_time named", async () => {
    const gpu = writeGpuRun();
    const self = file("self.json", selfSheet());
    const slo2 = file("slo2.json", GPU_POLICY);
    const r = await runCli(CLI, [gpu, "--prices", self, "--slo", slo2]);
    assert.equal(r.code, 0, r.stderr);
    // The hand-worked figures of ledger_selfhosted_test.ts.
    assert.match(
      r.stdout,
      /GPU time of hosted \(gpu_time run, from the server timeline\): run 0–26000 ms \(end: run\.json result\.ended_ms\); window 10 s of 10 measured s; outside every measured stage 16 s \(warm \(warmup\), drain \(drain\), after the last stage\), share 1 charged here; replica-seconds in the window busy 7, idle 13, warming 2; outside busy 2, idle 16, warming 4/,
    );
    assert.match(r.stdout, /GPU time in the window, idle \(max\(replicas − running, 0\)[^\n]* 0\.026 /);
    const bad = file("badgpu.json", selfSheet({ gpu_time: "always" as never }));
    const e = await runCli(CLI, [gpu, "--prices", bad, "--slo", slo2]);
    assert.equal(e.code, 2);
    assert.match(e.stderr, new RegExp(`${bad}: routes\\.hosted\\.gpu_time: `));
  });

  await t.step("input errors", async () => {
    const none = await runCli(CLI, [dir, "--slo", slo]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--prices FILE is required/);
    const badRoute = { ...sheetA().routes.hosted!, input_per_mtok: -1, service_tier: "turbo" };
    const bad = file("bad.json", { ...sheetA(), routes: { hosted: badRoute } });
    const r = await runCli(CLI, [dir, "--prices", bad, "--slo", slo]);
    assert.equal(r.code, 2);
    // Every problem at once, each naming the file and the field.
    assert.match(r.stderr, new RegExp(`${bad}: routes\\.hosted\\.input_per_mtok: `));
    assert.match(r.stderr, new RegExp(`${bad}: routes\\.hosted\\.service_tier: "turbo" is not priced`));
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/);
  });
});
