/**
 * `deno task samples-quality`: regenerates the sample run with a quality table, `data/runs/quality/`
 * (notebooks/06_quality_baseline.ipynb), on loopback only, in one process:
 *
 * 1. the design workload run under `data/plans/quality-sample.json` (5 req/s for 40 s, seed 32) with its answers saved
 *    (`--save-outputs`) against an in-process simulator on `data/sim/quality-sample.json` (judge.json with the
 *    open-ended classes right 60 % of the time, so both verdicts occur);
 * 2. every saved open-ended answer judged by that simulator's judge mode, model `sim-judge` (the code path of
 *    `deno task judge`: runner/judge/judge_run.ts);
 * 3. a review sample drawn as `review sample` draws it (40 items, strata class × route × stage, two raters, half of the
 *    items rated by both, seed 32);
 * 4. **simulated raters**: no person rated anything. Each rater's verdict is the truth the simulator knows — the case's
 *    own deterministic check on the saved answer (sim/answer_check.ts) — except that rater `bo` deliberately reverses
 *    a fixed share (0.1) of his items, drawn by a seeded stream; scores agree with the verdict (sim/judge.ts
 *    `verdictScores`), the time per item is drawn uniformly from 20 to 90 s (simulated too). The ratings files are
 *    written in the page's export format and imported as `review import` imports them;
 * 5. a **simulated adjudicator**, `cy`, fills the adjudication template by the same truth, and the ratings are imported
 *    again with it.
 *
 * Everything lands in `data/runs/quality/`: the run, its `quality/` table, and `review/` with the key, the two ratings
 * files, the disagreement record and the adjudication file (the packet page too when it is small). Writes its own
 * block of data/runs/README.md. About a minute.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadRun } from "../analysis/run/load_run.ts";
import { formatAgreement } from "../analysis/quality/review/agreement.ts";
import { importReview, type ImportReviewResult } from "../analysis/quality/review/import_review.ts";
import { AdjudicationFile, type RatingsFile, type ReviewKey } from "../analysis/quality/review/review_files.ts";
import { sampleReview } from "../analysis/quality/review/sample_review.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../lib/command.ts";
import { mulberry32 } from "../lib/prng.ts";
import { JUDGE_RUN_DEFAULTS, runJudge } from "../runner/judge/judge_run.ts";
import { runLoadTest, type RunResult } from "../runner/run.ts";
import { loadSimProfile } from "../schema/sim_profile.ts";
import { loadWorkload } from "../schema/workload_file.ts";
import type { Rubric } from "../schema/rubric.ts";
import { answerPasses } from "../sim/answer_check.ts";
import { verdictScores } from "../sim/judge.ts";
import { startSim } from "../sim/mod.ts";
import { QUALITY_BLOCK, withReadmeBlock } from "./_readme_block.ts";
import { SAMPLES_OUT_FLAG } from "./_sample_flags.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** How the quality sample is made: every seed, size and share. */
export const QUALITY_SAMPLE = {
  run_id: "quality",
  workload: "data/workloads/design-v1",
  plan: "data/plans/quality-sample.json",
  profile: "data/sim/quality-sample.json",
  conditions: "data/conditions/sim-demo.json",
  sim_seed: 1,
  judge: { model: "sim-judge", rate_per_s: 20, max_in_flight: 8 },
  review: {
    packet: "review/packet.html",
    total: 40,
    min_per_stratum: 2,
    strata: ["class", "route", "stage"],
    raters: ["ana", "bo"],
    double_share: 0.5,
    seed: 32,
  },
  /** The simulated raters: who misreads, what share of his items (rounded), the stream's seed. */
  raters: { misreader: "bo", misread_share: 0.1, seed: 32, seconds_per_item: [20, 90] },
  adjudicator: "cy",
  /** The packet page is kept in the repository only when it is at most this large. */
  packet_max_bytes: 200_000,
} as const;

/** `npx deno task samples-quality`: its flags and help (lib/command.ts). */
export const SAMPLES_QUALITY_COMMAND = {
  name: "samples-quality",
  invocation: "npx deno task samples-quality",
  summary: "regenerates the sample run with a quality table (data/runs/quality): the design workload on the " +
    "simulator with saved answers, judged by the simulator's judge, a 40-item review by two simulated raters, " +
    "imported and adjudicated; about a minute",
  details: [
    "The raters and the adjudicator are simulated by the script, not people: their verdicts are the case's own check " +
    `on the answer, rater ${QUALITY_SAMPLE.raters.misreader} reversing a seeded ${QUALITY_SAMPLE.raters.misread_share} ` +
    "share of his items. Loopback only; the simulator runs in-process. It deletes and rewrites this folder and its " +
    "block of the README only.",
  ],
  flags: {
    out: SAMPLES_OUT_FLAG,
  },
  examples: ["npx deno task samples-quality", "npx deno task samples-quality --out /tmp/samples"],
} as const satisfies CommandSpec;

async function main({ values: v, check }: ParsedCommand<typeof SAMPLES_QUALITY_COMMAND>): Promise<number> {
  check.throwIfAny();
  Deno.chdir(ROOT); // Paths in run.json stay relative to the repository.
  const s = QUALITY_SAMPLE;
  const started = Date.now();
  const log = (what: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${what}`);
  const runDir = join(v.out, s.run_id);
  await Deno.remove(runDir, { recursive: true }).catch(notFoundOk);
  await Deno.mkdir(v.out, { recursive: true });
  const tmpDir = await Deno.makeTempDir({ prefix: "goodput-samples-quality-" });
  const loaded = await loadWorkload(s.workload);
  const profile = await loadSimProfile(s.profile);
  const sim = await startSim({ port: 0, profile, workload: loaded, seed: s.sim_seed, quiet: true });
  let run: RunResult;
  try {
    const conditions = join(tmpDir, "conditions.json");
    const base = JSON.parse(await Deno.readTextFile(s.conditions));
    await Deno.writeTextFile(
      conditions,
      JSON.stringify({ ...base, model_version: `simulator profile ${s.profile} (judge mode on: judge.json's rates)` }),
    );
    log(`run: ${s.plan} over ${s.profile}, answers saved`);
    run = await runLoadTest({
      workload: s.workload,
      plan: s.plan,
      target: sim.url,
      out: v.out,
      runId: s.run_id,
      formats: ["csv"],
      conditions,
      progress: false,
      saveOutputs: true,
      atStart: () => Promise.resolve(sim.reset()),
    });
    log(`judge: every saved open-ended answer, model ${s.judge.model}`);
    const judged = await runJudge({
      ...JUDGE_RUN_DEFAULTS,
      runDir,
      target: sim.url,
      model: s.judge.model,
      ratePerS: s.judge.rate_per_s,
      maxInFlight: s.judge.max_in_flight,
      timeoutS: 60,
    });
    if (judged.status !== "done" || judged.unjudged) {
      throw new Error(`the judge pass ended ${judged.status} with ${judged.unjudged} items unjudged`);
    }
    log(`judged ${judged.judged} of ${judged.items} items`);
  } finally {
    await sim.stop();
    await Deno.remove(tmpDir, { recursive: true });
  }

  const r = s.review;
  const reviewDir = join(runDir, "review");
  await Deno.mkdir(reviewDir);
  const packet = join(runDir, r.packet);
  const sampled = await sampleReview([runDir], {
    out: packet,
    strata: r.strata,
    sizing: { mode: "total", total: r.total, min_per_stratum: r.min_per_stratum },
    seed: r.seed,
    raters: r.raters,
    double_share: r.double_share,
  });
  const key = sampled.fullKey;
  log(`review sample: ${key.items.length} items, ${key.design.double_rated.length} rated by both raters`);

  const truth = await truthOf(runDir, loaded.byCaseId);
  const rubrics = new Map(key.rubrics.map((x) => [x.sha256, x]));
  // The simulated raters start rating when the run ended (ms 0 of the run + its end), one item after another.
  const startMs = Date.parse(run.manifest.epoch_iso) + run.manifest.result.ended_ms;
  const ratingFiles: string[] = [];
  let misread = 0;
  for (const rater of key.raters) {
    const file = join(reviewDir, `ratings-${key.packet_id}-${rater}.json`);
    const rated = simulatedRatings(key, rater, truth, rubrics, startMs);
    misread += rated.misread.length;
    await Deno.writeTextFile(file, JSON.stringify(rated.file, null, 2) + "\n");
    ratingFiles.push(file);
  }
  log(`simulated ratings written (${misread} misread by ${s.raters.misreader}); import`);
  const first = await importReview(sampled.files.key, ratingFiles);
  for (const line of formatAgreement(first.agreement)) console.log(line);
  const adjudicationFile = first.files.template;
  const template = AdjudicationFile.parse(JSON.parse(await Deno.readTextFile(adjudicationFile)));
  const adjRand = mulberry32(s.raters.seed + 1);
  const filled: AdjudicationFile = {
    ...template,
    entries: template.entries.map((e) => {
      const it = key.items.find((i) => i.item === e.item)!;
      const pass = truth(it.request_id);
      return {
        item: e.item,
        adjudicator: s.adjudicator,
        scores: verdictScores(rubrics.get(it.rubric_sha256)!.criteria, pass, adjRand),
        note: `simulated adjudicator: settled by the case's own check on the answer (${pass ? "pass" : "fail"})`,
      };
    }),
  };
  await Deno.writeTextFile(adjudicationFile, JSON.stringify(filled, null, 2) + "\n");
  const settled = await importReview(sampled.files.key, ratingFiles, { adjudication: adjudicationFile });
  log(`adjudicated ${settled.adjudication?.settled.length ?? 0} of ${settled.record.items.length} disagreements`);

  const packetBytes = (await Deno.stat(packet)).size;
  const keptPacket = packetBytes <= s.packet_max_bytes;
  if (!keptPacket) await Deno.remove(packet);
  const readme = join(v.out, "README.md");
  const text = await Deno.readTextFile(readme).catch((e) => (notFoundOk(e), "# Sample runs\n"));
  await Deno.writeTextFile(
    readme,
    withReadmeBlock(
      text,
      QUALITY_BLOCK,
      block({ run, judged: settled, misread, packetBytes, keptPacket, seconds: (Date.now() - started) / 1000 }),
    ),
  );
  log(`done: ${runDir} and ${readme}`);
  return 0;
}

/** The truth the simulator's judge goes by: the case's own check on the saved answer, by request. */
async function truthOf(
  runDir: string,
  cases: ReadonlyMap<string, { quality_check: Parameters<typeof answerPasses>[0] }>,
): Promise<(requestId: string) => boolean> {
  const run = await loadRun(runDir);
  const ids = run.requests.getColumn("request_id").toArray() as string[];
  const caseIds = run.requests.getColumn("case_id").toArray() as string[];
  const caseOf = new Map(ids.map((id, i) => [id, caseIds[i]!]));
  const outputs = new Map(
    (await Deno.readTextFile(join(runDir, "outputs.jsonl"))).trim().split("\n").map((l) => {
      const o = JSON.parse(l) as { request_id: string; text: string };
      return [o.request_id, o.text] as const;
    }),
  );
  return (requestId) => {
    const verdict = answerPasses(cases.get(caseOf.get(requestId)!)!.quality_check, outputs.get(requestId)!);
    if (verdict === null) throw new Error(`request ${requestId}: its case's check cannot judge text alone`);
    return verdict;
  };
}

/**
 * One simulated rater's export: every assigned item in the page's order, the verdict the truth, reversed on the
 * misreader's drawn share; scores agreeing with the verdict; time per item drawn; rated one after another from `startMs`.
 */
function simulatedRatings(
  key: ReviewKey,
  rater: string,
  truth: (requestId: string) => boolean,
  rubrics: ReadonlyMap<string, Rubric>,
  startMs: number,
): { file: RatingsFile; misread: string[] } {
  const s = QUALITY_SAMPLE.raters;
  const items = key.assignments[rater] ?? [];
  const rand = mulberry32(s.seed + key.raters.indexOf(rater) * 1000);
  // The misread items: a seeded shuffle's first round(share × n) (Fisher–Yates).
  const order = [...items];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const misread = rater === s.misreader ? order.slice(0, Math.round(s.misread_share * items.length)) : [];
  const misreadSet = new Set(misread);
  const [lo, hi] = s.seconds_per_item;
  let at = startMs;
  const ratings = items.map((item) => {
    const it = key.items.find((i) => i.item === item)!;
    const reversed = misreadSet.has(item);
    const pass = truth(it.request_id) !== reversed;
    const time_spent_ms = Math.round((lo + rand() * (hi - lo)) * 1000);
    at += time_spent_ms;
    return {
      item,
      scores: verdictScores(rubrics.get(it.rubric_sha256)!.criteria, pass, rand),
      notes: reversed
        ? "simulated rater: the case's own check on the answer, deliberately reversed (a misreading)"
        : "simulated rater: the case's own check on the answer",
      time_spent_ms,
      rated_iso: new Date(at).toISOString(),
    };
  });
  return { file: { packet_id: key.packet_id, packet_sha256: key.packet_sha256, rater, ratings }, misread };
}

function notFoundOk(e: unknown): void {
  if (!(e instanceof Deno.errors.NotFound)) throw e;
}

function block(o: {
  run: RunResult;
  judged: ImportReviewResult;
  misread: number;
  packetBytes: number;
  keptPacket: boolean;
  seconds: number;
}): string {
  const s = QUALITY_SAMPLE;
  const m = o.run.manifest;
  const key = o.judged.key;
  const rec = o.judged.record;
  const status = m.result.status + (m.result.client_limited ? `, client-limited: ${m.result.client_limit_reason}` : "");
  const packet = o.keptPacket
    ? `the packet page \`${s.review.packet}\` (${(o.packetBytes / 1000).toFixed(0)} kB)`
    : `not the packet page (${(o.packetBytes / 1000).toFixed(0)} kB: \`npx deno task review sample ` +
      `data/runs/${s.run_id} --total ${s.review.total} --raters ${s.review.raters.join(",")} --double-share ` +
      `${s.review.double_share} --seed ${s.review.seed} --out PAGE.html\` draws it again, byte for byte: its sha256 is ` +
      "the key's `html_sha256`)";
  return `## A run with a quality table

Made by \`npx deno task samples-quality\` (\`scripts/samples_quality.ts\`) on ${
    new Date().toISOString().slice(0, 10)
  }, in ${o.seconds.toFixed(0)} s, on a
shared ${navigator.hardwareConcurrency}-core machine (${Deno.build.os}/${Deno.build.arch}, Deno ${Deno.version.deno}).
\`quality/\` is the design workload (\`${s.plan}\`, seed ${m.plan.seed}: ${o.run.summary.offered} offered, ${status})
against an in-process simulator on \`${s.profile}\` (judge.json with long_summary and rag_answer right 60 % of the time)
with its answers saved (\`outputs.jsonl\`), then:

- **judged**: every saved long_summary and rag_answer answer scored by the simulator's judge mode as model
  \`${s.judge.model}\` (\`quality/quality/judge-${s.judge.model}.csv\`; the judge is right with probability 0.9 on an answer that
  passes its case's check and 0.85 on one that fails it);
- **reviewed**: a sample of ${key.items.length} answers drawn as \`review sample\` draws it (strata class × route × stage,
  seed ${s.review.seed}), dealt to raters ${key.raters.join(" and ")}, ${key.design.double_rated.length} of them rated
  by both;
- **the raters are simulated by the script, not people.** Each simulated rater's verdict is the case's own
  deterministic check on the answer (\`sim/answer_check.ts\`), except that \`${s.raters.misreader}\` deliberately
  reverses ${o.misread} of his items (a seeded share of ${s.raters.misread_share}); the scores agree with the verdict
  and the minutes per item are drawn (${s.raters.seconds_per_item[0]}–${s.raters.seconds_per_item[1]} s), so the
  review's cost in the ledger is a simulation's too. ${rec.items.length} of ${rec.compared} doubly rated items differ
  (${rec.differ_on_pass} on the verdict); a simulated adjudicator, \`${s.adjudicator}\`, settled each by the same check.

\`quality/review/\` holds the key (\`packet.key.json\`), the two ratings files, the disagreement record
(\`packet.disagreements.json\`, \`.md\`) and the filled adjudication file (\`packet.adjudication.json\`); ${packet}.
Read it in \`notebooks/06_quality_baseline.ipynb\` or \`npx deno task report data/runs/quality\`; regenerate it with
\`npx deno task samples-quality\` (it deletes and rewrites this folder and this block only; the run's timings, and so
which requests are answered, differ from one regeneration to the next).
`;
}

if (import.meta.main) await runCommand(SAMPLES_QUALITY_COMMAND, main);
