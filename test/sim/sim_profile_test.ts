import assert from "node:assert/strict";
import { InputError, loadSimProfile, SimProfile } from "../../schema/mod.ts";

async function withFile(value: unknown, fn: (path: string) => Promise<void>): Promise<void> {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(path, typeof value === "string" ? value : JSON.stringify(value));
    await fn(path);
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("loadSimProfile() names the file and every bad field", async (t) => {
  await t.step("a typo is an error, not ignored", async () => {
    await withFile({ name: "p", engine: { max_running_seq: 4 } }, async (path) => {
      const e = await loadSimProfile(path).then(() => null, (e) => e);
      assert.ok(e instanceof InputError);
      assert.match(e.message, new RegExp(`${path}: engine: Unrecognized key: "max_running_seq"`));
    });
  });
  await t.step("all problems are reported at once", async () => {
    const bad = {
      name: "p",
      replicas: { initial: 3, max: 2 },
      queue: { max_len: -1 },
      faults: { error_rate: 1.5 },
      behaviour: { classes: { short_qa: { accuracy: 2 } } },
    };
    await withFile(bad, async (path) => {
      const e = await loadSimProfile(path).then(() => null, (e) => e) as InputError;
      const fields = e.problems.map((p) => p.split(": ")[1]);
      assert.deepEqual(fields.sort(), [
        "behaviour.classes.short_qa.accuracy",
        "faults.error_rate",
        "queue.max_len",
        "replicas.max",
      ]);
      for (const p of e.problems) assert.ok(p.startsWith(`${path}: `), p);
    });
  });
  await t.step("an outage that ends before it starts, or overlaps another, is refused", () => {
    const r = SimProfile.safeParse({
      name: "p",
      faults: {
        outages: [{ start_ms: 0, end_ms: 1000, mode: "503" }, { start_ms: 500, end_ms: 2000, mode: "refuse" }],
      },
    });
    assert.ok(!r.success);
    assert.deepEqual(r.error.issues.map((i) => i.path.join(".")), ["faults.outages.1.start_ms"]);
    const r2 = SimProfile.safeParse({ name: "p", faults: { outages: [{ start_ms: 10, end_ms: 5, mode: "503" }] } });
    assert.ok(!r2.success);
    assert.deepEqual(r2.error.issues.map((i) => i.path.join(".")), ["faults.outages.0.end_ms"]);
  });
  await t.step("a stall that ends before it starts, or overlaps another, is refused", () => {
    const r = SimProfile.safeParse({
      name: "p",
      faults: { stalls: [{ start_ms: 9000, end_ms: 13000 }, { start_ms: 12000, end_ms: 12500 }] },
    });
    assert.ok(!r.success);
    assert.deepEqual(r.error.issues.map((i) => i.path.join(".")), ["faults.stalls.1.start_ms"]);
    assert.match(r.error.issues[0]!.message, /overlaps stall 0 \(9000–13000 ms\)/);
    const r2 = SimProfile.safeParse({ name: "p", faults: { stalls: [{ start_ms: 10, end_ms: 10 }] } });
    assert.ok(!r2.success);
    assert.deepEqual(r2.error.issues.map((i) => i.path.join(".")), ["faults.stalls.0.end_ms"]);
    const ok = SimProfile.parse({ name: "p", faults: { stalls: [{ start_ms: 9000, end_ms: 13000 }] } });
    assert.deepEqual(ok.faults.stalls, [{ start_ms: 9000, end_ms: 13000 }]);
    assert.deepEqual(SimProfile.parse({ name: "p" }).faults.stalls, []);
  });
  await t.step("autoscaler thresholds must be ordered", () => {
    const r = SimProfile.safeParse({ name: "p", autoscaler: { scale_up_threshold: 1, scale_down_threshold: 2 } });
    assert.ok(!r.success);
    assert.equal(r.error.issues[0]!.path.join("."), "autoscaler.scale_down_threshold");
  });
  await t.step("a file that is not JSON names the file", async () => {
    await withFile("{ nope", async (path) => {
      await assert.rejects(loadSimProfile(path), (e) => e instanceof InputError && e.message.startsWith(path));
    });
  });
});

Deno.test("SimProfile fills nested defaults from a minimal file", () => {
  const p = SimProfile.parse({ name: "p", engine: { max_running_seqs: 4 } });
  assert.equal(p.engine.max_running_seqs, 4);
  assert.equal(p.engine.decode_step_ms_base, 15);
  assert.equal(p.behaviour.default.accuracy, 0.95);
  assert.equal(p.behaviour.degraded.enabled, false);
  assert.deepEqual(p.replicas, { initial: 1, min: 1, max: 1 });
  assert.equal(p.timeline_ms, 1000);
});

Deno.test("every profile in data/sim loads", async () => {
  const names = [...Deno.readDirSync("data/sim")].map((e) => e.name).filter((n) => n.endsWith(".json")).sort();
  for (const want of ["autoscale.json", "default.json", "fast.json", "hosted.json", "selfhosted.json"]) {
    assert.ok(names.includes(want), want);
  }
  for (const n of names) {
    const p = await loadSimProfile(`data/sim/${n}`);
    assert.equal(`${p.name}.json`, n);
  }
});
