import { InputError } from "../../schema/errors.ts";
import { InputCheck, parseFlags, runMain } from "../../lib/cli.ts";
import { importLitellm } from "../cost/import_litellm.ts";

const USAGE =
  "usage: deno run -A analysis/cli/import_prices.ts --litellm FILE --model KEY --as-of YYYY-MM-DD [--route NAME] [--tier standard|batch|priority|flex] [--out FILE]";

async function main(args: string[]): Promise<void> {
  const { values: v } = parseFlags(args, {
    litellm: { type: "string" },
    model: { type: "string" },
    "as-of": { type: "string" },
    route: { type: "string" },
    tier: { type: "string" },
    out: { type: "string" },
  }, USAGE);
  // Every flag and the price map: all problems named at once.
  const check = new InputCheck();
  for (const k of ["litellm", "model", "as-of"] as const) check.require(v[k] === undefined, `--${k} is required`);
  const asOf = v["as-of"];
  check.require(
    asOf !== undefined && !(/^\d{4}-\d{2}-\d{2}$/.test(asOf) && !Number.isNaN(Date.parse(asOf))),
    `--as-of: expected a date YYYY-MM-DD, got ${JSON.stringify(asOf)}`,
  );
  check.oneOf("tier", v.tier, ["standard", "batch", "priority", "flex"]);
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
  check.throwIfAny(USAGE);
  const sheet = importLitellm(map as Record<string, unknown>, v.model!, {
    as_of: v["as-of"]!,
    file,
    ...(v.route !== undefined ? { route: v.route } : {}),
    ...(v.tier !== undefined ? { service_tier: v.tier } : {}),
  });
  const text = JSON.stringify(sheet, null, 2) + "\n";
  if (v.out === undefined) {
    console.log(text.trimEnd());
    return;
  }
  await Deno.writeTextFile(v.out, text);
  console.error(`wrote ${v.out} (${sheet.name}, as of ${sheet.as_of})`);
}

if (import.meta.main) await runMain(() => main(Deno.args));
