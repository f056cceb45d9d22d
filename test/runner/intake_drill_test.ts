import assert from "node:assert/strict";
import { join } from "node:path";
import { describeDrills } from "../../runner/intake_drill.ts";
import { runLoadTest } from "../../runner/run.ts";
import { PlanSpec, RunManifest } from "../../schema/mod.ts";
import { runCli } from "../support/run_cli.ts";
import { tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

/** A target that answers every chat call and records each hook call (its path, body and arrival). */
function startTarget() {
  const hooks: { path: string; body: string; atUnixMs: number }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const body = await req.text();
    if (path.startsWith("/hook")) {
      hooks.push({ path, body, atUnixMs: Date.now() });
      return path === "/hook/broken" ? new Response("nope", { status: 500 }) : Response.json({ ok: true });
    }
    return Response.json({
      id: "c",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: "tok0" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 },
    });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, hooks, close: () => server.shutdown() };
}

Deno.test("the runner calls each drill's hook on the run clock and records every call in run.json", async () => {
  const dir = Deno.makeTempDirSync();
  const target = startTarget();
  try {
    // 0.8 s of arrivals at 10 req/s. Drill a: stop at 0.2 s, resume at 0.5 s (URL hook). Drill b: stop at 0.6 s by a
    // command that fails with exit code 3, resume at 60 s — after the run has ended, so never called.
    const plan = writeJson(dir, "plan.json", {
      name: "drill",
      seed: 1,
      arrivals: { process: "constant", rate_rps: 10, duration_s: 0.8 },
      drills: [
        { kind: "intake_stop", name: "a", stop_at_s: 0.2, resume_at_s: 0.5, hook: { url: `${target.url}/hook/a` } },
        {
          kind: "intake_stop",
          name: "b",
          stop_at_s: 0.6,
          resume_at_s: 60,
          hook: { command: ["sh", "-c", 'echo "refused $1" >&2; exit 3', "hook"] },
        },
      ],
    });
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()], { qa: false }),
      plan,
      target: target.url,
      out: join(dir, "out"),
      formats: ["csv"],
      progress: false,
      serverTimeline: false,
    });
    const saved = RunManifest.parse(JSON.parse(Deno.readTextFileSync(join(runDir, "run.json"))));
    assert.deepEqual(saved.drills, manifest.drills);
    const [a, b] = manifest.drills!;
    assert.equal(a!.hook, `POST ${target.url}/hook/a`);
    assert.deepEqual(a!.calls.map((c) => [c.action, c.planned_ms, c.status, c.ok, c.error]), [
      ["stop", 200, 200, true, null],
      ["resume", 500, 200, true, null],
    ]);
    for (const c of a!.calls) {
      // On time (timers fire late, never early) and answered after the call.
      assert.ok(c.called_ms! >= c.planned_ms && c.called_ms! < c.planned_ms + 100, `${c.action} at ${c.called_ms}`);
      assert.ok(c.answered_ms! >= c.called_ms!);
    }
    assert.deepEqual(target.hooks.map((h) => JSON.parse(h.body)), [{ accept: false }, { accept: true }]);
    assert.equal(b!.hook, `command sh -c echo "refused $1" >&2; exit 3 hook <stop|resume>`);
    assert.deepEqual(b!.calls.map((c) => [c.action, c.status, c.ok, c.error]), [
      ["stop", 3, false, "exit code 3: refused stop"],
      ["resume", null, false, "not called: the run ended before its time"],
    ]);
    assert.equal(b!.calls[1]!.called_ms, null);
  } finally {
    await target.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a hook that answers an error status is recorded as a failed call, and the run goes on", async () => {
  const dir = Deno.makeTempDirSync();
  const target = startTarget();
  try {
    const plan = writeJson(dir, "plan.json", {
      name: "drill",
      arrivals: { process: "constant", rate_rps: 10, duration_s: 0.3 },
      drills: [{ kind: "intake_stop", stop_at_s: 0.1, hook: { url: `${target.url}/hook/broken` } }],
    });
    const { manifest, summary } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()], { qa: false }),
      plan,
      target: target.url,
      out: join(dir, "out"),
      formats: ["csv"],
      progress: false,
      serverTimeline: false,
    });
    assert.deepEqual(manifest.drills!.map((d) => [d.name, d.calls.map((c) => [c.action, c.status, c.ok, c.error])]), [
      ["intake-stop", [["stop", 500, false, "HTTP 500: nope"]]],
    ]);
    assert.equal(summary.byOutcome.get("ok"), 3);
  } finally {
    await target.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a plan's drills are validated: loopback http hooks, resume after stop, one drill after another", () => {
  const base = { name: "p", arrivals: { process: "constant", rate_rps: 1, duration_s: 10 } };
  const paths = (drills: unknown[]) => {
    const r = PlanSpec.safeParse({ ...base, drills });
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };
  const hook = { url: "http://127.0.0.1:8090/admin/intake" };
  assert.deepEqual(paths([{ kind: "intake_stop", stop_at_s: 1, resume_at_s: 2, hook }]), []);
  assert.deepEqual(paths([{ kind: "intake_stop", stop_at_s: 1, hook: { url: "http://10.0.0.5/admin" } }]), [
    "drills.0.hook.url: 10.0.0.5: the hook must be on loopback (127.x, localhost, ::1)",
  ]);
  assert.deepEqual(paths([{ kind: "intake_stop", stop_at_s: 3, resume_at_s: 2, hook }]), [
    "drills.0.resume_at_s: resume_at_s must be after stop_at_s",
  ]);
  assert.deepEqual(
    paths([
      { kind: "intake_stop", stop_at_s: 1, resume_at_s: 5, hook },
      { kind: "intake_stop", stop_at_s: 4, hook },
    ]),
    ["drills.1.stop_at_s: 4 s is before drill 0 resumes intake (5 s)"],
  );
  assert.deepEqual(
    paths([{ kind: "intake_stop", stop_at_s: 1, hook }, { kind: "intake_stop", stop_at_s: 4, hook }]),
    ["drills.1.stop_at_s: drill 0 never resumes intake: no drill can follow it"],
  );
  const parsed = PlanSpec.parse({ ...base, drills: [{ kind: "intake_stop", stop_at_s: 1, resume_at_s: 2.5, hook }] });
  assert.deepEqual(describeDrills(parsed.drills), [
    "drill intake-stop: stop intake at 1 s, resume at 2.5 s via POST http://127.0.0.1:8090/admin/intake (timeout 5000 ms)",
  ]);
});

Deno.test("deno task plan prints a plan's drills, and --json carries them", async () => {
  const root = new URL("../../", import.meta.url).pathname;
  const cli = join(root, "runner/cli/plan.ts");
  const text = await runCli(cli, ["--plan", "data/plans/intake-drill.json"], ["--allow-read"], { cwd: root });
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /^drill operator-stop: stop intake at 2 s, resume at 4 s via POST http:\/\/127\.0\.0\.1:8090\/admin\/intake \(timeout 2000 ms\)$/m,
  );
  const json = await runCli(cli, ["--plan", "data/plans/intake-drill.json", "--json"], ["--allow-read"], { cwd: root });
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(
    JSON.parse(json.stdout).drills.map((d: { name: string; stop_at_s: number }) => [d.name, d.stop_at_s]),
    [
      ["operator-stop", 2],
    ],
  );
});
