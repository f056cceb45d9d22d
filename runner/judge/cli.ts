/**
 * `npx deno task judge RUN --target URL --model M [flags]`: scores a run's saved outputs against the workload's
 * rubrics through an OpenAI-compatible chat-completions endpoint, open-loop at a stated rate, and writes the verdicts
 * as the part `judge-<model>.csv|parquet` of the run's quality table (docs/quality_judge.md). Its flags:
 * {@linkcode JUDGE_COMMAND}.
 *
 * @module
 */
import { type CommandSpec, type ParsedCommand, runCommand } from "../../lib/command.ts";
import { InputError } from "../../schema/errors.ts";
import { keyEnvProblem } from "../api_key_env.ts";
import { RUNNER_DEFAULTS } from "../settings.ts";
import { listenForStop } from "../stop_signals.ts";
import { chatUrl, redactUrl } from "../target_url.ts";
import { JUDGE_RUN_DEFAULTS, runJudge } from "./judge_run.ts";
import { judgeModelProblem } from "./names.ts";
import { parseJudgeRate } from "./rate.ts";

/** Exit code of a pass stopped by a signal (128 + its number): the journal is kept to resume from. */
const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/** `npx deno task judge`: its flags and help (lib/command.ts). */
export const JUDGE_COMMAND = {
  name: "judge",
  invocation: "npx deno task judge",
  summary: "scores a run's saved outputs against the workload's rubrics with a model judge (any OpenAI-compatible " +
    "endpoint), open-loop at a stated rate, and adds its verdicts to the run's quality table",
  details: [
    "The items are the requests with a saved output (`run --save-outputs`) whose case has a rubric; the judge sees " +
    "the rubric and the case's original messages with the answer, and replies with one JSON object of scores and a " +
    "rationale. Calls start at `--rate` (at most `--max-in-flight` at once); a failed call is retried within " +
    "`--retries` and the run-wide `--retry-budget`, after Retry-After on 429 and 503. Verdicts are journaled as they " +
    "arrive: a stopped pass (Ctrl-C, `--limit`) is resumed by the same command. The part and its details (model, " +
    "endpoint, calls, tokens, items not judged and why) go to `RUN/quality/` (docs/quality_judge.md).",
    "Only the `--target` host is called (redirects are not followed); the key is read from `--api-key-env` and never " +
    "written.",
  ],
  positionals: [{ name: "RUN", noun: "RUN folder", description: "the run folder to judge", min: 1, max: 1 }],
  flags: {
    target: {
      type: "string",
      arg: "URL",
      required: true,
      description: "the judge endpoint: a base URL (`/v1/chat/completions` is appended) or the full endpoint URL",
    },
    model: { type: "string", arg: "M", required: true, description: "the judge model, sent as `model`" },
    workload: {
      type: "string",
      arg: "DIR",
      defaultText: "run.json `workload.path`",
      description: "the workload whose cases and rubrics the run used",
    },
    rate: {
      type: "string",
      arg: "R",
      default: `${JUDGE_RUN_DEFAULTS.ratePerS}/s`,
      values: "`N/s`, `N/min`, `N/h` or a number per second, above 0, at most 10000/s",
      description: "items started per second, open-loop (item i at start + i / rate)",
    },
    "max-in-flight": {
      type: "number",
      arg: "N",
      default: JUDGE_RUN_DEFAULTS.maxInFlight,
      rule: { min: 1, max: 10_000, integer: true },
      description: "most items being judged at once; an item that waits for a slot starts late, and is counted so",
    },
    retries: {
      type: "number",
      arg: "N",
      default: JUDGE_RUN_DEFAULTS.retries,
      rule: { min: 0, max: 20, integer: true },
      description: "retries of one item after a failed call (an error status of 429, 408 or 5xx, a timeout, a " +
        "reply that is not the JSON asked for)",
    },
    "retry-budget": {
      type: "number",
      arg: "SHARE",
      default: JUDGE_RUN_DEFAULTS.retryBudget,
      rule: { min: 0, max: 10 },
      description: "most retries in one pass, as a share of its items (⌊share × items⌋)",
    },
    "timeout-s": {
      type: "number",
      arg: "S",
      default: JUDGE_RUN_DEFAULTS.timeoutS,
      rule: { above: 0, max: 3600 },
      description: "longest wait for one call's whole answer",
    },
    "max-tokens": {
      type: "number",
      arg: "N",
      default: JUDGE_RUN_DEFAULTS.maxTokens,
      rule: { min: 1, max: 1_000_000, integer: true },
      description: "the judge's output cap, sent as `max_tokens`",
    },
    "api-key-env": {
      type: "string",
      arg: "NAME",
      default: RUNNER_DEFAULTS.api_key_env,
      description: "environment variable holding the endpoint's API key (sent as `Authorization: Bearer`; none " +
        "when unset); never written",
    },
    format: {
      type: "string",
      arg: "F",
      default: JUDGE_RUN_DEFAULTS.format,
      choices: ["csv", "parquet"],
      description: "the part's format",
    },
    limit: {
      type: "number",
      arg: "N",
      defaultText: "none: every item",
      rule: { min: 1, integer: true },
      description: "judge at most N items now, then stop with the journal kept (the same command resumes)",
    },
    replace: {
      type: "boolean",
      description: "judge every item again and replace this model's part (a journal in progress is dropped)",
    },
    quiet: { type: "boolean", description: "no progress line and no notes on stderr" },
  },
  examples: [
    "npx deno task judge out/RUN --target http://127.0.0.1:8787 --model sim-llm",
    "npx deno task judge out/RUN --target https://api.openai.com --model gpt-4.1-mini --api-key-env OPENAI_API_KEY " +
    "--rate 5/s",
  ],
  exits: {
    1: "no item could be judged (the part is still written, its details say why), or an unexpected error",
    "128+n": "stopped by signal n (SIGINT: 130): the journal is kept; the same command resumes",
  },
} as const satisfies CommandSpec;

async function main({ values: v, positionals, check }: ParsedCommand<typeof JUDGE_COMMAND>): Promise<number> {
  // Every flag checked here, before any file is read: every problem named at once.
  const rate = parseJudgeRate(v.rate);
  if (typeof rate === "string") check.problems.push(`--rate: ${rate}`);
  if (v.model !== undefined) {
    const problem = judgeModelProblem(v.model);
    if (problem) check.problems.push(`--model: ${problem}`);
  }
  if (v.target !== undefined) {
    try {
      chatUrl(v.target);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      check.problems.push(e.message);
    }
  }
  const keyProblem = keyEnvProblem(v["api-key-env"], (n) => Deno.env.get(n));
  if (keyProblem) check.problems.push(`--api-key-env: ${keyProblem}`);
  check.throwIfAny();
  const stop = new AbortController();
  using signals = listenForStop({
    first: (signal) => {
      if (!v.quiet) console.error(`\njudge: ${signal}: stopping; the verdicts so far are journaled`);
      stop.abort();
    },
    beforeExit: () => {},
  });
  const runDir = positionals[0]!;
  const result = await runJudge({
    runDir,
    ...(v.workload !== undefined ? { workload: v.workload } : {}),
    target: v.target!,
    model: v.model!,
    key: Deno.env.get(v["api-key-env"]) ?? null,
    ratePerS: rate as number,
    maxInFlight: v["max-in-flight"],
    retries: v.retries,
    retryBudget: v["retry-budget"],
    timeoutS: v["timeout-s"],
    maxTokens: v["max-tokens"],
    format: v.format,
    limit: v.limit ?? null,
    replace: v.replace,
    progress: !v.quiet,
    signal: stop.signal,
    ...(v.quiet ? {} : { note: (line: string) => console.error(line) }),
  });
  // --replace again would drop the journal: the resuming command is the same without it; a key in the URL's query is
  // not echoed.
  const resume = `npx deno task judge ${resumeArgs(Deno.args).map(shellWord).join(" ")}`;
  if (result.status !== "done") {
    const why = result.status === "stopped" ? "stopped" : `stopped after --limit ${v.limit}`;
    console.log(
      `judge: ${why}: ${result.judged} of ${result.items} items judged, journaled in ${result.journal}; resume with ` +
        `the same command: ${resume}`,
    );
    return result.status === "stopped" ? SIGNAL_EXIT[signals.received ?? "SIGINT"] ?? 130 : 0;
  }
  const d = result.details!;
  const unjudged = d.unjudged as { items: number; reasons: Record<string, number> };
  const reasons = Object.entries(unjudged.reasons).map(([k, n]) => `${k} ${n}`).join(", ");
  console.log(
    `judge: ${result.judged} of ${result.items} items judged by judge:${v.model}` +
      (unjudged.items ? ` (${unjudged.items} not judged: ${reasons})` : "") +
      `; ${d.calls} calls (${d.failed_calls} failed), ${d.input_tokens} input and ${d.output_tokens} output tokens`,
  );
  console.log(`verdicts written to ${result.part}`);
  if (result.judged === 0) {
    console.error("error: no item could be judged: the part's details say why (quality/quality.json)");
    return 1;
  }
  return 0;
}

/**
 * The arguments of the command that resumes a stopped pass: without `--replace`, the `--target` URL's query values
 * and credentials replaced by `REDACTED` (runner/target_url.ts `redactUrl`).
 *
 * @example
 * ```ts
 * import { resumeArgs } from "./cli.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   resumeArgs(["RUN", "--target", "http://127.0.0.1:1/v1?key=s3cr3t", "--model", "m", "--replace"]),
 *   ["RUN", "--target", "http://127.0.0.1:1/v1?key=REDACTED", "--model", "m"],
 * );
 * ```
 */
export function resumeArgs(args: readonly string[]): string[] {
  const redact = (v: string) => {
    try {
      const u = new URL(v);
      return u.search || u.username || u.password ? redactUrl(u) : v;
    } catch {
      return v;
    }
  };
  return args.filter((a) => a !== "--replace").map((a, i, all) =>
    all[i - 1] === "--target" ? redact(a) : a.startsWith("--target=") ? `--target=${redact(a.slice(9))}` : a
  );
}

/** An argument as a shell reads it back. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replaceAll("'", `'"'"'`)}'`;
}

if (import.meta.main) await runCommand(JUDGE_COMMAND, main);
