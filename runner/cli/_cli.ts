import { InputError } from "../../schema/errors.ts";
import { runNameProblem } from "../../schema/run_name.ts";

export { parseFlags, runMain } from "../../schema/cli.ts";

/** The range of a numeric flag. */
export interface NumberRule {
  /** Smallest allowed value (inclusive). */
  min?: number;
  /** The value must be strictly above this. */
  above?: number;
  integer?: boolean;
}

/**
 * Flag problems gathered before anything runs, so that every bad flag is named at once
 * ({@linkcode FlagCheck.throwIfAny}: one InputError, exit 2).
 */
export class FlagCheck {
  readonly problems: string[] = [];

  /** A numeric flag: absent → undefined; anything but a finite number in range is a problem. */
  number(name: string, v: string | undefined, rule: NumberRule): number | undefined {
    if (v === undefined) return undefined;
    const n = v.trim() === "" ? NaN : Number(v);
    const ok = Number.isFinite(n) && (rule.min === undefined || n >= rule.min) &&
      (rule.above === undefined || n > rule.above) && (!rule.integer || Number.isInteger(n));
    if (ok) return n;
    const range = [
      rule.integer ? "an integer" : "a number",
      rule.min !== undefined ? `≥ ${rule.min}` : "",
      rule.above !== undefined ? `> ${rule.above}` : "",
    ].filter(Boolean).join(" ");
    this.problems.push(`--${name}: expected ${range}, got ${JSON.stringify(v)}`);
    return undefined;
  }

  /** `--shard i/N`. */
  shard(v: string | undefined): { index: number; count: number } | undefined {
    if (v === undefined) return undefined;
    const m = /^(\d+)\/(\d+)$/.exec(v);
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

  /** Records a problem when `bad`. */
  require(bad: boolean, problem: string): void {
    if (bad) this.problems.push(problem);
  }

  /** Throws one InputError naming every problem (then the usage). */
  throwIfAny(usage: string): void {
    if (!this.problems.length) return;
    const e = new InputError("invalid flags:", this.problems);
    e.message += `\n${usage}`;
    throw e;
  }
}
