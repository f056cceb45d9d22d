import assert from "node:assert/strict";
import { join } from "node:path";
import type { RoutesFile } from "../../schema/mod.ts";
import { SimProfile } from "../../schema/mod.ts";
import { Router } from "../../runner/router.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { startSim } from "../../sim/mod.ts";
import { type FaultMode, type FaultServer, startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";
import { promptSha256 } from "../../schema/workload_file.ts";

type RoutesInput = Omit<RoutesFile, "description" | "routes"> & { routes: Record<string, unknown> };

const route = (url: string, provider: string, model: string) => ({ url, provider, model });

/** Runs `rate` rps for `seconds` over the routes file and reads the three logs back. */
async function runRoutes(routes: RoutesInput, opts: { rate?: number; seconds?: number; twoClasses?: boolean } = {}) {
  const dir = Deno.makeTempDirSync();
  try {
    const chatMessages = [{ role: "user" as const, content: "Chat tok0 now" }];
    const cases = opts.twoClasses
      ? [
        tinyCase(),
        tinyCase({
          case_id: "chat-001",
          class: "chat",
          messages: chatMessages,
          prompt_sha256: promptSha256(chatMessages),
        }),
      ]
      : [tinyCase()];
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, cases),
      plan: constantPlan(dir, opts.rate ?? 10, opts.seconds ?? 0.3),
      routes: writeJson(dir, "routes.json", routes),
      out: join(dir, "out"),
      formats: ["csv"],
      retryFile: writeJson(dir, "retry.json", { max_attempts: 2, base_ms: 5, cap_ms: 20, budget_min: 100 }),
      timeoutsFile: writeJson(dir, "timeouts.json", { attempt_ms: 1000, request_ms: 3000, idle_ms: 500 }),
      progress: false,
      serverTimeline: false,
    });
    return {
      manifest,
      requests: await readLogCsv(join(runDir, "requests.csv"), "requests"),
      attempts: await readLogCsv(join(runDir, "attempts.csv"), "attempts"),
    };
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

async function withServers<T>(
  modes: [FaultMode | undefined, FaultMode | undefined],
  f: (a: FaultServer, b: FaultServer) => Promise<T>,
) {
  const a = await startFaultServer({ tokens: 4, pick: () => modes[0] });
  const b = await startFaultServer({ tokens: 6, pick: () => modes[1] });
  try {
    return await f(a, b);
  } finally {
    await a.close();
    await b.close();
  }
}

const modelOf = (body: string) => JSON.parse(body).model as string;

Deno.test("a hybrid request that got 429 on the primary and succeeded on the fallback records both attempts with their own route, provider, model and tokens", async () => {
  await withServers(["429", undefined], async (primary, fallback) => {
    const { requests, attempts, manifest } = await runRoutes({
      name: "hybrid-test",
      routes: {
        own: route(primary.url, "own-gpu", "own-model"),
        cloud: route(fallback.url, "cloud-api", "cloud-model"),
      },
      policy: { kind: "fallback", primary: "own", fallbacks: ["cloud"], on: ["429"] },
    });
    assert.equal(requests.length, 3);
    for (const r of requests) {
      assert.equal(r.outcome, "ok", `${r.request_id}: ${r.error_kind}`);
      assert.equal(r.route, "cloud", "the request's route is the one that produced its outcome");
      assert.equal(r.attempts, 2);
      assert.equal(r.output_tokens, 6, "tokens of the answered attempt only");
      const mine = attempts.filter((a) => a.request_id === r.request_id).sort((x, y) => x.attempt - y.attempt);
      assert.equal(mine.length, 2);
      const [first, second] = mine as [typeof mine[0], typeof mine[0]];
      assert.deepEqual([first.route, first.provider, first.model], ["own", "own-gpu", "own-model"]);
      assert.equal(first.http_status, 429);
      assert.equal(first.retry_reason, "fallback:429");
      assert.equal(first.backoff_ms, 0, "the primary's Retry-After does not delay the fallback");
      assert.equal(first.output_tokens, 0);
      assert.deepEqual([second.route, second.provider, second.model], ["cloud", "cloud-api", "cloud-model"]);
      assert.equal(second.http_status, 200);
      assert.equal(second.output_tokens, 6);
      assert.equal(second.token_source, "usage");
      assert.ok(second.input_tokens > 0);
    }
    assert.equal(primary.requests.length, 3);
    assert.equal(fallback.requests.length, 3);
    assert.ok(primary.requests.every((q) => modelOf(q.body) === "own-model"));
    assert.ok(fallback.requests.every((q) => modelOf(q.body) === "cloud-model"), "the fallback body names its model");
    assert.deepEqual(manifest.targets.map((t) => [t.route, t.provider, t.model]), [
      ["own", "own-gpu", "own-model"],
      ["cloud", "cloud-api", "cloud-model"],
    ]);
    assert.equal(manifest.routing?.policy.kind, "fallback");
    assert.equal(manifest.result.retries, 3, "each fallback is a retry under the budget");
  });
});

Deno.test("a failure that is not a fallback trigger is retried on the same route", async () => {
  await withServers(["500", undefined], async (primary, fallback) => {
    const { requests, attempts } = await runRoutes({
      name: "only-429",
      routes: { own: route(primary.url, "p", "m1"), cloud: route(fallback.url, "q", "m2") },
      policy: { kind: "fallback", primary: "own", fallbacks: ["cloud"], on: ["429"] },
    });
    assert.ok(requests.every((r) => r.outcome === "http_error" && r.route === "own"));
    assert.ok(attempts.every((a) => a.route === "own" && a.http_status === 500));
    assert.equal(attempts.filter((a) => a.retry_reason === "http_500").length, 3, "each first attempt retried");
    assert.equal(attempts.filter((a) => a.retry_reason === null).length, 3);
    assert.equal(fallback.requests.length, 0);
  });
});

Deno.test("split by class sends each class to its route", async () => {
  await withServers([undefined, undefined], async (a, b) => {
    const { requests, attempts } = await runRoutes({
      name: "by-class",
      routes: { a: route(a.url, "pa", "ma"), b: route(b.url, "pb", "mb") },
      policy: { kind: "split_by_class", classes: { chat: "a" }, default: "b" },
    }, { rate: 20, seconds: 0.5, twoClasses: true });
    const classes = new Set(requests.map((r) => r.class));
    assert.deepEqual([...classes].sort(), ["chat", "qa"], "the plan drew both classes");
    for (const r of requests) assert.equal(r.route, r.class === "chat" ? "a" : "b");
    const classOf = new Map(requests.map((r) => [r.request_id, r.class]));
    for (const at of attempts) assert.equal(at.model, classOf.get(at.request_id) === "chat" ? "ma" : "mb");
    assert.equal(a.requests.length, requests.filter((r) => r.class === "chat").length);
    assert.equal(b.requests.length, requests.filter((r) => r.class === "qa").length);
  });
});

Deno.test("split by percent routes each request by its id, the same way every run", async () => {
  await withServers([undefined, undefined], async (a, b) => {
    const file: RoutesInput = {
      name: "percent",
      routes: { a: route(a.url, "pa", "ma"), b: route(b.url, "pb", "mb") },
      policy: { kind: "split_by_percent", weights: { a: 1, b: 1 }, seed: 3 },
    };
    const first = await runRoutes(file, { rate: 20, seconds: 1 });
    const second = await runRoutes(file, { rate: 20, seconds: 1 });
    const expected = new Router(
      { kind: "split_by_percent", weights: { a: 1, b: 1 }, seed: 3 },
      new Map([["a", "a"], ["b", "b"]]),
    );
    for (const r of first.requests) assert.equal(r.route, expected.chain(r.request_id, r.class)[0]);
    assert.deepEqual(first.requests.map((r) => r.route), second.requests.map((r) => r.route));
    const used = new Set(first.requests.map((r) => r.route));
    assert.deepEqual([...used].sort(), ["a", "b"], "20 requests at 50/50 use both routes");
    assert.equal(a.requests.length, 2 * first.requests.filter((r) => r.route === "a").length);
  });
});

Deno.test("the server table holds every route's timeline, tagged with its route", async () => {
  const profile = SimProfile.parse({ name: "t", timeline_ms: 100, engine: { decode_step_ms_base: 2 } });
  const one = await startSim({ profile, quiet: true });
  const two = await startSim({ profile, quiet: true });
  const dir = Deno.makeTempDirSync();
  try {
    const { dir: runDir } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()]),
      plan: constantPlan(dir, 10, 0.5),
      routes: writeJson(dir, "routes.json", {
        name: "two-sims",
        routes: { first: route("http://127.0.0.1:9", "p1", "m1"), second: route(two.url, "p2", "m2") },
        policy: { kind: "split_by_percent", weights: { first: 1, second: 1 } },
      }),
      routeUrls: { first: one.url },
      out: join(dir, "out"),
      formats: ["csv"],
      progress: false,
    });
    const server = await readLogCsv(join(runDir, "server.csv"), "server");
    const routes = new Set(server.map((s) => s.route));
    assert.deepEqual([...routes].sort(), ["first", "second"]);
    const admitted = (r: string) => server.filter((s) => s.route === r).reduce((n, s) => n + s.admitted, 0);
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    for (const r of ["first", "second"]) {
      assert.ok(admitted(r) <= requests.filter((q) => q.route === r).length, `${r}: admitted within its requests`);
    }
    assert.ok(admitted("first") + admitted("second") > 0);
  } finally {
    await one.stop();
    await two.stop();
    Deno.removeSync(dir, { recursive: true });
  }
});
