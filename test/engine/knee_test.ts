/**
 * The knee on a real engine: `data/plans/engine-sweep.json` swept over llama-server serving the tiny generated model
 * (2 slots sharing a 4,096-token KV cache, niced; the engine-validation short chats with their output cap raised to 512
 * tokens so that no answer is cut, with `--cache-bust`) finds a knee, and the knee lies within 20 % of the engine's
 * capacity measured apart from the runner. Why these settings: the constants below and docs/engine.md.
 *
 * - **Capacity** (engine/capacity.ts `closedLoopCapacity`): closed loop with as many requests in flight as the server
 *   has slots, the same requests the run sends (the short chats, streamed, each with its own cache-busting prefix);
 *   answers that ended in a 30 s window after a 10 s warm-up ÷ 30 s. Measured once right before the sweep and once
 *   right after it: the cores are shared, so the engine's capacity is what it was while the sweep ran, known only to
 *   lie between the two measurements when it drifted; "below 0.7 × capacity" takes their mean.
 * - **Knee**: `knee()` (analysis/knee) of the run under `data/slo/engine-validation.json`, the three lowest levels
 *   pooled into the baseline (`--baseline-levels 3`), every other option its default: the lower of the first persistent
 *   departure of any signal from that baseline and the Kneedle knee of accepted goodput; the level's measured offered
 *   rate.
 * - **Compared**: the knee within 20 % of the capacity: `capacityError` is 0 inside [min, max] of the two measurements,
 *   else the distance to the nearer end ÷ that end; ≤ 0.2. The sweep must reach into that range (its last level above
 *   the lower measurement), and a last level inside it must show the engine saturated (goodput under 0.9 × offered).
 *
 * Also checked on the same run: every request's outcome, token counts (the prompt's from the engine's own tokenizer,
 * `POST /tokenize` of the chat template applied to the sent messages, equal to the usage's; the answers' re-tokenized
 * text against the usage), the server timeline from the engine's `/metrics` and `/slots`, and the report renders.
 * Serial (scripts/test.ts); skipped outside CI when no engine build is cached (test/engine/_build.ts). Figures:
 * docs/engine.md, "The knee on the engine".
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadSloPolicy } from "../../analysis/goodput/policy.ts";
import { knee, type KneeResult } from "../../analysis/knee/knee.ts";
import { loadRun } from "../../analysis/run/load_run.ts";
import { capacityError, type CapacityResult, closedLoopCapacity } from "../../engine/capacity.ts";
import { defaultThreads, startEngine, stopEngine } from "../../engine/engine.ts";
import { REPO_ROOT } from "../../engine/paths.ts";
import { cacheBustPrefix, prefixFirstUser } from "../../runner/cache_bust.ts";
import { chatBody, type WireMessage } from "../../runner/dialects/openai_chat.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import type { WorkloadCase } from "../../schema/workload.ts";
import { engineBuildForTests } from "./_build.ts";

const build = await engineBuildForTests();

/**
 * Two slots: a saturated engine then runs two sequences, as the closed loop does, near the engine's best operating
 * point. With four, the closed loop at four measured 2.60–2.70 answers/s while the sweep's 3.25 req/s level was served
 * whole with 2.1 sequences running on average and no queue (docs/engine.md): llama-server's per-token cost rises with
 * the sequences in flight (`--kv-unified`), so a closed loop at every slot measures a slower state than the one the
 * open loop saturates from, and the knee sat above the capacity.
 */
const SLOTS = 2;
/**
 * The KV cache shared by the slots, tokens: a sequence here holds at most about 900 (a prompt of up to 380 and an
 * answer of up to 512). Measured back to back on one server, 30 s closed-loop windows at two in flight: with 16,384
 * tokens 2.03–3.20 answers/s over ten windows (the same requests, load ≈ 1), with 4,096 2.30–2.67 — the engine's speed
 * moved with the state of a large cache, and the knee's reference with it.
 */
const CTX = 4096;
/**
 * The short chats' output cap in the test's copy of the workload. At the workload's 160 tokens a fifth of the answers
 * are cut (not valid), so below saturation a level's acceptance is a binomial draw (0.65–0.90 over one run's levels)
 * and Kneedle read that noise as a bend. Measured uncapped (160 answers of the short chats): every one ended by itself,
 * the longest at 401 tokens; at 512, 9 of 2,170 answers over three runs of this test were cut (0.4 %), and below the
 * knee goodput equals the offered rate.
 */
const CHAT_CAP = 512;
const PLAN = join(REPO_ROOT, "data/plans/engine-sweep.json");
const WORKLOAD = join(REPO_ROOT, "data/workloads/engine-validation");
const SLO = join(REPO_ROOT, "data/slo/engine-validation.json");
const TOLERANCE = 0.2;
const CAPACITY_WINDOW = { warmupS: 10, seconds: 30 };
/**
 * The three lowest levels (1, 1.25 and 1.5 req/s: 0.4–0.7 of the capacities measured here) pooled into the baseline,
 * 75 requests. With a sixth of the answers cut at the output cap (not valid), one level's acceptance swings by ±8
 * points, and a lucky baseline makes the next levels "depart": two levels pooled (68 requests of 30 s levels, 64 valid
 * where 56 were expected) gave a departure at 1.5 req/s against a capacity of 2.1; three gave 2.27 (docs/engine.md).
 */
const BASELINE_LEVELS = 3;

/** The engine-validation workload with the short chats' output cap at {@linkcode CHAT_CAP}, written into `dir`. */
async function workloadWithChatCap(dir: string): Promise<string> {
  const out = join(dir, "workload");
  await Deno.mkdir(out);
  const spec = JSON.parse(await Deno.readTextFile(join(WORKLOAD, "workload.json"))) as {
    cases: { tags?: string[]; max_output_tokens: number }[];
  };
  for (const c of spec.cases) if ((c.tags ?? []).includes("short-chat")) c.max_output_tokens = CHAT_CAP;
  await Deno.writeTextFile(join(out, "workload.json"), JSON.stringify(spec, null, 2));
  await Deno.copyFile(join(WORKLOAD, "class_defaults.json"), join(out, "class_defaults.json"));
  return out;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The runner's body for a case's first round with a cache-busting prefix: what the sweep sends, streamed. */
function bustedBody(c: WorkloadCase, prefix: string): string {
  const messages = c.messages.map((m) => ({ ...m } as WireMessage));
  prefixFirstUser(messages, prefix);
  return chatBody(c, messages, { model: "engine", stream: true, maxTokens: c.max_output_tokens });
}

/** The engine's own token count of a chat's prompt: its template applied, then `POST /tokenize`. */
async function promptTokens(url: string, messages: WireMessage[]): Promise<number> {
  const applied = await (await fetch(`${url}/apply-template`, {
    method: "POST",
    body: JSON.stringify({ messages }),
  })).json() as { prompt: string };
  return await tokenCount(url, applied.prompt, true);
}

async function tokenCount(url: string, content: string, special: boolean): Promise<number> {
  const res = await fetch(`${url}/tokenize`, {
    method: "POST",
    body: JSON.stringify({ content, add_special: false, parse_special: special }),
  });
  return ((await res.json()) as { tokens: number[] }).tokens.length;
}

function summary(k: KneeResult, before: CapacityResult, after: CapacityResult): string {
  const levels = k.levels.map((l) =>
    `${l.planned_rps}: offered ${l.pooled.offered_rps.toFixed(2)} → goodput ${l.pooled.accepted_goodput.toFixed(2)}`
  );
  return `knee ${k.knee?.offered_rps.toFixed(2) ?? "none"} (${k.knee?.source ?? "-"} ${k.knee?.signal ?? ""}), ` +
    `first departure ${k.first_degrading?.offered_rps.toFixed(2) ?? "none"} [${
      k.first_degrading?.signals.join(", ") ?? ""
    }], kneedle ${k.kneedle.result?.knee?.toFixed(2) ?? "none"}; capacity ${before.completions_per_s.toFixed(2)} ` +
    `(load ${before.loadavg_before} → ${before.loadavg_after}) and ${
      after.completions_per_s.toFixed(2)
    } (load ${after.loadavg_before} → ${after.loadavg_after}); levels ${levels.join("; ")}; verdicts: ${
      k.verdicts.join(" | ")
    }`;
}

/** One measurement: the engine's capacity, the sweep, the capacity again, and the knee of the sweep's run. */
interface Measurement {
  engineUrl: string;
  chats: WorkloadCase[];
  run: Awaited<ReturnType<typeof runLoadTest>>;
  before: CapacityResult;
  after: CapacityResult;
  reference: number;
  k: KneeResult;
}

/** Starts a fresh engine on `port` and measures on it, into `dir`; the caller stops the engine. */
async function measure(dir: string, port: number): Promise<Measurement> {
  const engine = await startEngine({
    size: "tiny",
    seed: 1,
    parallel: SLOTS,
    port,
    ctx: CTX,
    threads: defaultThreads(),
  });
  const workloadDir = await workloadWithChatCap(dir);
  const { workload } = await loadWorkload(workloadDir);
  const chats = workload.cases.filter((c) => (c.tags ?? []).includes("short-chat"));
  const capacity = async (tag: string) => {
    const bust = cacheBustPrefix(`capacity-${tag}-${Date.now()}`);
    return await closedLoopCapacity(engine.url, {
      body: (i) => bustedBody(chats[i % chats.length]!, bust(`c${i}`)),
      concurrency: SLOTS,
      ...CAPACITY_WINDOW,
    });
  };
  const before = await capacity("before");
  const run = await runLoadTest({
    workload: workloadDir,
    plan: PLAN,
    target: engine.url,
    conditions: engine.conditionsFile,
    out: join(dir, "out"),
    formats: ["csv"],
    cacheBust: true,
    saveOutputs: true,
    progress: false,
    // The plan's longest possible run (docs/engine.md) and a margin; it ends long before unless something hangs.
    signal: AbortSignal.timeout(600_000),
  });
  const after = await capacity("after");
  const reference = (before.completions_per_s + after.completions_per_s) / 2;
  const loaded = await loadRun(run.dir, { onWarning: () => {} });
  const policy = await loadSloPolicy(SLO);
  const k = knee([loaded], policy, { baselineLevels: BASELINE_LEVELS });
  console.log(summary(k, before, after));
  return { engineUrl: engine.url, chats, run, before, after, reference, k };
}

/**
 * What is wrong with a measurement's knee; empty when nothing is. The capacity while the sweep ran lies between the two
 * measurements: the sweep must reach into that range (its last level above the lower one), and when its last level
 * lies inside the range rather than past it, the engine must be seen saturated there (accepted goodput under 0.9 × the
 * offered rate); the knee must lie within 20 % of the range.
 */
function kneeProblems({ k, before, after }: Measurement): string[] {
  const problems: string[] = [];
  const last = k.levels.at(-1)!;
  const [low, high] = [before, after].map((c) => c.completions_per_s).sort((a, b) => a - b) as [number, number];
  const offered = last.pooled.offered_rps;
  if (offered <= low) problems.push("the sweep ended below saturation");
  else if (offered <= high && last.pooled.accepted_goodput >= 0.9 * offered) {
    problems.push("the sweep ended inside the capacity's range, unsaturated");
  }
  if (!k.knee) problems.push("no knee");
  else {
    const error = capacityError(k.knee.offered_rps, before.completions_per_s, after.completions_per_s);
    if (error > TOLERANCE) problems.push(`off by ${(error * 100).toFixed(1)} %`);
  }
  return problems;
}

Deno.test({
  name:
    "a sweep of the tiny engine across its saturation finds a knee within 20 % of its capacity measured closed loop",
  ignore: build === null,
  fn: async (t) => {
    const dirs: string[] = [];
    let port: number | null = null;
    try {
      // The engine's speed on a shared machine can move for one 20 s level and back (docs/engine.md, "The knee on the
      // engine"): when the first measurement's knee fails its checks, the whole measurement is made once more on a
      // fresh engine, and the second is the one checked. Both are printed.
      dirs.push(await Deno.makeTempDir({ prefix: "engine_knee_" }));
      port = freePort();
      let m = await measure(dirs[0]!, port);
      const first = kneeProblems(m);
      if (first.length > 0) {
        console.log(`first measurement: ${first.join("; ")}; measuring once more on a fresh engine`);
        await stopEngine(port, { log: () => {} });
        dirs.push(await Deno.makeTempDir({ prefix: "engine_knee_" }));
        port = freePort();
        m = await measure(dirs[1]!, port);
      }
      const { engineUrl, chats, run, before, after, reference, k } = m;

      await t.step("capacity: the closed loop's answers came back whole and uncached", () => {
        for (const c of [before, after]) {
          assert.equal(c.errors, 0, c.error_kinds.join(", "));
          // 30 s at ≥ 1 answer/s: a measurement of dozens of answers, not a handful.
          assert.ok(c.completions >= 30, `${c.completions} answers in 30 s`);
          // The shared system line alone may come from the cache (about 20 of 300+ prompt tokens).
          assert.ok(c.cached_prompt_share < 0.15, `cached share ${c.cached_prompt_share}`);
        }
      });

      await t.step("the run: every request has its outcome, and below the knee they were answered", async () => {
        const requests = await readLogCsv(join(run.dir, "requests.csv"), "requests");
        assert.equal(requests.length, run.manifest.plan.scheduled_requests);
        assert.ok(requests.every((r) => String(r.outcome ?? "") !== ""));
        const below = requests.filter((r) =>
          r.stage !== null &&
          run.manifest.stages.some((s) => s.name === r.stage && s.kind !== "drain" && s.offered_rps < 0.7 * reference)
        );
        assert.ok(below.length >= 20, `${below.length} requests below 0.7 × capacity`);
        const ok = below.filter((r) => r.outcome === "ok").length;
        assert.ok(ok >= 0.98 * below.length, `${ok} of ${below.length} ok below 0.7 × capacity`);
      });

      await t.step("tokens: the usage's prompt counts are the engine tokenizer's, the answers' agree", async () => {
        const requests = await readLogCsv(join(run.dir, "requests.csv"), "requests");
        const attempts = await readLogCsv(join(run.dir, "attempts.csv"), "attempts");
        const ok = requests.filter((r) => r.outcome === "ok" && r.attempts === 1);
        const okIds = new Set(ok.map((r) => r.request_id));
        for (const a of attempts.filter((a) => okIds.has(a.request_id))) assert.equal(a.token_source, "usage");
        const bust = cacheBustPrefix(run.manifest.run_id);
        const byCase = new Map(chats.map((c) => [c.case_id, c]));
        // The first 8 answered requests: their messages as sent (the case's, prefixed), counted by the engine.
        for (const r of ok.slice(0, 8)) {
          const messages = byCase.get(r.case_id)!.messages.map((m) => ({ ...m } as WireMessage));
          prefixFirstUser(messages, bust(r.request_id));
          assert.equal(r.input_tokens, await promptTokens(engineUrl, messages), `prompt of ${r.request_id}`);
        }
        // The answers' text re-tokenized: a sampled token sequence and BPE's own split of its text may differ, so
        // counts are compared in total (measured: docs/engine.md).
        const outputs = new Map(
          (await Deno.readTextFile(join(run.dir, "outputs.jsonl"))).trim().split("\n").map((l) => {
            const o = JSON.parse(l) as { request_id: string; text: string };
            return [o.request_id, o.text] as const;
          }),
        );
        let usage = 0, retokenized = 0;
        for (const r of ok.slice(0, 40)) {
          usage += r.output_tokens!;
          retokenized += await tokenCount(engineUrl, outputs.get(r.request_id)!, false);
        }
        const ratio = retokenized / usage;
        console.log(
          `answers of 40 requests: ${retokenized} tokens re-tokenized, ${usage} by usage (${ratio.toFixed(3)})`,
        );
        assert.ok(ratio > 0.8 && ratio <= 1.1, `answers: ${retokenized} tokens re-tokenized, ${usage} by usage`);
      });

      await t.step("the server timeline: the engine's own slots and queue, once a second", async () => {
        const metrics = run.manifest.server_metrics!.targets[0]!;
        assert.equal(metrics.source, "llamacpp", metrics.how);
        const server = await readLogCsv(join(run.dir, "server.csv"), "server");
        const seconds = run.manifest.result.ended_ms / 1000;
        assert.ok(server.length >= 0.8 * seconds, `${server.length} rows over ${seconds} s`);
        assert.ok(server.every((r) => r.running <= SLOTS), `never more running than the ${SLOTS} slots`);
        // Past saturation the engine queued requests (requests_deferred): the queue the knee reads.
        assert.ok(server.some((r) => r.queue_len > 0), "the engine's queue was never used");
        const first = run.manifest.stages.find((s) => s.kind === "steady")!;
        const early = server.filter((r) => r.t_ms >= first.start_ms && r.t_ms < first.end_ms);
        // At 1 request/s of under a second each (Little's law), under one of the two slots is busy on average; /slots is
        // read once a second (0.95 and 1.05 in two runs), so the check allows up to three quarters of them.
        const mean = early.reduce((sum, r) => sum + r.running, 0) / early.length;
        assert.ok(early.length > 0 && mean < 0.75 * SLOTS, `${mean} slots busy on average at the lowest level`);
      });

      await t.step("the knee: cache-busted levels, and within 20 % of the capacity's range", () => {
        for (const l of k.levels) {
          assert.ok(
            (l.pooled.cached_input.share ?? 0) < 0.15,
            `cached share at ${l.planned_rps}: ${l.pooled.cached_input.share}`,
          );
        }
        const problems = kneeProblems(m);
        assert.deepEqual(problems, [], `${problems.join("; ")}: ${summary(k, before, after)}`);
      });

      await t.step("the report renders with the knee", async () => {
        const out = join(dirs.at(-1)!, "report.html");
        const res = await new Deno.Command(Deno.execPath(), {
          args: ["task", "-q", "report", run.dir, "--slo", SLO, "--out", out],
          cwd: REPO_ROOT,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(res.code, 0, new TextDecoder().decode(res.stderr));
        const html = await Deno.readTextFile(out);
        assert.match(html, /<html/);
        assert.match(html, /knee/i);
      });
    } finally {
      if (port !== null) await stopEngine(port, { log: () => {} });
      for (const dir of dirs) await Deno.remove(dir, { recursive: true });
    }
  },
});
