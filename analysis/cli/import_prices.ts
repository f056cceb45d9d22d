import { InputError } from "../../schema/errors.ts";
import { parseFlags, runMain } from "../../schema/cli.ts";
import { importLitellm } from "../import_litellm.ts";

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
  const missing = (["litellm", "model", "as-of"] as const).filter((k) => v[k] === undefined);
  if (missing.length) throw new InputError(`missing ${missing.map((k) => `--${k}`).join(", ")}\n${USAGE}`);
  const file = v.litellm!;
  let map: unknown;
  try {
    map = JSON.parse(await Deno.readTextFile(file));
  } catch (e) {
    throw new InputError(`${file}: cannot read the LiteLLM price map: ${(e as Error).message}`, [], { cause: e });
  }
  if (typeof map !== "object" || map === null || Array.isArray(map)) {
    throw new InputError(`${file}: expected a JSON object of model → prices`);
  }
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
