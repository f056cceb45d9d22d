/**
 * The input check every CLI reports with ({@linkcode InputCheck}) and the
 * ranges of numeric flags ({@linkcode NumberRule}). A command's flags are
 * declared, parsed and described in lib/command.ts.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { InputError } from "../schema/errors.ts";
import { runNameProblem } from "../schema/run_name.ts";

/** The range of a numeric flag. */
export interface NumberRule {
  /** Smallest allowed value (inclusive). */
  min?: number;
  /** The value must be strictly above this. */
  above?: number;
  /** Largest allowed value (inclusive). */
  max?: number;
  /** The value must be strictly below this. */
  below?: number;
  integer?: boolean;
}

/**
 * A numeric flag's range in words, as its error message and the flag table
 * state it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeRule } from "./cli.ts";
 * assert.equal(describeRule({ min: 1, integer: true }), "an integer ≥ 1");
 * assert.equal(describeRule({ min: 0, below: 1 }), "a number in [0, 1)");
 * ```
 */
export function describeRule(rule: NumberRule): string {
  const lower = rule.min !== undefined ? `[${rule.min}` : rule.above !== undefined ? `(${rule.above}` : null;
  const upper = rule.max !== undefined ? `${rule.max}]` : rule.below !== undefined ? `${rule.below})` : null;
  const bound = lower !== null && upper !== null
    ? `in ${lower}, ${upper}`
    : lower !== null
    ? `${lower[0] === "[" ? "≥" : ">"} ${lower.slice(1)}`
    : upper !== null
    ? `${upper.endsWith("]") ? "≤" : "<"} ${upper.slice(0, -1)}`
    : "";
  return `${rule.integer ? "an integer" : "a number"}${bound ? ` ${bound}` : ""}`;
}

/**
 * Input problems gathered before any work starts — every flag, then every
 * file — so that every problem is named at once ({@linkcode InputCheck.throwIfAny}:
 * one InputError, one line per problem, exit 2). A file is loaded through
 * {@linkcode InputCheck.load}: its InputError becomes problems here instead
 * of ending the check at the first bad file.
 *
 * @example Two bad flags, one message
 * ```ts
 * import assert from "node:assert/strict";
 * import { InputCheck } from "./cli.ts";
 * const check = new InputCheck();
 * check.number("seed", "1.5", { min: 0, integer: true });
 * check.oneOf("format", "xml", ["csv", "parquet"]);
 * assert.throws(() => check.throwIfAny(), (e: Error) =>
 *   e.message.includes('--seed: expected an integer ≥ 0, got "1.5"') &&
 *   e.message.includes('--format: expected csv or parquet, got "xml"'));
 * ```
 */
export class InputCheck {
  readonly problems: string[] = [];

  /**
   * A numeric flag: absent → undefined; anything but a finite number in range is a problem, and so is an integer
   * beyond the safe integers (it would not be the number typed).
   */
  number(name: string, v: string | undefined, rule: NumberRule): number | undefined {
    if (v === undefined) return undefined;
    const n = v.trim() === "" ? NaN : Number(v);
    const ok = Number.isFinite(n) && (rule.min === undefined || n >= rule.min) &&
      (rule.above === undefined || n > rule.above) && (rule.max === undefined || n <= rule.max) &&
      (rule.below === undefined || n < rule.below) && (!rule.integer || Number.isInteger(n));
    if (ok && rule.integer && !Number.isSafeInteger(n)) {
      this.problems.push(`--${name}: expected at most ${Number.MAX_SAFE_INTEGER}, got ${JSON.stringify(v)}`);
      return undefined;
    }
    if (ok) return n;
    this.problems.push(`--${name}: expected ${describeRule(rule)}, got ${JSON.stringify(v)}`);
    return undefined;
  }

  /** A flag with a fixed set of values: absent → undefined. */
  oneOf<T extends string>(name: string, v: string | undefined, choices: readonly T[]): T | undefined {
    if (v === undefined) return undefined;
    if ((choices as readonly string[]).includes(v)) return v as T;
    const list = choices.length > 1 ? `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}` : choices[0];
    this.problems.push(`--${name}: expected ${list}, got ${JSON.stringify(v)}`);
    return undefined;
  }

  /** `--shard i/N`. */
  shard(v: string | undefined): { index: number; count: number } | undefined {
    if (v === undefined) return undefined;
    const m = /^(\d+)\/(\d+)$/.exec(v.trim());
    const index = Number(m?.[1]);
    const count = Number(m?.[2]);
    if (m && count >= 1 && index < count) return { index, count };
    this.problems.push(`--shard: expected i/N with 0 ≤ i < N, got ${JSON.stringify(v)}`);
    return undefined;
  }

  /** A run id (schema/run_name.ts): one folder name under `--out`. */
  runName(name: string, v: string | undefined): string | undefined {
    if (v === undefined) return undefined;
    const problem = runNameProblem(v);
    if (problem === null) return v;
    this.problems.push(`--${name}: ${problem}`);
    return undefined;
  }

  /** An output file's folder must exist: checked before the work, so that a long run does not end unwritten. */
  outputFolder(name: string, file: string | undefined): void {
    if (file === undefined) return;
    const dir = dirname(file);
    let ok = false;
    try {
      ok = Deno.statSync(dir).isDirectory;
    } catch {
      ok = false;
    }
    this.require(!ok, `--${name} ${file}: the folder ${dir} does not exist`);
  }

  /**
   * An output folder (made if missing) must be writable: a probe file is
   * created, written and removed in it — or, when it does not exist yet, in its
   * nearest existing ancestor, so that nothing is left behind. Checked with the
   * flags, before any target is contacted.
   */
  writableFolder(name: string, dir: string | undefined): void {
    if (dir === undefined) return;
    let at = resolve(dir);
    for (;;) {
      let stat: Deno.FileInfo | null = null;
      try {
        stat = Deno.statSync(at);
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory)) {
          this.problems.push(`--${name} ${dir}: ${at} cannot be read: ${(e as Error).message}`);
          return;
        }
      }
      if (stat && !stat.isDirectory) {
        this.problems.push(`--${name} ${dir}: ${at} is not a folder`);
        return;
      }
      if (stat) break;
      const up = dirname(at);
      if (up === at) break;
      at = up;
    }
    const probe = join(at, `.goodput-write-probe-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`);
    let made = false;
    try {
      const f = Deno.openSync(probe, { write: true, createNew: true });
      made = true;
      try {
        f.writeSync(new TextEncoder().encode("probe\n"));
      } finally {
        f.close();
      }
    } catch (e) {
      this.problems.push(
        `--${name} ${dir}: cannot write in ${at} (${(e as Error).message.split(":")[0]}): no run could be written`,
      );
    } finally {
      if (made) Deno.removeSync(probe);
    }
  }

  /** Records a problem when `bad`. */
  require(bad: boolean, problem: string): void {
    if (bad) this.problems.push(problem);
  }

  /** Records an InputError's problems (its first line, then each problem indented under it). */
  add(e: InputError): void {
    const [head, ...rest] = e.message.split("\n");
    this.problems.push(head!, ...rest.map((l) => `  ${l.trim()}`));
  }

  /**
   * Runs a loader (or check); an InputError it throws is recorded and
   * undefined returned, any other error is rethrown.
   */
  async load<T>(loader: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await loader();
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      this.add(e);
      return undefined;
    }
  }

  /** Throws one InputError naming every problem. */
  throwIfAny(): void {
    if (!this.problems.length) return;
    const n = this.problems.filter((p) => !p.startsWith(" ")).length;
    throw new InputError(`invalid input (${n} problem${n === 1 ? "" : "s"}):`, [...this.problems]);
  }
}
