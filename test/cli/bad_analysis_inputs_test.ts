/**
 * Bad input files of the analysis CLIs: SLO policy, price and overhead
 * sheets, claim, knee tolerances, report extras, LiteLLM price map. Each
 * exits 2 naming the file and the field; several bad files are named in one
 * message.
 */
import { join } from "node:path";
import { type BadInputCase, editJson, type Good, ROOT, runBadInputSuite } from "../support/bad_input.ts";

/** An analysis command on the good run with `extra` (with `$d` the case's folder). */
const onRun = (...extra: string[]) => (d: string, g: Good) => [g.run, ...extra.map((a) => a.replace("$d", d))];
const slo = (d: string) => join(d, "slo.json");
const goodSlo = { default: { e2e_ms: 5000 } };

const CASES: BadInputCase[] = [
  // SLO policy
  {
    name: "SLO: a missing file",
    cli: "analyze",
    args: onRun("--slo", "$d/slo.json"),
    expect: ["slo.json: cannot read SLO policy"],
  },
  {
    name: "SLO: not JSON",
    cli: "analyze",
    files: { "slo.json": "{" },
    args: onRun("--slo", "$d/slo.json"),
    expect: ["slo.json: cannot read SLO policy"],
  },
  {
    name: "SLO: no default",
    cli: "analyze",
    files: { "slo.json": { classes: {} } },
    args: onRun("--slo", "$d/slo.json"),
    expect: ["slo.json: default"],
  },
  {
    name: "SLO: a misspelt key",
    cli: "analyze",
    files: { "slo.json": { default: { e2e: 100 } } },
    args: onRun("--slo", "$d/slo.json"),
    expect: ["slo.json: default", 'Unrecognized key: "e2e"'],
  },
  {
    name: "SLO: an unknown gate",
    cli: "ledger",
    files: { "slo.json": { default: { e2e_ms: 1, gates: ["fast"] } } },
    args: (d, g) => [g.run, "--prices", g.prices, "--slo", slo(d)],
    expect: ["slo.json: default.gates.0"],
  },
  {
    name: "SLO: a negative deadline",
    cli: "knee",
    files: { "slo.json": { default: { e2e_ms: -1 } } },
    args: onRun("--slo", "$d/slo.json"),
    expect: ["slo.json: default.e2e_ms"],
  },
  {
    name: "SLO: a bad denominator",
    cli: "report",
    files: { "slo.json": { ...goodSlo, denominator: "all" } },
    args: onRun("--slo", "$d/slo.json"),
    expect: ["slo.json: denominator"],
  },
  {
    name: "SLO: a class the run's workload does not have",
    cli: "analyze",
    files: { "slo.json": { ...goodSlo, classes: { nosuch: { e2e_ms: 1 } } } },
    args: onRun("--slo", "$d/slo.json"),
    expect: ["slo.json: classes: nosuch not in the workload"],
  },
  {
    name: "SLO: none for a workload without a default",
    cli: "analyze",
    args: onRun(),
    expect: ['workload "fixture" has no default policy', "--slo FILE"],
  },
  {
    name: "SLO: a bad window",
    cli: "compare",
    files: { "slo.json": { ...goodSlo, window: { exclude_stage_kinds: ["idle"] } } },
    args: (d, g) => [g.run, g.run2, "--slo", slo(d)],
    expect: ["slo.json: window"],
  },
  // price and overhead sheets
  {
    name: "prices: a missing file",
    cli: "ledger",
    args: (d, g) => [g.run, "--slo", g.slo, "--prices", join(d, "p.json")],
    expect: ["p.json: cannot read price sheet"],
  },
  {
    name: "prices: not JSON",
    cli: "ledger",
    files: { "p.json": "USD" },
    args: (d, g) => [g.run, "--slo", g.slo, "--prices", join(d, "p.json")],
    expect: ["p.json: price sheet is not valid JSON"],
  },
  {
    name: "prices: a negative GPU hour",
    cli: "ledger",
    setup: (d, g) => {
      Deno.copyFileSync(g.prices, join(d, "p.json"));
      editJson(join(d, "p.json"), (p) => ((p.routes as Record<string, Record<string, unknown>>)["*"]!.gpu_hour = -2));
    },
    args: (d, g) => [g.run, "--slo", g.slo, "--prices", join(d, "p.json")],
    expect: ["p.json: routes.*.gpu_hour"],
  },
  {
    name: "prices: no price for the run's route",
    cli: "ledger",
    args: (_d, g) => [g.run, "--slo", g.slo, "--prices", join(ROOT, "data/prices/routes-sim.json")],
    expect: ["routes-sim.json: routes:", "default"],
  },
  {
    name: "prices: no price for the run's route (knee)",
    cli: "knee",
    args: (_d, g) => [g.run, "--slo", g.slo, "--prices", join(ROOT, "data/prices/routes-sim.json")],
    expect: ["routes-sim.json: routes:", "default"],
  },
  {
    name: "prices: no price for the runs' route (compare)",
    cli: "compare",
    args: (_d, g) => [g.run, g.run2, "--slo", g.slo, "--prices", join(ROOT, "data/prices/routes-sim.json")],
    expect: ["routes-sim.json: routes:", "default"],
  },
  // compare: the buyer's answer (issue 31): volume, sensitivity and resampling flags
  {
    name: "compare: a demand of zero",
    cli: "compare",
    args: (_d, g) => [g.run, g.run2, "--slo", g.slo, "--prices", g.prices, "--demand", "0", "--monthly", "1M"],
    expect: ["--demand: expected accepted tasks per second at peak > 0"],
  },
  {
    name: "compare: a negative redundancy",
    cli: "compare",
    args: (
      _d,
      g,
    ) => [
      g.run,
      g.run2,
      "--slo",
      g.slo,
      "--prices",
      g.prices,
      "--demand",
      "2",
      "--monthly",
      "1M",
      "--redundancy",
      "-1",
    ],
    expect: ["--redundancy: expected a whole number of spare replicas"],
  },
  {
    name: "compare: a demand without prices",
    cli: "compare",
    args: (_d, g) => [g.run, g.run2, "--slo", g.slo, "--demand", "2", "--monthly", "1M"],
    expect: ["--demand (a volume) needs --prices"],
  },
  {
    name: "compare: --extrapolate without a demand",
    cli: "compare",
    args: (_d, g) => [g.run, g.run2, "--slo", g.slo, "--prices", g.prices, "--extrapolate"],
    expect: ["--extrapolate and --redundancy need --demand"],
  },
  {
    name: "compare: a range that is not LOW:HIGH",
    cli: "compare",
    args: (_d, g) => [g.run, g.run2, "--slo", g.slo, "--prices", g.prices, "--range", "gpu_hour=6:1"],
    expect: ["--range"],
  },
  {
    name: "compare: a range factor that does not contain 1",
    cli: "compare",
    args: (_d, g) => [g.run, g.run2, "--slo", g.slo, "--prices", g.prices, "--range-factor", "2:3"],
    expect: ["--range-factor"],
  },
  {
    name: "compare: a bad resampling unit",
    cli: "compare",
    args: (_d, g) => [g.run, g.run2, "--slo", g.slo, "--prices", g.prices, "--resample", "blocks:0s"],
    expect: ["--resample: expected blocks:Ns"],
  },
  {
    name: "prices: no price for the run's route (report)",
    cli: "report",
    args: (
      d,
      g,
    ) => [g.run, "--slo", g.slo, "--out", join(d, "r.html"), "--prices", join(ROOT, "data/prices/routes-sim.json")],
    expect: ["routes-sim.json: routes:", "default"],
  },
  {
    name: "overheads: a currency other than the prices'",
    cli: "ledger",
    setup: (d, g) => {
      Deno.copyFileSync(g.overheads, join(d, "o.json"));
      editJson(join(d, "o.json"), (o) => (o.currency = "EUR"));
    },
    args: (d, g) => [g.run, "--slo", g.slo, "--prices", g.prices, "--overheads", join(d, "o.json")],
    expect: ["o.json: currency EUR differs"],
  },
  {
    name: "overheads: not a sheet",
    cli: "knee",
    files: { "o.json": { name: "o" } },
    args: (d, g) => [g.run, "--slo", g.slo, "--prices", g.prices, "--overheads", join(d, "o.json")],
    expect: ["o.json", "overhead_sheet_version"],
  },
  {
    name: "prices and SLO both bad, both named",
    cli: "ledger",
    files: { "p.json": { name: "p" }, "slo.json": {} },
    args: (d, g) => [g.run, "--prices", join(d, "p.json"), "--slo", slo(d)],
    expect: ["p.json: routes", "slo.json: default"],
  },
  // claim, tolerances, report extras, LiteLLM map
  {
    name: "claim: a missing file",
    cli: "audit",
    args: (d, g) => [g.run, "--slo", g.slo, "--claim", join(d, "c.json")],
    expect: ["c.json: cannot read claim"],
  },
  {
    name: "claim: an unknown metric",
    cli: "audit",
    files: { "c.json": { metric: "speed", value: 1, source: "s" } },
    args: (d, g) => [g.run, "--slo", g.slo, "--claim", join(d, "c.json")],
    expect: ["c.json: metric"],
  },
  {
    name: "claim: a percentile without its metric",
    cli: "audit",
    files: { "c.json": { metric: "latency_percentile", p: 0.99, value: 1, source: "s" } },
    args: (d, g) => [g.run, "--slo", g.slo, "--claim", join(d, "c.json")],
    expect: ["c.json", "latency_metric"],
  },
  {
    name: "claim and SLO both bad, both named",
    cli: "audit",
    files: { "c.json": { metric: "accepted_goodput", source: "s" }, "slo.json": { default: { e2e_ms: "x" } } },
    args: (d, g) => [g.run, "--slo", slo(d), "--claim", join(d, "c.json")],
    expect: ["c.json: value", "slo.json: default"],
  },
  {
    name: "tolerances: an unknown signal",
    cli: "knee",
    files: { "t.json": { speed: { rel: 0.1 } } },
    args: (d, g) => [g.run, "--slo", g.slo, "--tolerances", join(d, "t.json")],
    expect: ["t.json", "speed", "unknown signal"],
  },
  {
    name: "tolerances: a negative tolerance",
    cli: "knee",
    files: { "t.json": { accepted_goodput: { rel: -1 } } },
    args: (d, g) => [g.run, "--slo", g.slo, "--tolerances", join(d, "t.json")],
    expect: ["t.json", "accepted_goodput.rel"],
  },
  {
    name: "report extras: an unknown key",
    cli: "report",
    files: { "e.json": { knees: [] } },
    args: (d, g) => [g.run, "--slo", g.slo, "--out", join(d, "r.html"), "--extras", join(d, "e.json")],
    expect: ["e.json", "knees"],
  },
  {
    name: "report extras: an outage of the wrong shape",
    cli: "report",
    files: { "e.json": { outages: [{ start_ms: -1 }] } },
    args: (d, g) => [g.run, "--slo", g.slo, "--out", join(d, "r.html"), "--extras", join(d, "e.json")],
    expect: ["e.json", "outages.0"],
  },
  {
    name: "LiteLLM map: not JSON",
    cli: "import_prices",
    files: { "m.json": "{" },
    args: (d) => ["--litellm", join(d, "m.json"), "--model", "m", "--as-of", "2026-01-01"],
    expect: ["m.json: cannot read the LiteLLM price map"],
  },
  {
    name: "LiteLLM map: an array",
    cli: "import_prices",
    files: { "m.json": "[]" },
    args: (d) => ["--litellm", join(d, "m.json"), "--model", "m", "--as-of", "2026-01-01"],
    expect: ["m.json: expected a JSON object"],
  },
  {
    name: "LiteLLM map: a model it does not have",
    cli: "import_prices",
    files: { "m.json": "{}" },
    args: (d) => ["--litellm", join(d, "m.json"), "--model", "nosuch", "--as-of", "2026-01-01"],
    expect: ["m.json", "nosuch"],
  },
  {
    name: "LiteLLM map missing, --out folder missing, both named",
    cli: "import_prices",
    args: (
      d,
    ) => ["--litellm", join(d, "m.json"), "--model", "m", "--as-of", "2026-01-01", "--out", join(d, "no", "s.json")],
    expect: ["m.json: cannot read", "--out"],
  },
];

Deno.test("bad analysis inputs: every file kind exits 2 naming the file and the field, no stack trace", async (t) => {
  await runBadInputSuite(t, CASES);
});
