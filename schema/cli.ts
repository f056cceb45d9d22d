import { parseArgs, type ParseArgsConfig } from "node:util";
import { EXIT_BAD_INPUT, InputError } from "./errors.ts";

/**
 * Parses flags (and positionals when `positionals` is set); unknown flags and
 * missing values are input errors naming the flag, followed by the usage.
 */
export function parseFlags<T extends ParseArgsConfig["options"]>(
  args: string[],
  options: T,
  usage: string,
  parse: { positionals?: boolean } = {},
) {
  try {
    return parseArgs({ args, options, allowPositionals: parse.positionals ?? false, strict: true });
  } catch (e) {
    throw new InputError(`${(e as Error).message}\n${usage}`);
  }
}

/** Runs a CLI main: input errors print their message and exit 2, other errors exit 1; never a stack trace. */
export async function runMain(main: () => Promise<number | void>): Promise<never> {
  try {
    Deno.exit((await main()) ?? 0);
  } catch (e) {
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    Deno.exit(e instanceof InputError ? EXIT_BAD_INPUT : 1);
  }
}
