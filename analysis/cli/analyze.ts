import { parseArgs } from "node:util";
import { EXIT_BAD_INPUT, InputError } from "../../schema/errors.ts";
import { formatGoodput } from "../format_goodput.ts";
import { goodput } from "../goodput.ts";
import { loadRun } from "../load_run.ts";
import { loadSloPolicy } from "../policy.ts";

const USAGE =
  "usage: deno task analyze RUN [--slo FILE] [--denominator offered|sent|completed] [--json] [--verify warn]";

/** Workloads whose SLO policy ships in data/slo/. */
const DEFAULT_POLICIES: Record<string, URL> = {
  "design-v1": new URL("../../data/slo/design-v1.json", import.meta.url),
};

async function main(args: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        slo: { type: "string" },
        denominator: { type: "string" },
        json: { type: "boolean", default: false },
        verify: { type: "string" },
      },
    });
  } catch (e) {
    throw new InputError(`${(e as Error).message}\n${USAGE}`);
  }
  const { values: v, positionals } = parsed;
  if (positionals.length !== 1) throw new InputError(`expected one RUN folder, got ${positionals.length}\n${USAGE}`);
  if (v.verify !== undefined && v.verify !== "warn" && v.verify !== "strict") {
    throw new InputError(`--verify: expected warn or strict, got "${v.verify}"`);
  }
  const den = v.denominator;
  if (den !== undefined && den !== "offered" && den !== "sent" && den !== "completed") {
    throw new InputError(`--denominator: expected offered, sent or completed, got "${den}"`);
  }
  const run = await loadRun(positionals[0]!, { verify: v.verify as "warn" | "strict" | undefined });
  let sloFile = v.slo;
  if (sloFile === undefined) {
    const known = DEFAULT_POLICIES[run.manifest.workload.name];
    if (!known) {
      throw new InputError(
        `an SLO policy is required: workload "${run.manifest.workload.name}" has no default policy in data/slo/; pass --slo FILE`,
      );
    }
    sloFile = known.pathname;
  }
  const policy = await loadSloPolicy(sloFile);
  const result = goodput(run, den ? { ...policy, denominator: den } : policy);
  if (v.json) {
    const { disclosure, overall, by_class, by_stage } = result;
    console.log(
      JSON.stringify({ disclosure: { ...disclosure, slo_file: sloFile }, overall, by_class, by_stage }, null, 2),
    );
  } else {
    console.log(`SLO policy: ${sloFile}${den ? ` (denominator overridden by --denominator ${den})` : ""}`);
    console.log(formatGoodput(result));
  }
}

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (e) {
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    Deno.exit(e instanceof InputError ? EXIT_BAD_INPUT : 1);
  }
}
