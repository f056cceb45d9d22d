/** The runner CLIs' flag parsing, checks and main wrapper: the shared machinery of schema/cli.ts. */
export { InputCheck, type NumberRule, parseFlags, runMain } from "../../schema/cli.ts";
