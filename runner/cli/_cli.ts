import { InputError } from "../../schema/errors.ts";

export { parseFlags, runMain } from "../../schema/cli.ts";

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
