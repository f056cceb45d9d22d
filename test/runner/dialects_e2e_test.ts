/**
 * Every dialect end to end, on loopback (issue 30 §6): the runner CLI, with the `run` task's own permission flags,
 * runs the design-v1 workload (plain answers, JSON schema, tool rounds) through each `data/routes/dialect-*.json`
 * against one simulator that speaks them all; each run's log is complete and read the same way; no key or secret
 * reaches any file, line or report; `compare` of four dialects' runs works; and a hybrid whose fallback is another
 * dialect pays both providers' attempts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AttemptRow, RequestRow } from "../../schema/mod.ts";
import { loadSimProfile, type SimProfile } from "../../schema/sim_profile.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { type SimHandle, startSim } from "../../sim/mod.ts";
import { constantPlan } from "../../testing/tiny_workload.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DESIGN_V1 = join(ROOT, "data/workloads/design-v1");
const PRICES = join(ROOT, "data/prices/dialects-sim.json");

/** Each dialect's route file, and the secrets its run is given (each must appear nowhere in what the run writes). */
const DIALECTS: { route: string; env: Record<string, string> }[] = [
  { route: "openai-chat", env: { OPENAI_API_KEY: "sk-e2e-chat-7f3a9c1d" } },
  { route: "openai-responses", env: { OPENAI_API_KEY: "sk-e2e-responses-2b8e4f6a" } },
  { route: "azure-openai", env: { AZURE_OPENAI_API_KEY: "az-e2e-key-5c7d9e1f" } },
  { route: "anthropic-messages", env: { ANTHROPIC_API_KEY: "sk-ant-e2e-3d5f7a9b" } },
  { route: "gemini", env: { GEMINI_API_KEY: "AIza-e2e-gemini-8a6c4e2d" } },
  {
    route: "bedrock-converse",
    env: {
      AWS_ACCESS_KEY_ID: "AKIAE2ETESTKEY123456",
      AWS_SECRET_ACCESS_KEY: "e2e/secret/Bedrock+Key/9f8e7d6c5b4a",
      AWS_SESSION_TOKEN: "e2e-session-token-1a2b3c4d",
    },
  },
];

/** The `run` task's permission and V8 flags, as deno.json states them. */
function runTaskFlags(): string[] {
  const task = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).tasks.run as string;
  return task.split(/\s+/).filter((w) => w.startsWith("--allow-") || w.startsWith("--v8-flags="));
}

/** The flags of the analysis task `name`, as deno.json states them. */
function taskFlags(name: string): string[] {
  const task = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).tasks[name] as string;
  return task.split(/\s+/).filter((w) => w.startsWith("--allow-"));
}

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

async function deno(script: string, flags: string[], args: string[], env: Record<string, string> = {}): Promise<Out> {
  const base = Deno.env.toObject();
  for (const n of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]) delete base[n];
  const res = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, join(ROOT, script), ...args],
    cwd: ROOT,
    env: { ...base, ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const dec = new TextDecoder();
  return { code: res.code, stdout: dec.decode(res.stdout), stderr: dec.decode(res.stderr) };
}

/** Every file under `dir` (recursively). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) out.push(...filesUnder(p));
    else if (e.isFile) out.push(p);
  }
  return out;
}

/** Asserts that no secret appears in any file under `dir` nor in `texts`. */
function assertNoSecret(secrets: readonly string[], dir: string, texts: Record<string, string>): void {
  for (const s of secrets) {
    for (const f of filesUnder(dir)) {
      const text = new TextDecoder().decode(Deno.readFileSync(f));
      assert.ok(!text.includes(s), `${f} contains a secret (${s.slice(0, 6)}…)`);
    }
    for (const [name, text] of Object.entries(texts)) assert.ok(!text.includes(s), `${name} contains a secret`);
  }
}

async function startOn(profile: SimProfile, seed: number): Promise<SimHandle> {
  const { workload } = await loadWorkload(DESIGN_V1);
  return await startSim({ port: 0, profile, workload, seed, quiet: true });
}

Deno.test({
  name:
    "every dialect end to end against the simulator: complete logs, keys nowhere, compare and a cross-dialect hybrid",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = Deno.makeTempDirSync();
    const out = join(dir, "out");
    // 6 req/s for 4 s: 24 requests over design-v1's classes (plain, JSON schema, tool rounds, RAG).
    const plan = constantPlan(dir, 6, 4);
    const fast = await loadSimProfile(join(ROOT, "data/sim/fast.json"));
    const sim = await startOn(fast, 7);
    const runs: Record<string, { dir: string; requests: RequestRow[]; attempts: AttemptRow[] }> = {};
    try {
      for (const d of DIALECTS) {
        await t.step(`${d.route}: a complete log, read like any other, no secret anywhere`, async () => {
          await fetch(`${sim.url}/sim/reset`, { method: "POST", body: JSON.stringify({ seed: 7 }) }).then((r) =>
            r.body?.cancel()
          );
          const runId = `e2e-${d.route}`;
          const r = await deno("runner/cli/run.ts", runTaskFlags(), [
            "--workload",
            DESIGN_V1,
            "--plan",
            plan,
            "--routes",
            join(ROOT, `data/routes/dialect-${d.route}.json`),
            "--route-url",
            `${d.route}=${sim.url}`,
            "--conditions",
            join(ROOT, "data/conditions/sim-demo.json"),
            "--out",
            out,
            "--run-id",
            runId,
            "--no-progress",
          ], { ...d.env, AWS_REGION: "us-east-1" });
          assert.equal(r.code, 0, r.stderr);
          const runDir = join(out, runId);
          const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
          const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
          runs[d.route] = { dir: runDir, requests, attempts };
          const manifest = JSON.parse(Deno.readTextFileSync(join(runDir, "run.json")));
          assert.equal(manifest.targets[0].dialect, d.route);
          assert.equal(requests.length, 24);
          // The simulator answers every dialect alike: every request answered and read.
          const outcomes = Object.groupBy(requests, (x) => x.outcome);
          assert.deepEqual(Object.keys(outcomes), ["ok"], JSON.stringify(requests.filter((x) => x.outcome !== "ok")));
          for (const a of attempts) {
            assert.equal(a.route, d.route);
            assert.equal(a.http_status, 200, `${a.request_id}: ${a.error_kind}`);
            assert.ok(a.input_tokens > 0 && a.output_tokens > 0, `${a.request_id}: tokens read from usage`);
            assert.equal(a.token_source, "usage");
            if (a.streamed) assert.ok(a.first_token_ms !== null && a.first_token_ms <= a.last_token_ms!);
          }
          // Tool rounds continue in the dialect: a tool_agent request that called its tool ran a second round.
          const tools = requests.filter((x) => x.class === "tool_agent" && x.tool_calls > 0);
          assert.ok(tools.length > 0, "some tool_agent request called a tool");
          for (const x of tools) assert.equal(x.rounds, x.tool_calls + 1, x.request_id);
          // The JSON-schema class was judged on its answer, as on the OpenAI route.
          assert.ok(requests.some((x) => x.class === "extract_json" && x.schema_ok === true));
          assertNoSecret(Object.values(d.env), runDir, { stdout: r.stdout, stderr: r.stderr });
        });
      }

      await t.step("compare of four dialects' runs, and a report with no secret", async () => {
        const four = ["openai-chat", "anthropic-messages", "gemini", "bedrock-converse"].map((n) => runs[n]!.dir);
        const c = await deno("analysis/cli/compare.ts", taskFlags("compare"), [...four, "--prices", PRICES]);
        assert.equal(c.code, 0, c.stderr);
        for (const n of ["openai-chat", "anthropic-messages", "gemini", "bedrock-converse"]) {
          assert.ok(c.stdout.includes(n), `compare names ${n}`);
        }
        const html = join(dir, "report.html");
        const rep = await deno("analysis/cli/report.ts", taskFlags("report"), [
          runs["bedrock-converse"]!.dir,
          "--prices",
          PRICES,
          "--out",
          html,
        ]);
        assert.equal(rep.code, 0, rep.stderr);
        const secrets = DIALECTS.flatMap((d) => Object.values(d.env));
        assertNoSecret(secrets, dir, { compare: c.stdout + c.stderr, report: rep.stdout + rep.stderr });
      });
    } finally {
      await sim.stop();
    }

    await t.step(
      "the provider's stated limits and the tier asked for and served reach the log and analyze",
      async () => {
        // A quota of 100 req/s held over a minute (never reached here): every answer states it; a priority tier asked.
        const quota: SimProfile = {
          ...fast,
          rate_limits: { requests_per_minute: 6000, tokens_per_minute: 90_000_000, window_s: 60 },
        };
        for (
          const [dialect, options] of [["openai-chat", ["service_tier=priority"]], ["anthropic-messages", []]] as const
        ) {
          const sim2 = await startOn(quota, 5);
          try {
            const runId = `e2e-limits-${dialect}`;
            const r = await deno("runner/cli/run.ts", runTaskFlags(), [
              "--workload",
              DESIGN_V1,
              "--plan",
              plan,
              "--target",
              sim2.url,
              "--dialect",
              dialect,
              ...options.flatMap((o) => ["--dialect-option", o]),
              "--conditions",
              join(ROOT, "data/conditions/sim-demo.json"),
              "--out",
              out,
              "--run-id",
              runId,
              "--no-progress",
            ]);
            assert.equal(r.code, 0, r.stderr);
            const runDir = join(out, runId);
            const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
            for (const a of attempts) {
              assert.equal(a.rl_limit_requests, 6000, `${dialect} ${a.request_id}`);
              assert.ok(a.rl_remaining_requests !== null && a.rl_remaining_requests < 6000);
              assert.equal(a.service_tier_requested, dialect === "openai-chat" ? "priority" : null);
              assert.equal(a.service_tier, dialect === "openai-chat" ? "priority" : null);
            }
            const an = await deno("analysis/cli/analyze.ts", taskFlags("analyze"), [runDir, "--json"]);
            assert.equal(an.code, 0, an.stderr);
            const quotaOut = JSON.parse(an.stdout).provider_quota;
            assert.equal(quotaOut.recorded, true);
            assert.ok(quotaOut.stages[0].least_requests.fraction > 0.9, "far from the stated quota");
          } finally {
            await sim2.stop();
          }
        }
      },
    );

    await t.step("a hybrid whose fallback is another dialect pays both providers' attempts", async () => {
      // The self-hosted side holds a quota of 3 req/s (HTTP 429 past it): at 6 req/s about half fall back to Anthropic.
      const failing: SimProfile = {
        ...fast,
        rate_limits: { requests_per_minute: 180, tokens_per_minute: null, window_s: 1 },
      };
      const self = await startOn(failing, 11);
      const anthropic = await startOn(fast, 12);
      try {
        const runId = "e2e-hybrid";
        const r = await deno("runner/cli/run.ts", runTaskFlags(), [
          "--workload",
          DESIGN_V1,
          "--plan",
          plan,
          "--routes",
          join(ROOT, "data/routes/hybrid-dialects.json"),
          "--route-url",
          `selfhosted=${self.url}`,
          "--route-url",
          `anthropic-messages=${anthropic.url}`,
          "--conditions",
          join(ROOT, "data/conditions/sim-demo.json"),
          "--out",
          out,
          "--run-id",
          runId,
          "--no-progress",
        ], { ANTHROPIC_API_KEY: "sk-ant-hybrid-6e4c2a0b" });
        assert.equal(r.code, 0, r.stderr);
        const runDir = join(out, runId);
        const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
        const fellBack = attempts.filter((a) => a.retry_reason?.startsWith("fallback:"));
        assert.ok(fellBack.length > 0, "some self-hosted attempts failed and fell back");
        assert.ok(fellBack.every((a) => a.route === "selfhosted" && a.http_status === 429));
        const onAnthropic = attempts.filter((a) => a.route === "anthropic-messages");
        assert.ok(onAnthropic.length >= fellBack.length);
        assert.ok(onAnthropic.every((a) => a.http_status === 200 && a.output_tokens > 0));
        const l = await deno("analysis/cli/ledger.ts", taskFlags("ledger"), [runDir, "--prices", PRICES, "--json"]);
        assert.equal(l.code, 0, l.stderr);
        const ledger = JSON.parse(l.stdout) as { by_route: { route: string; total: number }[] };
        const cost = Object.fromEntries(ledger.by_route.map((x) => [x.route, x.total]));
        assert.ok(cost["selfhosted"]! > 0, "the self-hosted GPU time is charged");
        assert.ok(cost["anthropic-messages"]! > 0, "the Anthropic attempts are charged");
        assertNoSecret(["sk-ant-hybrid-6e4c2a0b"], runDir, { stdout: r.stdout, stderr: r.stderr });
      } finally {
        await self.stop();
        await anthropic.stop();
      }
    });
    Deno.removeSync(dir, { recursive: true });
  },
});
