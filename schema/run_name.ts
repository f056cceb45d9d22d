import { z } from "zod";

/** Longest run id or plan name. */
export const RUN_NAME_MAX = 128;

/**
 * A run id (`--run-id`) or plan `name`: it becomes a folder name under `--out`, so it is one path component that
 * cannot climb out of it. 1–128 characters from `A–Z a–z 0–9 . _ -`, not starting with `.` (so never `.` or `..`,
 * never hidden); no path separator, space or control character.
 *
 * @example A plain name passes; a path or a newline is refused
 * ```ts
 * import { RunName } from "./run_name.ts";
 * import assert from "node:assert/strict";
 * assert.ok(RunName.safeParse("sweep-01_b.2").success);
 * assert.ok(!RunName.safeParse("../../x").success);
 * assert.ok(!RunName.safeParse("a\nb").success);
 * ```
 */
export const RunName = z.string().min(1).max(RUN_NAME_MAX).regex(
  /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/,
  "expected 1–128 characters from A–Z a–z 0–9 . _ - not starting with '.' (no path separator, space or control character)",
);

/** Why `value` is not a {@linkcode RunName} (null when it is one); control characters are shown escaped. */
export function runNameProblem(value: string): string | null {
  const r = RunName.safeParse(value);
  return r.success ? null : `${JSON.stringify(value)}: ${r.error.issues.map((i) => i.message).join("; ")}`;
}
