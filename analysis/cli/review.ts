import { type CommandSpec, type ParsedCommand, runCommand } from "../../lib/command.ts";
import { textTable } from "../../lib/text_table.ts";
import { sig } from "../../lib/number_format.ts";
import type { SampleSizing } from "../quality/review/draw_sample.ts";
import { formatAgreement } from "../quality/review/agreement.ts";
import { importReview } from "../quality/review/import_review.ts";
import { RaterName, STRATUM_KEYS, type StratumKey } from "../quality/review/review_files.ts";
import { sampleReview } from "../quality/review/sample_review.ts";

const SAMPLE_ONLY = [
  "out",
  "per-stratum",
  "total",
  "half-width",
  "level",
  "min-per-stratum",
  "strata",
  "seed",
  "raters",
  "double-share",
  "classes",
  "workload",
] as const;
const IMPORT_ONLY = ["adjudication", "resamples"] as const;

/** `npx deno task review`: its flags, arguments and help (lib/command.ts). */
export const REVIEW_COMMAND = {
  name: "review",
  invocation: "npx deno task review",
  summary: "blinded human review: `sample` writes a stratified sample of answers as one offline page for raters; " +
    "`import` checks their ratings into the quality table, with agreement and disagreements",
  details: [
    "`review sample RUN… --out PACKET.html --raters a,b (--per-stratum N | --total N | --half-width W)` draws from " +
    "the answered requests that have a saved output (`--save-outputs`) and a rubric. The page works from disk with " +
    "no server and no network and hides route, model, latency, run and order; the key beside it " +
    "(`PACKET.key.json`) maps its opaque items back to runs and requests: keep it from the raters.",
    "`review import PACKET.key.json RATINGS.json… [--adjudication FILE]` refuses every bad file at once (exit 2) " +
    "and writes nothing then; else it writes `human:<rater>` verdicts (and `adjudicated:<who>` ones), prints the " +
    "agreement, and writes `PACKET.disagreements.json`, `.disagreements.md` and the adjudication template " +
    "`PACKET.adjudication.json` (docs/quality_review.md).",
  ],
  positionals: [
    { name: "ACTION", noun: "action", description: "`sample` or `import`", min: 1, max: 1 },
    {
      name: "FILE",
      noun: "file",
      description: "sample: the RUN folders to draw from (items keep their run); import: the packet's key, then " +
        "the ratings files the raters exported",
      min: 1,
    },
  ],
  flags: {
    out: {
      type: "string",
      arg: "FILE",
      defaultText: "required for sample",
      description: "sample: the page to write (`PACKET.html`); its key is written beside it as `PACKET.key.json`",
    },
    "per-stratum": {
      type: "number",
      arg: "N",
      rule: { min: 1, integer: true },
      defaultText: "one of --per-stratum, --total, --half-width is required for sample",
      description: "sample: N items from every stratum (all of a smaller one)",
    },
    total: {
      type: "number",
      arg: "N",
      rule: { min: 1, integer: true },
      defaultText: "see --per-stratum",
      description: "sample: N items in all, split in proportion to the strata (largest remainder)",
    },
    "half-width": {
      type: "number",
      arg: "W",
      rule: { above: 0, below: 1 },
      defaultText: "see --per-stratum",
      description: "sample: the total a ±W interval on the pass rate needs (at --level, worst case p = 0.5, with the " +
        "finite-population correction), split in proportion to the strata",
    },
    level: {
      type: "number",
      arg: "L",
      rule: { above: 0, below: 1 },
      defaultText: "0.95",
      description: "sample: the confidence level of --half-width",
    },
    "min-per-stratum": {
      type: "number",
      arg: "N",
      rule: { min: 0, integer: true },
      defaultText: "2",
      description: "sample: the fewest items a stratum gets from --total or --half-width (all of a smaller one)",
    },
    strata: {
      type: "string",
      arg: "KEYS",
      values: `a comma-separated list of ${STRATUM_KEYS.join(", ")}`,
      defaultText: "class,route,stage",
      description: "sample: what the sample is stratified by (`run`: each run folder's run_id)",
    },
    seed: {
      type: "number",
      arg: "S",
      rule: { min: 0, max: 4294967295, integer: true },
      defaultText: "1",
      description: "sample: the seed of every draw (sample, opaque ids, double-rated items, each rater's order); the " +
        "same runs and flags give the same packet",
    },
    raters: {
      type: "string",
      arg: "NAMES",
      defaultText: "required for sample",
      description: "sample: the raters, comma-separated (letters, digits, `_ . -`); each becomes the source " +
        "`human:<name>`",
    },
    "double-share": {
      type: "number",
      arg: "F",
      rule: { min: 0, max: 1 },
      defaultText: "0.25 (0 with one rater)",
      description: "sample: the share of items every rater rates, for agreement; the rest go to one rater each",
    },
    classes: {
      type: "string",
      arg: "LIST",
      defaultText: "every class with a rubric",
      description: "sample: only these classes, comma-separated (each must have a rubric)",
    },
    workload: {
      type: "string",
      arg: "DIR",
      defaultText: "each run's run.json `workload.path`",
      description: "sample: the workload the runs used (its sha256 must be theirs), for the prompts and rubrics",
    },
    adjudication: {
      type: "string",
      arg: "FILE",
      defaultText: "none",
      description: "import: a filled adjudication file; its settled items are written as `adjudicated:<who>`",
    },
    resamples: {
      type: "number",
      arg: "B",
      rule: { min: 0, integer: true },
      defaultText: "2000",
      description: "import: bootstrap resamples of the agreement intervals",
    },
  },
  examples: [
    "npx deno task review sample out/runs/design-hosted out/runs/design-selfhosted --out out/review/packet.html " +
    "--total 40 --raters ana,bo",
    "npx deno task review import out/review/packet.key.json ratings-ana.json ratings-bo.json",
    "npx deno task review import out/review/packet.key.json ratings-ana.json ratings-bo.json " +
    "--adjudication out/review/packet.adjudication.json",
  ],
} as const satisfies CommandSpec;

type Parsed = ParsedCommand<typeof REVIEW_COMMAND>;

async function main({ values: v, positionals, check }: Parsed): Promise<void> {
  const [action, ...files] = positionals;
  if (action !== undefined && action !== "sample" && action !== "import") {
    check.problems.push(`ACTION: expected sample or import, got ${JSON.stringify(action)}`);
  }
  const wrong = action === "sample" ? IMPORT_ONLY : action === "import" ? SAMPLE_ONLY : [];
  for (const f of wrong) {
    const given = v[f as keyof typeof v];
    if (given !== undefined) {
      check.problems.push(`--${f} is a flag of \`review ${action === "sample" ? "import" : "sample"}\``);
    }
  }
  if (action === "import") return await runImport(v, files, check);
  if (action === "sample") return await runSample(v, files, check);
  check.throwIfAny();
}

async function runSample(v: Parsed["values"], runs: string[], check: Parsed["check"]): Promise<void> {
  check.require(v.out === undefined, "--out FILE is required: the page to write");
  check.require(v.out !== undefined && !/\.html?$/i.test(v.out), `--out ${v.out}: the page's name ends in .html`);
  check.outputFolder("out", v.out);
  check.require(v.raters === undefined, "--raters NAMES is required: who rates the packet");
  const raters = (v.raters ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  for (const r of raters) {
    const ok = RaterName.safeParse(r);
    if (!ok.success) check.problems.push(`--raters: ${JSON.stringify(r)}: ${ok.error.issues[0]!.message}`);
  }
  check.require(new Set(raters).size !== raters.length, `--raters: a name is given twice`);
  const strata = (v.strata ?? "class,route,stage").split(",").map((s) => s.trim());
  for (const s of strata) {
    if (!(STRATUM_KEYS as readonly string[]).includes(s)) {
      check.problems.push(`--strata: expected ${STRATUM_KEYS.join(", ")}, got ${JSON.stringify(s)}`);
    }
  }
  check.require(new Set(strata).size !== strata.length, "--strata: a key is given twice");
  const sizes = [v["per-stratum"], v.total, v["half-width"]].filter((x) => x !== undefined).length;
  check.require(sizes !== 1, "give exactly one of --per-stratum N, --total N, --half-width W");
  const min = v["min-per-stratum"] ?? 2;
  const sizing: SampleSizing = v["per-stratum"] !== undefined
    ? { mode: "per_stratum", per_stratum: v["per-stratum"] }
    : v.total !== undefined
    ? { mode: "total", total: v.total, min_per_stratum: min }
    : { mode: "half_width", half_width: v["half-width"] ?? 0.1, level: v.level ?? 0.95, min_per_stratum: min };
  check.require(
    v.level !== undefined && sizing.mode !== "half_width",
    "--level is the confidence of --half-width: give it with --half-width",
  );
  const classes = v.classes?.split(",").map((s) => s.trim()).filter(Boolean);
  check.throwIfAny();
  const out = await sampleReview(runs, {
    out: v.out!,
    strata: strata as StratumKey[],
    sizing,
    seed: v.seed ?? 1,
    raters,
    double_share: v["double-share"] ?? 0.25,
    ...(classes ? { classes } : {}),
    ...(v.workload ? { workload: v.workload } : {}),
  });
  const k = out.fullKey;
  const d = k.design;
  console.log(`wrote ${out.files.packet} (packet ${k.packet_id}: ${d.sampled} items, ${k.raters.length} raters)`);
  console.log(`wrote ${out.files.key} (the key: it unblinds the packet, keep it from the raters)`);
  console.log(
    `\nsample: ${d.sampled} of ${d.population} eligible answers, seed ${d.seed}, by ${d.strata_keys.join(", ")}`,
  );
  console.log(`  ${d.method}`);
  const body = d.strata.map((s) => [s.name, String(s.population), String(s.sampled)]);
  for (const line of textTable(["stratum", "population", "sampled"], body, { left: 1 })) console.log(`  ${line}`);
  const loads = k.raters.map((r) => `${r} ${k.assignments[r]!.length}`).join(", ");
  console.log(`raters: ${loads} items; ${d.double_rated.length} rated by every rater (share ${d.double_share})`);
  for (const r of out.fullKey.runs) {
    console.log(
      `run ${r.run_id} (${r.dir}): ${r.answered} answered, ${r.with_output} with a saved output, ` +
        `${r.eligible} in ${d.classes.join(", ")}`,
    );
  }
}

async function runImport(v: Parsed["values"], files: string[], check: Parsed["check"]): Promise<void> {
  check.require(files.length === 1, "import needs the packet's key and at least one ratings file");
  const [key, ...ratings] = files;
  check.require(key !== undefined && !key.endsWith(".key.json"), `${key}: the packet's key is a PACKET.key.json file`);
  check.throwIfAny();
  const r = await importReview(key!, ratings, {
    ...(v.adjudication ? { adjudication: v.adjudication } : {}),
    ...(v.resamples !== undefined ? { resamples: v.resamples } : {}),
  });
  const byRater = r.key.raters.map((name) =>
    `${name} ${r.ratings.filter((x) => x.rater === name).length} (${sig(r.minutes[name]!, 3)} min)`
  );
  console.log(`packet ${r.key.packet_id}: ${r.ratings.length} ratings: ${byRater.join(", ")}`);
  for (const p of r.parts) console.log(`wrote ${p.run}/quality/${p.file}: ${p.rows} verdicts`);
  console.log("");
  for (const line of formatAgreement(r.agreement)) console.log(line);
  const rec = r.record;
  console.log(
    `\ndisagreements: ${rec.items.length} of ${rec.compared} items rated by two or more raters ` +
      `(${rec.differ_on_pass} on the verdict): ${r.files.disagreements}, ${r.files.markdown}`,
  );
  if (r.files.template_written) console.log(`adjudication template: ${r.files.template}`);
  else console.log(`kept ${r.files.template}: it holds settled entries`);
  if (r.adjudication) {
    console.log(
      `adjudication: ${r.adjudication.settled.length} settled, ${r.adjudication.open.length} still open`,
    );
  }
}

if (import.meta.main) await runCommand(REVIEW_COMMAND, main);
