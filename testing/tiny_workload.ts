import { join } from "node:path";
import type { ClassDefaultsFile, PlanSpec, Workload, WorkloadCase } from "../schema/mod.ts";
import { promptSha256 } from "../schema/workload_file.ts";

/** A one-case, one-class workload answered well by the fault server (its tokens read `tok0 tok1 ...`). */
export function tinyCase(over: Partial<WorkloadCase> = {}): WorkloadCase {
  const messages = over.messages ?? [{ role: "user" as const, content: "Say tok0 please" }];
  return {
    case_id: "qa-001",
    class: "qa",
    priority: 1,
    messages,
    input_tokens: 4,
    prompt_sha256: promptSha256(messages),
    max_output_tokens: 64,
    expected_output_tokens: 8,
    reference_output: "tok0",
    expected_output_schema: null,
    safety_case: false,
    canary: null,
    tool_calls_expected: [],
    tools: [],
    tool_responses: [],
    permitted_tools: [],
    retrieval: null,
    quality_check: { kind: "contains", values: ["tok0"], all: true, case_insensitive: true },
    input_size: "typical",
    output_size: "typical",
    ...over,
  };
}

/** Writes a workload folder (workload.json + class_defaults.json) and returns its path. */
export function writeWorkload(dir: string, cases: WorkloadCase[], stream: Record<string, boolean> = {}): string {
  const wdir = join(dir, "workload");
  Deno.mkdirSync(wdir, { recursive: true });
  const w: Workload = {
    workload: "tiny-test",
    version: "1.0.0",
    kind: "design",
    description: "test workload",
    does_not_represent: ["anything real"],
    tokenizer: "o200k_base",
    cases,
  };
  const classes = [...new Set(cases.map((c) => c.class))];
  const defaults: ClassDefaultsFile = {
    workload: "tiny-test",
    classes: Object.fromEntries(classes.map((cls) => [cls, {
      description: cls,
      deadline_ms: 5000,
      ttft_ms: 1000,
      tpot_ms: 100,
      stream: stream[cls] ?? true,
      priority: 1,
    }])),
  };
  Deno.writeTextFileSync(join(wdir, "workload.json"), JSON.stringify(w, null, 2));
  Deno.writeTextFileSync(join(wdir, "class_defaults.json"), JSON.stringify(defaults, null, 2));
  return wdir;
}

/** Writes a JSON file into `dir` and returns its path. */
export function writeJson(dir: string, name: string, value: unknown): string {
  const p = join(dir, name);
  Deno.writeTextFileSync(p, JSON.stringify(value, null, 2));
  return p;
}

/** A constant-rate plan file. */
export function constantPlan(dir: string, rate: number, seconds: number, name = "tiny"): string {
  const spec: PlanSpec = { name, seed: 7, arrivals: { process: "constant", rate_rps: rate, duration_s: seconds } };
  return writeJson(dir, `${name}.json`, spec);
}

/**
 * The benches' plan (`<name>.json` in `dir`, seed 1): a 1 s `warmup` stage at `rate`, then `seconds` of `steady` at
 * the same rate, constant arrivals, no drain.
 */
export function warmupSteadyPlan(dir: string, name: string, rate: number, seconds: number): string {
  return writeJson(dir, `${name}.json`, {
    name,
    seed: 1,
    arrivals: {
      process: "staged",
      drain_s: 0,
      final_drain: false,
      stages: [
        { name: "warmup", kind: "warmup", process: "constant", rate_rps: rate, duration_s: 1 },
        { name: "steady", kind: "steady", process: "constant", rate_rps: rate, duration_s: seconds },
      ],
    },
  });
}
