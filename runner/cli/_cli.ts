/** The runner CLIs' flag parsing, checks and main wrapper: the shared machinery of lib/cli.ts. */
export { InputCheck, type NumberRule, parseFlags, runMain } from "../../lib/cli.ts";
