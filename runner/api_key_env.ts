/**
 * `--api-key-env` (and a routes file's `api_key_env`) names the environment variable that holds a key; run.json
 * records that name. A value that is the key itself would be written there verbatim, so it is refused before any
 * work, and never echoed.
 *
 * @module
 */

/** A variable name: letters, digits and `_`, not starting with a digit, at most 128 characters. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * Why `name` cannot be the name of an environment variable holding a key, or null when it can. A name is refused
 * when it is not a variable name (a key has `-`, `.`, `/`, `+` or `=` in it, or starts with a digit), or when it
 * looks like a key of letters and digits only: 20 characters or more, lower-case letters and digits mixed (names
 * are written in capitals by convention), and no such variable set. The value is never part of the answer.
 *
 * @example
 * ```ts
 * import { keyEnvProblem } from "./api_key_env.ts";
 * import assert from "node:assert/strict";
 * assert.equal(keyEnvProblem("OPENAI_API_KEY", () => undefined), null);
 * assert.match(keyEnvProblem("sk-proj-abc123", () => undefined)!, /not an environment variable name/);
 * assert.match(keyEnvProblem("AIzaSyD4x9f0Qm2LkP7vR8tW1", () => undefined)!, /looks like a key/);
 * ```
 */
export function keyEnvProblem(name: string, env: (name: string) => string | undefined): string | null {
  const what = `the value given (${name.length} characters, not shown)`;
  if (!NAME.test(name)) {
    return `${what} is not an environment variable name (letters, digits and _, not starting with a digit, at ` +
      `most 128): give the name of the variable that holds the key, never the key`;
  }
  if (name.length >= 20 && /[a-z]/.test(name) && /[0-9]/.test(name) && env(name) === undefined) {
    return `${what} looks like a key, not the name of a variable that holds one (no such variable is set): give ` +
      `the variable's name, never the key`;
  }
  return null;
}
