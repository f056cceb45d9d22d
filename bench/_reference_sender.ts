/**
 * The compiled reference sender (bench/reference_sender/, Go, standard library only): finding Go, building it, the
 * schedule and request it sends (the runner's own, built by the runner's code), running it and reading its summary.
 * Used by bench/reference_bench.ts and test/bench/reference_sender_test.ts.
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { loadWorkload } from "../schema/workload_file.ts";
import type { WorkloadCase } from "../schema/workload.ts";
import { buildSchedule, loadPlan, saveSchedule } from "../runner/schedule.ts";
import { chatBody } from "../runner/dialects/openai_chat.ts";
import type { WireMessage } from "../runner/dialects/dialect.ts";

const SOURCE = new URL("./reference_sender/", import.meta.url).pathname;

/** Where Go is looked for after `$PATH`: the Go distribution's default place (the CI machine's too). */
export const GO_FALLBACK = "/usr/local/go/bin/go";

/**
 * The `go` command: the first `go` on `$PATH`, else {@linkcode GO_FALLBACK}; null when neither is an executable file.
 *
 * @example Found on `$PATH` or not at all
 * ```ts
 * import { findGo } from "./_reference_sender.ts";
 * import assert from "node:assert/strict";
 * const go = findGo();
 * assert.ok(go === null || go.endsWith("/go"));
 * ```
 */
export function findGo(): string | null {
  const dirs = (Deno.env.get("PATH") ?? "").split(":").filter((d) => d !== "");
  for (const file of [...dirs.map((d) => join(d, "go")), GO_FALLBACK]) {
    try {
      const st = Deno.statSync(file);
      if (st.isFile && (st.mode ?? 0o111) & 0o111) return file;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied)) throw err;
    }
  }
  return null;
}

/**
 * Builds the reference sender into `outDir/reference_sender` with `go` and returns the binary's path. The module
 * has no requirements, so nothing is downloaded (`GOTOOLCHAIN=local`: never fetch another toolchain either).
 */
export async function buildReferenceSender(go: string, outDir: string): Promise<string> {
  await Deno.mkdir(outDir, { recursive: true });
  const bin = join(outDir, "reference_sender");
  const out = await new Deno.Command(go, {
    args: ["build", "-o", bin, "."],
    cwd: SOURCE,
    env: { GOTOOLCHAIN: "local", GOFLAGS: "-mod=mod" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`go build of bench/reference_sender failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return bin;
}

/**
 * Saves, as `dir/schedule.csv`, the schedule the runner builds from `plan` and `workload` (its own code: the same
 * requests at the same offsets) and returns the file's path.
 */
export async function saveRunnerSchedule(plan: string, workload: string, dir: string): Promise<string> {
  const { workload: w } = await loadWorkload(workload);
  const p = await loadPlan(plan);
  const built = await buildSchedule(p.spec, w, { planDir: p.planDir, planFile: p.planFile });
  await saveSchedule(dir, built.entries);
  return join(dir, "schedule.csv");
}

/** A request as the runner's raw client sends it to a Chat Completions route with no key, less its idempotency key. */
export interface SentRequest {
  headers: Record<string, string>;
  body: string;
}

/**
 * The headers and body the runner sends for case `c`, streamed, with the model `model` (the runner sends
 * `"unstated"` when neither conditions nor the target's `/v1/models` name one, as with the static responder).
 *
 * @example A streamed body asks for usage
 * ```ts
 * import { runnerRequest } from "./_reference_sender.ts";
 * import { tinyCase } from "../testing/tiny_workload.ts";
 * import assert from "node:assert/strict";
 * const r = runnerRequest(tinyCase());
 * assert.equal(JSON.parse(r.body).stream_options.include_usage, true);
 * assert.equal(r.headers["content-type"], "application/json");
 * ```
 */
export function runnerRequest(c: WorkloadCase, model = "unstated"): SentRequest {
  return {
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream, application/json",
      "accept-encoding": "identity",
    },
    body: chatBody(c, c.messages as WireMessage[], { model, stream: true, maxTokens: c.max_output_tokens }),
  };
}

const ms = z.number().nonnegative();

/**
 * The JSON summary the reference sender prints (bench/reference_sender/summary.go), and the Deno floor
 * (bench/floor_sender.ts) in the same shape: `go_version` and `gomaxprocs` from Go, `runtime` from Deno.
 */
export const ReferenceSummary = z.object({
  n: z.number().int().nonnegative(),
  ok: z.number().int().nonnegative(),
  not_sent: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  stage: z.string(),
  stage_n: z.number().int().nonnegative(),
  send_lag_p50_ms: ms.nullable(),
  send_lag_p99_ms: ms.nullable(),
  send_lag_max_ms: ms.nullable(),
  completed_rps: z.number().nonnegative(),
  cpu_user_ms: ms,
  cpu_sys_ms: ms,
  peak_rss_bytes: z.number().int().positive().nullable(),
  /** With `cpuWindowMs`: the process's CPU time in that stretch of the run. */
  window_cpu_ms: ms.optional(),
  go_version: z.string().optional(),
  gomaxprocs: z.number().int().positive().optional(),
  runtime: z.string().optional(),
}).strict();
export type ReferenceSummary = z.infer<typeof ReferenceSummary>;

/** Options of {@linkcode runReferenceSender}. */
export interface ReferenceRunOptions {
  schedule: string;
  /** The full URL every request is POSTed to. */
  url: string;
  request: SentRequest;
  /** Where to write the per-request CSV (the body file goes beside it). */
  rows: string;
  /** The stage the summary's send-lag percentiles cover. @default "steady" */
  stage?: string;
  /** Sends `idempotency-key: <runId>:<request_id>:0`, as the runner does with its run id. */
  runId: string;
  /** [from, to] ms after ms 0: the summary's `window_cpu_ms` is the CPU time in between. */
  cpuWindowMs?: readonly [number, number];
}

/**
 * The command that runs the Deno floor (bench/floor_sender.ts; with `parse`, `--parse`: each answer's events read),
 * the reference sender's arguments to follow.
 */
export function floorSenderCommand(parse = false): string[] {
  const file = new URL("./floor_sender.ts", import.meta.url).pathname;
  // -A: /proc/self/status needs all access
  return [Deno.execPath(), "run", "--allow-all", file, ...(parse ? ["--parse"] : [])];
}

/**
 * Runs the built reference sender (`bin`, or a command: {@linkcode floorSenderCommand}) once and returns its parsed
 * summary; throws with its stderr when it fails.
 */
export async function runReferenceSender(bin: string | string[], o: ReferenceRunOptions): Promise<ReferenceSummary> {
  const [cmd, ...pre] = typeof bin === "string" ? [bin] : bin;
  const bodyFile = `${o.rows}.body.json`;
  await Deno.writeTextFile(bodyFile, o.request.body);
  const headers = Object.entries(o.request.headers).flatMap(([k, v]) => ["--header", `${k}: ${v}`]);
  const out = await new Deno.Command(cmd!, {
    args: [
      ...pre,
      "--schedule",
      o.schedule,
      "--url",
      o.url,
      "--body-file",
      bodyFile,
      ...headers,
      "--rows",
      o.rows,
      "--summary-stage",
      o.stage ?? "steady",
      "--idempotency-key-prefix",
      o.runId,
      ...(o.cpuWindowMs ? ["--cpu-window-ms", o.cpuWindowMs.join(",")] : []),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  if (!out.success) throw new Error(`${cmd} exited with ${out.code}: ${dec.decode(out.stderr)}`);
  const text = dec.decode(out.stdout).trim();
  const parsed = ReferenceSummary.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`reference_sender printed an unexpected summary: ${parsed.error.message}`);
  return parsed.data;
}
