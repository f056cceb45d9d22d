/**
 * The judge's journal: a hidden JSON-lines file in `RUN/quality/` (`.judge-<model-slug>.jsonl`) to which every
 * item's calls and verdict are appended as they end, one whole line per write. A stopped judge leaves it; the next
 * one with the same model reads it, skips the items it holds a verdict for and appends. When every item has been
 * tried, the part file is written from it and it is removed. The quality reader refuses it while it is there (an
 * unlisted file: "a writer stopped before it finished").
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";

/** One call of an item, as journaled. */
export const JournalCall = z.object({
  ms: z.number().nonnegative(),
  /** null: a verdict; else the failure (`http_429`, `timeout`, `reply_not_json`, …). */
  failure: z.string().nullable(),
  /** A 2xx answer arrived (its tokens are the reply's usage; null: it carried none). */
  reply: z.boolean(),
  input_tokens: z.number().int().nonnegative().nullable(),
  output_tokens: z.number().int().nonnegative().nullable(),
}).strict();
export type JournalCall = z.infer<typeof JournalCall>;

/** The start of one judge session: who judged, where, at which rate. */
export const JournalSession = z.object({
  type: z.literal("session"),
  model: z.string().min(1),
  run_id: z.string().min(1),
  /** `scheme://host:port` of the endpoint. */
  target: z.string().min(1),
  started_iso: z.string().datetime(),
  rate_per_s: z.number().positive(),
  max_in_flight: z.number().int().positive(),
  retries: z.number().int().nonnegative(),
  retry_budget: z.number().nonnegative(),
  max_tokens: z.number().int().positive(),
  timeout_s: z.number().positive(),
  /** Items this session set out to judge. */
  items: z.number().int().nonnegative(),
}).strict();
export type JournalSession = z.infer<typeof JournalSession>;

/** One item's calls in one session, and its verdict (or why it has none). */
export const JournalItem = z.object({
  type: z.literal("item"),
  request_id: z.string().min(1),
  rubric_id: z.string().min(1),
  rubric_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  calls: z.array(JournalCall),
  /** How long after its scheduled time the item's first call went out, ms. */
  start_lag_ms: z.number().nonnegative(),
  /** Its time came while every slot was taken (`--max-in-flight`): it waited for one, or for the pass that did. */
  waited_for_slot: z.boolean(),
  verdict: z.object({
    scores: z.record(z.string(), z.number().int()),
    pass: z.boolean(),
    rationale: z.string(),
    judged_epoch_ms: z.number(),
  }).strict().nullable(),
  /** Why there is no verdict (the last call's failure, `retries_spent`, `retry_budget_spent`, `stopped`); null with one. */
  reason: z.string().nullable(),
}).strict();
export type JournalItem = z.infer<typeof JournalItem>;

/** The end of one session. */
export const JournalEnd = z.object({
  type: z.literal("end"),
  ended_iso: z.string().datetime(),
  /** A stop signal (or `--limit`) ended it before every item was tried. */
  stopped: z.boolean(),
}).strict();
export type JournalEnd = z.infer<typeof JournalEnd>;

export const JournalEntry = z.discriminatedUnion("type", [JournalSession, JournalItem, JournalEnd]);
export type JournalEntry = z.infer<typeof JournalEntry>;

/** An open journal: the entries read at open, and an appender. */
export class Journal {
  readonly path: string;
  /** Every entry, those read at open and those appended since. */
  readonly entries: JournalEntry[];
  readonly #enc = new TextEncoder();

  private constructor(path: string, entries: JournalEntry[]) {
    this.path = path;
    this.entries = entries;
  }

  /**
   * Opens the journal at `path` (made when missing). An existing one must be of `model` and `runId`; a last line cut
   * short (the judge was killed while writing it) is dropped from the file; any other bad line is an
   * {@linkcode InputError} naming it.
   *
   * @example Appended lines are read back by the next open
   * ```ts
   * import { Journal } from "./journal.ts";
   * import assert from "node:assert/strict";
   * const path = `${Deno.makeTempDirSync()}/.judge-m.jsonl`;
   * const j = await Journal.open(path, { model: "m", runId: "r" });
   * j.append({ type: "end", ended_iso: new Date(0).toISOString(), stopped: true });
   * Deno.writeTextFileSync(path, '{"type":"en', { append: true });
   * const again = await Journal.open(path, { model: "m", runId: "r" });
   * assert.deepEqual(again.entries.map((e) => e.type), ["end"]);
   * assert.ok(Deno.readTextFileSync(path).endsWith("}\n"));
   * ```
   */
  static async open(path: string, expect: { model: string; runId: string }): Promise<Journal> {
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
      return new Journal(path, []);
    }
    const lines = text.split("\n");
    const tail = lines.pop()!;
    if (tail !== "") {
      await Deno.truncate(path, new TextEncoder().encode(text).length - new TextEncoder().encode(tail).length);
    }
    const entries: JournalEntry[] = [];
    const problems: string[] = [];
    lines.forEach((line, i) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        problems.push(`${path}: line ${i + 1}: not JSON: ${(e as Error).message}`);
        return;
      }
      const parsed = JournalEntry.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        problems.push(`${path}: line ${i + 1}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
        return;
      }
      const e = parsed.data;
      if (e.type === "session" && (e.model !== expect.model || e.run_id !== expect.runId)) {
        problems.push(
          `${path}: line ${i + 1}: a session of model "${e.model}" on run ${e.run_id}, not of "${expect.model}" on ` +
            `run ${expect.runId}`,
        );
      }
      entries.push(e);
    });
    if (problems.length) {
      throw new InputError(
        `${path}: cannot resume from this journal (remove it to judge every item again)`,
        problems.slice(0, 20),
      );
    }
    return new Journal(path, entries);
  }

  /** Appends one entry as one whole line (written at once, so that a stop keeps every entry appended before it). */
  append(entry: JournalEntry): void {
    const line = this.#enc.encode(JSON.stringify(JournalEntry.parse(entry)) + "\n");
    using f = Deno.openSync(this.path, { append: true, create: true });
    let at = 0;
    while (at < line.length) at += f.writeSync(line.subarray(at));
    this.entries.push(entry);
  }

  /** The request ids that have a verdict. */
  judged(): Set<string> {
    const out = new Set<string>();
    for (const e of this.entries) if (e.type === "item" && e.verdict) out.add(e.request_id);
    return out;
  }

  /** Removes the file (after the part is written). */
  remove(): void {
    try {
      Deno.removeSync(this.path);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }
}
