/**
 * A judge pass over one run, run like a load test: the items still without a verdict start open-loop at the stated
 * rate (item i of the session at start + i / rate; at most `maxInFlight` at once, an item that waits for a slot
 * starts late and is recorded so), each judged to its end (runner/judge/judge_item.ts) and journaled as it ends
 * (runner/judge/journal.ts). When every item has been tried, the part `judge-<slug>.csv|parquet` is written to the
 * run's quality table (schema/quality_file.ts `writeQualityPart`) and the journal removed; a stop (or `limit`) keeps
 * the journal, and the same command resumes it.
 *
 * @module
 */
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { QUALITY_DIR } from "../../schema/quality.ts";
import { readQualityManifest, writeQualityPart } from "../../schema/quality_file.ts";
import { hostPort, NetAllowList } from "../net_allow.ts";
import { stderrLine } from "../progress.ts";
import { chatUrl } from "../target_url.ts";
import { foldJudgeJournal } from "./fold.ts";
import { loadJudgeInputs } from "./inputs.ts";
import { judgeItem, type JudgeItemContext, pause } from "./judge_item.ts";
import { Journal } from "./journal.ts";
import { judgeJournalFile, judgeModelProblem, judgePartFile } from "./names.ts";
import { judgeProgressLine } from "./progress.ts";
import { RetryBudget } from "./retry_budget.ts";

/** Everything a judge pass is run with. */
export interface JudgeRunOptions {
  runDir: string;
  /** The workload to read instead of run.json's `workload.path`. */
  workload?: string;
  /** The endpoint: a base URL (`/v1/chat/completions` is appended) or the full URL. */
  target: string;
  model: string;
  /** The API key, or null to send none. */
  key: string | null;
  ratePerS: number;
  maxInFlight: number;
  /** Retries per item. */
  retries: number;
  /** Retries in one session, as a share of its items. */
  retryBudget: number;
  timeoutS: number;
  maxTokens: number;
  format: "csv" | "parquet";
  /** Judge at most this many items now, then stop as on a signal; null: all. */
  limit: number | null;
  /** Judge every item again and replace the part (a journal in progress is dropped). */
  replace: boolean;
  /** The progress line on stderr. */
  progress: boolean;
  /** Aborting it stops the pass cleanly. */
  signal?: AbortSignal;
  /** Notes on stderr (the first failure of each kind); none when absent. */
  note?: (line: string) => void;
  /** The backoff before retry n, ms (tests). */
  backoffMs?: (n: number) => number;
}

/**
 * The options a pass takes unless told otherwise: the `judge` command's defaults (runner/judge/cli.ts declares its flags
 * from them), no key, every item, no progress line. Scripts that judge a run spread it and set the rest.
 */
export const JUDGE_RUN_DEFAULTS = {
  key: null,
  ratePerS: 2,
  maxInFlight: 16,
  retries: 2,
  retryBudget: 0.2,
  timeoutS: 120,
  maxTokens: 512,
  format: "csv",
  limit: null,
  replace: false,
  progress: false,
} as const satisfies Omit<JudgeRunOptions, "runDir" | "target" | "model">;

/** How a pass ended. */
export interface JudgeRunResult {
  /** `done`: the part is written; `stopped`: a stop signal; `limit`: `limit` items judged, others left. */
  status: "done" | "stopped" | "limit";
  items: number;
  /** Items with a verdict so far. */
  judged: number;
  /** Items tried without a verdict (done: in the part's details). */
  unjudged: number;
  /** The journal (removed when done). */
  journal: string;
  /** The part written, or null. */
  part: string | null;
  /** The part's details, when written. */
  details: Record<string, unknown> | null;
}

/** Runs one judge pass. Bad input is an {@linkcode InputError} thrown before any call. */
export async function runJudge(o: JudgeRunOptions): Promise<JudgeRunResult> {
  const modelProblem = judgeModelProblem(o.model);
  if (modelProblem) throw new InputError(`--model: ${modelProblem}`);
  const url = chatUrl(o.target);
  const allow = new NetAllowList([url]);
  const target = `${url.protocol}//${hostPort(url)}`;
  const inputs = await loadJudgeInputs(o.runDir, o.workload === undefined ? {} : { workload: o.workload });
  if (inputs.truncatedLine !== null) {
    o.note?.(`judge: outputs.jsonl line ${inputs.truncatedLine} is cut short (the run was killed): skipped`);
  }
  const partFile = judgePartFile(o.model, o.format);
  const quality = await readQualityManifest(o.runDir);
  const stem = partFile.replace(/\.(csv|parquet)$/, "");
  const existing = quality?.parts.find((p) => p.file.replace(/\.(csv|parquet)$/, "") === stem);
  if (existing && !o.replace) {
    throw new InputError(
      `${join(o.runDir, QUALITY_DIR, existing.file)}: this run is already judged by ${
        existing.details.model ?? stem
      } ` +
        `(${existing.rows} verdicts, ${existing.created_iso}); --replace judges every item again and replaces it`,
    );
  }
  if (existing && existing.file !== partFile) {
    throw new InputError(
      `--format ${o.format}: the part to replace is ${existing.file}: give --format ${existing.format}`,
    );
  }
  await Deno.mkdir(join(o.runDir, QUALITY_DIR), { recursive: true });
  const journalPath = join(o.runDir, QUALITY_DIR, judgeJournalFile(o.model));
  if (o.replace) {
    await Deno.remove(journalPath).catch((e) => {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    });
  }
  const journal = await Journal.open(journalPath, { model: o.model, runId: inputs.runId });
  const done = journal.judged();
  const pending = inputs.items.filter((i) => !done.has(i.request_id));
  const session = o.limit === null ? pending : pending.slice(0, o.limit);

  const stop = new AbortController();
  const onStop = () => stop.abort();
  o.signal?.addEventListener("abort", onStop, { once: true });
  if (o.signal?.aborted) stop.abort();
  let finished = 0, unjudged = 0, failedCalls = 0, inFlight = 0;
  const seenFailures = new Set<string>();
  const started = performance.now();
  const line = o.progress ? stderrLine(5) : null;
  const progress = () =>
    judgeProgressLine({
      total: inputs.items.length,
      judged: done.size + finished - unjudged,
      unjudged,
      left: session.length - finished,
      inFlight,
      failedCalls,
      finished,
      elapsedS: (performance.now() - started) / 1000,
    });
  const timer = line ? setInterval(() => line.write(progress()), 1000) : undefined;
  try {
    if (session.length) {
      journal.append({
        type: "session",
        model: o.model,
        run_id: inputs.runId,
        target,
        started_iso: new Date().toISOString(),
        rate_per_s: o.ratePerS,
        max_in_flight: o.maxInFlight,
        retries: o.retries,
        retry_budget: o.retryBudget,
        max_tokens: o.maxTokens,
        timeout_s: o.timeoutS,
        items: session.length,
      });
    }
    const ctx: JudgeItemContext = {
      url,
      allow,
      key: o.key,
      model: o.model,
      maxTokens: o.maxTokens,
      timeoutMs: o.timeoutS * 1000,
      retries: o.retries,
      budget: new RetryBudget(o.retryBudget, session.length),
      signal: stop.signal,
      ...(o.backoffMs ? { backoffMs: o.backoffMs } : {}),
      onCall: (r) => {
        if (r.failure === null || r.failure === "stopped") return;
        failedCalls++;
        if (!seenFailures.has(r.failure)) {
          seenFailures.add(r.failure);
          o.note?.(`judge: first ${r.failure}${r.detail ? `: ${r.detail.replace(/\s+/g, " ")}` : ""}`);
        }
      },
    };
    const slots: (() => void)[] = [];
    const tasks: Promise<void>[] = [];
    // When the loop last got a slot it had waited for: an item due before then came while every slot was taken, even
    // when two slots freed at once and it found one free when the loop reached it.
    let freedAt = -Infinity;
    for (let i = 0; i < session.length && !stop.signal.aborted; i++) {
      const item = session[i]!;
      const due = started + (i / o.ratePerS) * 1000;
      if (!(await pause(due - performance.now(), stop.signal))) break;
      let waited = due < freedAt;
      let blocked = false;
      while (inFlight >= o.maxInFlight && !stop.signal.aborted) {
        blocked = true;
        await new Promise<void>((resolve) => {
          slots.push(resolve);
          stop.signal.addEventListener("abort", () => resolve(), { once: true });
        });
      }
      if (stop.signal.aborted) break;
      if (blocked) {
        waited = true;
        freedAt = performance.now();
      }
      const lag = Math.max(0, performance.now() - due);
      inFlight++;
      tasks.push(
        judgeItem(item, ctx).then((r) => {
          journal.append({
            type: "item",
            request_id: item.request_id,
            rubric_id: item.rubric.rubric_id,
            rubric_sha256: item.rubric.sha256,
            calls: r.calls,
            start_lag_ms: Math.round(lag * 10) / 10,
            waited_for_slot: waited,
            verdict: r.verdict,
            reason: r.reason,
          });
          finished++;
          if (!r.verdict) unjudged++;
        }).finally(() => {
          inFlight--;
          slots.shift()?.();
        }),
      );
    }
    await Promise.all(tasks);
  } finally {
    clearInterval(timer);
    o.signal?.removeEventListener("abort", onStop);
    if (line) line.end(progress());
  }
  const stopped = stop.signal.aborted;
  const complete = !stopped && session.length === pending.length;
  if (session.length) journal.append({ type: "end", ended_iso: new Date().toISOString(), stopped: !complete });
  const judged = journal.judged().size;
  if (!complete) {
    return {
      status: stopped ? "stopped" : "limit",
      items: inputs.items.length,
      judged,
      unjudged: unjudgedNow(journal, judged),
      journal: journalPath,
      part: null,
      details: null,
    };
  }
  const folded = foldJudgeJournal(journal.entries, inputs.items, { runId: inputs.runId, model: o.model });
  await writeQualityPart(o.runDir, folded.rows, {
    file: partFile,
    written_by: "judge",
    details: folded.details,
    rubrics: inputs.rubrics,
  });
  journal.remove();
  return {
    status: "done",
    items: inputs.items.length,
    judged: folded.rows.length,
    unjudged: inputs.items.length - folded.rows.length,
    journal: journalPath,
    part: join(o.runDir, QUALITY_DIR, partFile),
    details: folded.details,
  };
}

/** Items tried without a verdict so far. */
function unjudgedNow(journal: Journal, judged: number): number {
  const tried = new Set<string>();
  for (const e of journal.entries) if (e.type === "item") tried.add(e.request_id);
  return tried.size - judged;
}
