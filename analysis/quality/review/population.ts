/**
 * What a review can sample from: the answered requests of one or more runs that have a saved output
 * (`RUN/outputs.jsonl`, written with `--save-outputs`) and a rubric, each with its prompt (the case's messages from
 * the run's workload) and its answer.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { type OutputLine, parseOutputLines } from "../../../schema/outputs_file.ts";
import { InputError } from "../../../schema/errors.ts";
import { MAX_ROWS_INPUT_BYTES, readInputFile } from "../../../schema/read_input.ts";
import type { Rubric } from "../../../schema/rubric.ts";
import type { ChatMessage } from "../../../schema/workload.ts";
import { type LoadedWorkload, loadWorkload } from "../../../schema/workload_file.ts";
import { runnerManifest } from "../../run/imported_run.ts";
import { loadRun } from "../../run/load_run.ts";
import { byText } from "./_random.ts";

/** One answer a review may sample. */
export interface ReviewCandidate {
  /** Index into {@linkcode ReviewPopulation.runs}. */
  run: number;
  run_id: string;
  request_id: string;
  case_id: string;
  class: string;
  route: string;
  stage: string;
  rubric: Rubric;
  messages: ChatMessage[];
  answer: string;
  /** The answer's tool calls, as the runner saved them (JSON text). */
  tool_calls: string;
}

/** A run a review samples from, with its counts. */
export interface PopulationRun {
  /** The folder as given. */
  path: string;
  run_id: string;
  run_json_sha256: string;
  workload_sha256: string;
  outputs_sha256: string;
  /** Requests answered (`ok`). */
  answered: number;
  /** Of those, with a saved output. */
  with_output: number;
  /** Of those, with a rubric in the sampled classes. */
  eligible: number;
}

/** The answers a review may sample, over every run given. */
export interface ReviewPopulation {
  runs: PopulationRun[];
  candidates: ReviewCandidate[];
  /** The classes sampled: those with a rubric, narrowed by `classes`. */
  classes: string[];
  /** The rubrics of the candidates, by sha256 order. */
  rubrics: Rubric[];
}

/** Options of {@linkcode reviewPopulation}. */
export interface ReviewPopulationOptions {
  /** Only these classes (each must have a rubric). @default {every class with a rubric} */
  classes?: readonly string[];
  /** The workload folder, instead of run.json `workload.path` (its sha256 must be the run's). */
  workload?: string;
}

/**
 * Reads every run (sha256-checked, as {@linkcode loadRun}), its workload (run.json `workload.path`, or `workload`;
 * refused unless its sha256 and its rubrics' hashes are the ones the run recorded) and its `outputs.jsonl` (refused
 * unless its sha256 is run.json's, every line is a known answered request once, and every text hashes to the
 * request's `output_sha256`). Every problem of every run is reported at once in one {@linkcode InputError}.
 *
 * @example A folder that is not a run is named in the error
 * ```ts
 * import assert from "node:assert/strict";
 * import { reviewPopulation } from "./population.ts";
 * await assert.rejects(reviewPopulation(["/nonexistent-run"]), /cannot draw a review sample[^]*nonexistent-run/);
 * ```
 */
export async function reviewPopulation(
  dirs: readonly string[],
  options: ReviewPopulationOptions = {},
): Promise<ReviewPopulation> {
  const problems: string[] = [];
  const workloads = new Map<string, LoadedWorkload>();
  const runs: PopulationRun[] = [];
  const candidates: ReviewCandidate[] = [];
  const rubricClasses = new Set<string>();
  const read: { index: number; dir: string; rows: Row[]; outputs: Map<string, OutputLine> }[] = [];
  const workloadOf = new Map<number, LoadedWorkload>();
  for (const dir of dirs) {
    try {
      const run = await loadRun(dir);
      if (run.manifests.length > 1) {
        throw new InputError(
          `${dir}: a sharded run: give its shard folders one by one (the quality table is per folder)`,
        );
      }
      const m = runnerManifest(run, "a review sample");
      const runJson = await Deno.readFile(join(dir, "run.json"));
      const wpath = resolve(options.workload ?? m.workload.path);
      let w = workloads.get(wpath);
      if (!w) workloads.set(wpath, w = await loadWorkload(wpath));
      if (w.sha256 !== m.workload.sha256) {
        throw new InputError(
          `${dir}: the workload at ${wpath} (sha256 ${w.sha256.slice(0, 12)}) is not the one the run used ` +
            `(${m.workload.sha256.slice(0, 12)}); give the run's workload with --workload`,
        );
      }
      if (!w.rubrics) throw new InputError(`${dir}: its workload ${w.path} has no rubrics.json: nothing to review by`);
      for (const r of w.rubrics.rubrics) {
        const frozen = m.workload.rubric_hashes?.[r.rubric_id];
        if (m.workload.rubric_hashes && frozen !== r.sha256) {
          throw new InputError(`${dir}: rubric ${r.rubric_id} ${r.sha256.slice(0, 12)} is not the one the run froze`);
        }
        for (const c of r.applies_to.classes) rubricClasses.add(c);
      }
      for (const c of w.workload.cases) if (w.rubrics.byCaseId.has(c.case_id)) rubricClasses.add(c.class);
      const rows = run.requests.select("request_id", "case_id", "class", "route", "stage", "outcome", "output_sha256")
        .toRecords() as unknown as Row[];
      const file = join(dir, "outputs.jsonl");
      const bytes = await readInputFile(file, "saved outputs (written with --save-outputs)", MAX_ROWS_INPUT_BYTES);
      const outputsSha = createHash("sha256").update(bytes).digest("hex");
      const listed = m.files?.["outputs.jsonl"];
      if (listed !== undefined && listed !== outputsSha) {
        throw new InputError(`${file}: sha256 ${outputsSha} is not the ${listed} run.json lists`);
      }
      const outputs = readOutputs(file, bytes, rows, problems);
      runs.push({
        path: dir,
        run_id: m.run_id,
        run_json_sha256: createHash("sha256").update(runJson).digest("hex"),
        workload_sha256: w.sha256,
        outputs_sha256: outputsSha,
        answered: 0,
        with_output: 0,
        eligible: 0,
      });
      workloadOf.set(runs.length - 1, w);
      read.push({ index: runs.length - 1, dir, rows, outputs });
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems.push(...(e.problems.length ? [e.message.split("\n")[0]!, ...e.problems] : [e.message]));
    }
  }
  const wanted = options.classes?.length ? [...new Set(options.classes)] : [...rubricClasses].sort(byText);
  for (const c of wanted) {
    if (!rubricClasses.has(c)) problems.push(`--classes: class "${c}" has no rubric in the runs' workloads`);
  }
  if (problems.length) throw new InputError("cannot draw a review sample from these runs", problems);
  const classes = new Set(wanted);
  const rubrics = new Map<string, Rubric>();
  for (const { index, rows, outputs } of read) {
    const w = workloadOf.get(index)!;
    const counts = runs[index]!;
    for (const r of rows) {
      if (r.outcome !== "ok") continue;
      counts.answered++;
      const out = outputs.get(r.request_id);
      if (!out) continue;
      counts.with_output++;
      const rubric = w.rubrics!.byCaseId.get(r.case_id);
      const c = w.byCaseId.get(r.case_id);
      if (!rubric || !c || !classes.has(r.class)) continue;
      counts.eligible++;
      rubrics.set(rubric.sha256, rubric);
      candidates.push({
        run: index,
        run_id: counts.run_id,
        request_id: r.request_id,
        case_id: r.case_id,
        class: r.class,
        route: r.route,
        stage: r.stage,
        rubric,
        messages: c.messages.map((m) => ({ role: m.role, content: m.content })),
        answer: out.text,
        tool_calls: out.tool_calls,
      });
    }
  }
  return {
    runs,
    candidates,
    classes: wanted,
    rubrics: [...rubrics.values()].sort((a, b) => byText(a.sha256, b.sha256)),
  };
}

interface Row {
  request_id: string;
  case_id: string;
  class: string;
  route: string;
  stage: string;
  outcome: string;
  output_sha256: string | null;
}

/** The saved outputs by request_id; every line that is not a known answered request's, once, is a problem. */
function readOutputs(
  file: string,
  bytes: Uint8Array,
  rows: readonly Row[],
  problems: string[],
): Map<string, OutputLine> {
  const byId = new Map(rows.map((r) => [r.request_id, r]));
  const out = new Map<string, OutputLine>();
  const parsed = parseOutputLines(file, bytes, problems);
  if (parsed.partialLine !== null) {
    problems.push(`${file}: line ${parsed.partialLine}: cut short (no line end: the run was stopped while writing it)`);
  }
  for (const { line, record: o } of parsed.records) {
    const at = `${file}: line ${line}`;
    const row = byId.get(o.request_id);
    if (!row) {
      problems.push(`${at}: request_id "${o.request_id}" is not a request of the run`);
      continue;
    }
    if (row.outcome !== "ok") {
      problems.push(`${at}: request ${o.request_id} was not answered (${row.outcome})`);
      continue;
    }
    if (out.has(o.request_id)) {
      problems.push(`${at}: a second output of request ${o.request_id}`);
      continue;
    }
    const sha = createHash("sha256").update(o.text).digest("hex");
    if (row.output_sha256 !== null && row.output_sha256 !== sha) {
      problems.push(`${at}: the text of request ${o.request_id} is not the answer its row hashes`);
      continue;
    }
    out.set(o.request_id, o);
  }
  return out;
}
