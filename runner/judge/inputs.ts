/**
 * What a judge pass scores: every request of a run with a saved output whose case has a rubric, with the case's
 * original messages from the workload (not the cache-busted ones the run sent) and the rubric. Everything is checked
 * before any call: the saved outputs and the requests table against run.json's file hashes, each answer against its
 * row's output_sha256, each rubric against run.json `workload.rubric_hashes` and each case's prompt against
 * `workload.prompt_hashes`. Every problem is named at once in one {@linkcode InputError}.
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { isRunnerRun, parseAnyManifest } from "../../schema/imported_manifest.ts";
import { sha256Hex } from "../../schema/quality_file.ts";
import { readInputText } from "../../schema/read_input.ts";
import type { Rubric } from "../../schema/rubric.ts";
import type { ChatMessage } from "../../schema/workload.ts";
import { type LoadedWorkload, loadWorkload } from "../../schema/workload_file.ts";
import { OUTPUTS_FILE, readSavedOutputs } from "./outputs_file.ts";
import { readRequestCases, requestsFile } from "./requests_table.ts";

/** One answer to judge. */
export interface JudgeItem {
  request_id: string;
  case_id: string;
  rubric: Rubric;
  /** The case's messages as the workload holds them. */
  conversation: readonly ChatMessage[];
  /** The saved answer text. */
  answer: string;
}

/** A run's judge items and what they were drawn from. */
export interface JudgeInputs {
  runId: string;
  /** The workload folder or file the conversations and rubrics came from. */
  workloadPath: string;
  /** In the requests table's order. */
  items: JudgeItem[];
  /** The rubrics the items are scored by, by rubric_id. */
  rubrics: Rubric[];
  /** Saved outputs whose case has no rubric (not judged). */
  withoutRubric: number;
  /** A last line of outputs.jsonl cut short and skipped, or null. */
  truncatedLine: number | null;
}

/**
 * Reads a run folder and its workload into the items a judge scores. `workload`: the workload folder (or its
 * workload.json) to read instead of run.json's `workload.path`.
 */
export async function loadJudgeInputs(runDir: string, options: { workload?: string } = {}): Promise<JudgeInputs> {
  const runJson = join(runDir, "run.json");
  const manifest = parseAnyManifest(parseJson(await readInputText(runJson, "run manifest"), runJson), runJson);
  if (!isRunnerRun(manifest)) {
    throw new InputError(`${runJson}: an imported or production recording has no saved outputs to judge`);
  }
  const saved = await readSavedOutputs(runDir);
  const problems: string[] = [];
  const outputsHash = manifest.files[OUTPUTS_FILE];
  if (outputsHash && outputsHash !== sha256Hex(saved.bytes)) {
    problems.push(
      `${join(runDir, OUTPUTS_FILE)}: sha256 is not the one run.json files lists: it changed after the run`,
    );
  }
  const reqFile = requestsFile(runDir);
  const requests = await readRequestCases(runDir);
  const reqName = reqFile.slice(reqFile.lastIndexOf("/") + 1);
  const reqHash = manifest.files[reqName];
  if (reqHash && reqHash !== sha256Hex(await Deno.readFile(reqFile))) {
    problems.push(`${reqFile}: sha256 is not the one run.json files lists: it changed after the run`);
  }
  const fromRun = options.workload === undefined;
  const workloadPath = options.workload ?? manifest.workload.path;
  let loaded: LoadedWorkload;
  try {
    loaded = await loadWorkload(isAbsolute(workloadPath) ? workloadPath : resolve(workloadPath));
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw new InputError(
      fromRun
        ? `${runJson}: workload.path ${workloadPath} (relative to the folder the run was started from) cannot be ` +
          `loaded: give the workload with --workload DIR`
        : `--workload ${workloadPath}: cannot be loaded`,
      e.problems.length ? e.problems : [e.message],
      { cause: e },
    );
  }
  const where = fromRun ? `${runJson}: workload.path ${workloadPath}` : `--workload ${workloadPath}`;
  if (!loaded.rubrics) throw new InputError(`${where}: the workload has no rubrics.json: there is nothing to judge by`);
  const frozen = manifest.workload.rubric_hashes;
  for (const r of loaded.rubrics.rubrics) {
    const want = frozen?.[r.rubric_id];
    if (frozen && want !== r.sha256) {
      problems.push(
        `${loaded.rubrics.path}: rubric ${r.rubric_id} has sha256 ${r.sha256.slice(0, 12)}, the run froze ` +
          `${want ? want.slice(0, 12) : "no rubric of that id"} (run.json workload.rubric_hashes): judge with the ` +
          `rubrics the run was made with`,
      );
    }
  }
  const have = new Set(loaded.rubrics.rubrics.map((r) => r.rubric_id));
  for (const id of Object.keys(frozen ?? {})) {
    if (!have.has(id)) {
      problems.push(
        `${loaded.rubrics.path}: has no rubric ${id}, which the run froze (run.json workload.rubric_hashes)`,
      );
    }
  }
  const known = new Set(requests.map((r) => r.request_id));
  for (const id of saved.texts.keys()) {
    if (!known.has(id)) problems.push(`${join(runDir, OUTPUTS_FILE)}: request_id "${id}" is not in ${reqFile}`);
  }
  const items: JudgeItem[] = [];
  const used = new Map<string, Rubric>();
  let withoutRubric = 0;
  const checkedCases = new Set<string>();
  for (const r of requests) {
    const answer = saved.texts.get(r.request_id);
    if (answer === undefined) continue;
    const c = loaded.byCaseId.get(r.case_id);
    if (!c) {
      problems.push(`${reqFile}: request ${r.request_id}: case_id "${r.case_id}" is not in ${loaded.path}`);
      continue;
    }
    const rubric = loaded.rubrics.byCaseId.get(r.case_id);
    if (!rubric) {
      withoutRubric++;
      continue;
    }
    if (!checkedCases.has(c.case_id)) {
      checkedCases.add(c.case_id);
      const ran = manifest.workload.prompt_hashes[c.case_id];
      if (ran !== c.prompt_sha256) {
        problems.push(
          `${loaded.path}: case ${c.case_id}: its prompt is not the one the run sent (run.json ` +
            `workload.prompt_hashes: ${ran ? ran.slice(0, 12) : "none"}, the workload: ${
              c.prompt_sha256.slice(0, 12)
            })`,
        );
      }
    }
    if (r.output_sha256 !== null && sha256Hex(answer) !== r.output_sha256) {
      problems.push(
        `${join(runDir, OUTPUTS_FILE)}: request ${r.request_id}: the text is not the answer the run checked`,
      );
    }
    used.set(rubric.rubric_id, rubric);
    items.push({ request_id: r.request_id, case_id: r.case_id, rubric, conversation: c.messages, answer });
  }
  if (problems.length) throw new InputError(`${runDir}: cannot judge this run`, problems.slice(0, 30));
  if (!items.length) {
    const scored = [...new Set(loaded.rubrics.rubrics.flatMap((r) => r.applies_to.classes))].join(", ");
    throw new InputError(
      `${join(runDir, OUTPUTS_FILE)}: none of its ${saved.texts.size} saved outputs is of a case with a rubric ` +
        `(the rubrics score ${scored || "single cases only"}): nothing to judge`,
    );
  }
  return {
    runId: manifest.run_id,
    workloadPath,
    items,
    rubrics: [...used.values()],
    withoutRubric,
    truncatedLine: saved.truncatedLine,
  };
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InputError(`${file}: run manifest is not valid JSON: ${(e as Error).message}`, [], { cause: e });
  }
}
