import { parseArgs, type ParseArgsConfig } from "node:util";
import { EXIT_BAD_INPUT, InputError } from "../../schema/errors.ts";

/** Parses flags; unknown flags and missing values are input errors naming the flag. */
export function parseFlags<T extends ParseArgsConfig["options"]>(args: string[], options: T, usage: string) {
  try {
    return parseArgs({ args, options, allowPositionals: false, strict: true });
  } catch (e) {
    throw new InputError(`${(e as Error).message}\n${usage}`);
  }
}

/** A numeric flag: absent → undefined; anything but a finite number in range → InputError. */
export function numberFlag(name: string, v: string | undefined, min = -Infinity): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) throw new InputError(`--${name}: expected a number ≥ ${min}, got "${v}"`);
  return n;
}

/** `--shard i/N`. */
export function shardFlag(v: string | undefined): { index: number; count: number } | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(v);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index >= count) throw new InputError(`--shard: expected i/N with 0 ≤ i < N, got "${v}"`);
  return { index, count };
}

/** Runs a CLI main: input errors print their message and exit 2, never a stack trace. */
export async function runMain(main: () => Promise<number | void>): Promise<never> {
  try {
    Deno.exit((await main()) ?? 0);
  } catch (e) {
    if (e instanceof InputError) {
      console.error(`error: ${e.message}`);
      Deno.exit(EXIT_BAD_INPUT);
    }
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    Deno.exit(1);
  }
}
