/**
 * `npx deno run -A analysis/cli/import_prices.ts --litellm FILE --model KEY --as-of YYYY-MM-DD [flags]`: a price
 * sheet (schema/prices.ts) from one model of the LiteLLM price map. Its flags: {@linkcode IMPORT_PRICES_COMMAND}.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../../lib/command.ts";
import { importLitellm } from "../cost/import_litellm.ts";

/** The tiers the LiteLLM map prices. */
const TIERS = ["standard", "batch", "priority", "flex"] as const;

/** `import_prices`: its flags and help (lib/command.ts). */
export const IMPORT_PRICES_COMMAND = {
  name: "import_prices",
  invocation: "npx deno run -A analysis/cli/import_prices.ts",
  summary: "a price sheet for `--prices` from one model of the LiteLLM price map",
  details: [
    "The map is LiteLLM's `model_prices_and_context_window.json` (github.com/BerriAI/litellm), saved by you; it " +
    "carries no date, so `--as-of` states the day of the copy. The sheet lists the fields it used and the charge " +
    "terms it assumed (docs/cost.md).",
  ],
  flags: {
    litellm: { type: "string", arg: "FILE", required: true, description: "the LiteLLM price map (JSON)" },
    model: { type: "string", arg: "KEY", required: true, description: "the model's key in the map" },
    "as-of": {
      type: "string",
      arg: "DATE",
      required: true,
      values: "a date YYYY-MM-DD",
      description: "the day the map was copied; every ledger prints it",
    },
    route: {
      type: "string",
      arg: "NAME",
      default: "*",
      description: "the route the sheet prices (`*`: every route)",
    },
    tier: { type: "string", arg: "TIER", choices: TIERS, default: "standard", description: "the service tier billed" },
    out: {
      type: "string",
      arg: "FILE",
      defaultText: "stdout",
      description: "where the sheet is written (its folder must exist)",
    },
  },
  examples: [
    "npx deno run -A analysis/cli/import_prices.ts --litellm model_prices_and_context_window.json " +
    "--model gpt-4o-mini --as-of 2026-07-24 --out gpt-4o-mini.json",
  ],
} as const satisfies CommandSpec;

async function main({ values: v, check }: ParsedCommand<typeof IMPORT_PRICES_COMMAND>): Promise<void> {
  // Every flag and the price map: all problems named at once.
  const asOf = v["as-of"];
  check.require(
    asOf !== undefined && !(/^\d{4}-\d{2}-\d{2}$/.test(asOf) && !Number.isNaN(Date.parse(asOf))),
    `--as-of: expected a date YYYY-MM-DD, got ${JSON.stringify(asOf)}`,
  );
  check.outputFolder("out", v.out);
  const file = v.litellm!;
  const map = v.litellm === undefined ? undefined : await check.load(async () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await Deno.readTextFile(file));
    } catch (e) {
      throw new InputError(`${file}: cannot read the LiteLLM price map: ${(e as Error).message}`, [], { cause: e });
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new InputError(`${file}: expected a JSON object of model → prices`);
    }
    return parsed;
  });
  check.throwIfAny();
  const sheet = importLitellm(map as Record<string, unknown>, v.model!, {
    as_of: v["as-of"]!,
    file,
    route: v.route,
    service_tier: v.tier,
  });
  const text = JSON.stringify(sheet, null, 2) + "\n";
  if (v.out === undefined) {
    console.log(text.trimEnd());
    return;
  }
  await Deno.writeTextFile(v.out, text);
  console.error(`wrote ${v.out} (${sheet.name}, as of ${sheet.as_of})`);
}

if (import.meta.main) await runCommand(IMPORT_PRICES_COMMAND, main);
