/**
 * Bad flags, every CLI: unknown, missing, out of range, the wrong kind of
 * value; several bad flags named in one message. Each exits 2 naming the flag.
 */
import { join } from "node:path";
import { type BadInputCase, type Good, runBadInputSuite } from "../support/bad_input.ts";

/** A run command with good files and `extra` flags. */
const run = (...extra: string[]) => (d: string, g: Good) => [
  ...["--workload", g.workload, "--plan", g.plan, "--target", "http://127.0.0.1:9"],
  ...["--out", join(d, "out"), "--no-progress", ...extra],
];
const plan = (...extra: string[]) => (_d: string, g: Good) => ["--plan", g.plan, "--workload", g.workload, ...extra];
const sim = (...extra: string[]) => () => ["--port", "0", ...extra];
const onRun = (...extra: string[]) => (_d: string, g: Good) => [g.run, "--slo", g.slo, ...extra];

const CASES: BadInputCase[] = [
  // deno task run
  { name: "an unknown flag", cli: "run", args: run("--bogus"), expect: ["--bogus"] },
  { name: "a flag without its value", cli: "run", args: run("--seed"), expect: ["--seed"] },
  {
    name: "the required flags missing, all named",
    cli: "run",
    args: () => [],
    expect: ["--workload F is required", "--plan F is required", "--out DIR is required", "--target and --routes"],
  },
  {
    name: "both --target and --routes",
    cli: "run",
    args: run("--routes", "data/routes/hosted.json"),
    expect: ["exactly one of --target and --routes"],
  },
  { name: "--route-url without --routes", cli: "run", args: run("--route-url", "a=http://x"), expect: ["--route-url"] },
  {
    name: "--format xml",
    cli: "run",
    args: run("--format", "xml"),
    expect: ['--format: expected csv, parquet or both, got "xml"'],
  },
  { name: "--http-client curl", cli: "run", args: run("--http-client", "curl"), expect: ["--http-client", '"curl"'] },
  { name: "--start-at not a date", cli: "run", args: run("--start-at", "noon"), expect: ["--start-at: not an ISO"] },
  {
    name: "--seed negative",
    cli: "run",
    args: run("--seed=-1"),
    expect: ['--seed: expected an integer ≥ 0, got "-1"'],
  },
  {
    name: "--seed not a number",
    cli: "run",
    args: run("--seed", "abc"),
    expect: ['--seed: expected an integer ≥ 0, got "abc"'],
  },
  {
    name: "--max-send-lag-ms 0",
    cli: "run",
    args: run("--max-send-lag-ms", "0"),
    expect: ["--max-send-lag-ms: expected a number > 0"],
  },
  {
    name: "--max-in-flight 0",
    cli: "run",
    args: run("--max-in-flight", "0"),
    expect: ["--max-in-flight: expected an integer ≥ 1"],
  },
  {
    name: "--lag-limit-ms blank",
    cli: "run",
    args: run("--lag-limit-ms", " "),
    expect: ["--lag-limit-ms: expected a number ≥ 0"],
  },
  {
    name: "--max-response-bytes 0",
    cli: "run",
    args: run("--max-response-bytes", "0"),
    expect: ["--max-response-bytes: expected an integer ≥ 1"],
  },
  {
    name: "--max-response-bytes beyond a safe integer",
    cli: "run",
    args: run("--max-response-bytes", "1e20"),
    expect: ["--max-response-bytes: expected at most"],
  },
  {
    name: "--shard 2/2",
    cli: "run",
    args: run("--shard", "2/2"),
    expect: ['--shard: expected i/N with 0 ≤ i < N, got "2/2"'],
  },
  { name: "--shard not i/N", cli: "run", args: run("--shard", "half"), expect: ["--shard: expected i/N"] },
  { name: "--run-id with a path separator", cli: "run", args: run("--run-id", "../x"), expect: ["--run-id"] },
  {
    name: "five bad flags named in one message",
    cli: "run",
    args: run("--seed", "x", "--format", "xml", "--max-in-flight", "0", "--shard", "3/2", "--run-id", "a/b"),
    expect: ["invalid input (5 problems)", "--seed", "--format", "--max-in-flight", "--shard", "--run-id"],
  },
  // deno task plan
  { name: "no --plan", cli: "plan", args: (_d, g) => ["--workload", g.workload], expect: ["--plan FILE is required"] },
  { name: "an unknown flag", cli: "plan", args: plan("--rate", "3"), expect: ["--rate"] },
  {
    name: "--shard 1/1",
    cli: "plan",
    args: plan("--shard", "1/1"),
    expect: ['--shard: expected i/N with 0 ≤ i < N, got "1/1"'],
  },
  { name: "a value given to --json", cli: "plan", args: plan("--json=yes"), expect: ["--json"] },
  {
    name: "no --plan and a bad --shard, both named",
    cli: "plan",
    args: (_d, g) => ["--workload", g.workload, "--shard", "x"],
    expect: ["--plan FILE is required", "--shard"],
  },
  // deno task sim
  { name: "an unknown flag", cli: "sim", args: sim("--bogus", "1"), expect: ["--bogus"] },
  {
    name: "--port not a number",
    cli: "sim",
    args: () => ["--port", "http"],
    expect: ['--port: expected an integer in [0, 65535], got "http"'],
  },
  {
    name: "--port above 65535",
    cli: "sim",
    args: () => ["--port", "70000"],
    expect: ["--port: expected an integer in [0, 65535]"],
  },
  {
    name: "--seed negative",
    cli: "sim",
    args: sim("--seed=-2"),
    expect: ["--seed: expected an integer in [0, 4294967295]"],
  },
  {
    name: "--duration-s 0",
    cli: "sim",
    args: sim("--duration-s", "0"),
    expect: ['--duration-s: expected a number > 0, got "0"'],
  },
  {
    name: "--timeline in a folder that does not exist",
    cli: "sim",
    args: (d) => ["--port", "0", "--timeline", join(d, "nowhere", "t.jsonl")],
    expect: ["--timeline", "nowhere does not exist"],
  },
  {
    name: "three bad flags named in one message",
    cli: "sim",
    args: () => ["--port=-1", "--seed", "1.5", "--duration-s", "never"],
    expect: ["invalid input (3 problems)", "--port", "--seed", "--duration-s"],
  },
  // deno task demo
  { name: "an unknown flag", cli: "demo", args: () => ["--fast"], expect: ["--fast"] },
  {
    name: "--seed not an integer",
    cli: "demo",
    args: () => ["--seed", "1.5"],
    expect: ['--seed: expected an integer ≥ 0, got "1.5"'],
  },
  {
    name: "--headroom 1",
    cli: "demo",
    args: () => ["--headroom", "1"],
    expect: ["--headroom: expected a number in [0, 1)"],
  },
  // the analysis CLIs
  { name: "no RUN folder", cli: "analyze", args: () => [], expect: ["expected one RUN folder, got 0"] },
  {
    name: "two RUN folders",
    cli: "analyze",
    args: (_d, g) => [g.run, g.run2, "--slo", g.slo],
    expect: ["expected one RUN folder, got 2"],
  },
  { name: "an unknown flag", cli: "analyze", args: onRun("--window", "all"), expect: ["--window"] },
  {
    name: "--denominator all",
    cli: "analyze",
    args: onRun("--denominator", "all"),
    expect: ['--denominator: expected offered, sent or completed, got "all"'],
  },
  {
    name: "--confidence 0.2",
    cli: "analyze",
    args: onRun("--confidence", "0.2"),
    expect: ['--confidence: expected a number in [0.5, 1), got "0.2"'],
  },
  {
    name: "--verify loose",
    cli: "analyze",
    args: onRun("--verify", "loose"),
    expect: ['--verify: expected strict or warn, got "loose"'],
  },
  {
    name: "a bad flag and a missing run folder, both named",
    cli: "analyze",
    args: (d, g) => [join(d, "no-run"), "--slo", g.slo, "--confidence", "1"],
    expect: ["--confidence", "no-run"],
  },
  { name: "no --claim", cli: "audit", args: onRun(), expect: ["--claim FILE is required"] },
  {
    name: "--confidence blank",
    cli: "audit",
    args: (_d, g) => [g.run, "--claim", g.claim, "--slo", g.slo, "--confidence", ""],
    expect: ["--confidence"],
  },
  { name: "no RUN folder", cli: "knee", args: () => [], expect: ["expected at least one RUN folder, got 0"] },
  {
    name: "--alpha 0.7",
    cli: "knee",
    args: onRun("--alpha", "0.7"),
    expect: ['--alpha: expected a number in (0, 0.5), got "0.7"'],
  },
  {
    name: "--baseline-levels 0",
    cli: "knee",
    args: onRun("--baseline-levels", "0"),
    expect: ['--baseline-levels: expected an integer ≥ 1, got "0"'],
  },
  { name: "--acceptance-floor 2", cli: "knee", args: onRun("--acceptance-floor", "2"), expect: ["--acceptance-floor"] },
  {
    name: "--headroom -0.1",
    cli: "knee",
    args: onRun("--headroom=-0.1"),
    expect: ['--headroom: expected a number in [0, 1), got "-0.1"'],
  },
  {
    name: "--overheads without --prices",
    cli: "knee",
    args: (_d, g) => [g.run, "--slo", g.slo, "--overheads", g.overheads],
    expect: ["--overheads", "needs --prices"],
  },
  {
    name: "four bad flags named in one message",
    cli: "knee",
    args: onRun("--alpha", "0", "--baseline-levels", "x", "--headroom", "2", "--verify", "no"),
    expect: ["invalid input (4 problems)", "--alpha", "--baseline-levels", "--headroom", "--verify"],
  },
  { name: "no --prices", cli: "ledger", args: onRun(), expect: ["--prices FILE is required"] },
  {
    name: "--denominator bad",
    cli: "ledger",
    args: (_d, g) => [g.run, "--slo", g.slo, "--prices", g.prices, "--denominator", "x"],
    expect: ["--denominator"],
  },
  { name: "one RUN folder", cli: "compare", args: onRun(), expect: ["expected at least 2 RUN folders, got 1"] },
  {
    name: "--headroom 1.5",
    cli: "compare",
    args: (_d, g) => [g.run, g.run2, "--slo", g.slo, "--headroom", "1.5"],
    expect: ["--headroom"],
  },
  {
    name: "--overheads without --prices",
    cli: "compare",
    args: (_d, g) => [g.run, g.run2, "--slo", g.slo, "--overheads", g.overheads],
    expect: ["needs --prices"],
  },
  { name: "--confidence 1", cli: "report", args: onRun("--confidence", "1"), expect: ["--confidence"] },
  {
    name: "--out in a folder that does not exist",
    cli: "report",
    args: (d, g) => [g.run, "--slo", g.slo, "--out", join(d, "nowhere", "r.html")],
    expect: ["--out", "nowhere does not exist"],
  },
  { name: "an unknown flag", cli: "report", args: onRun("--pdf"), expect: ["--pdf"] },
  {
    name: "the required flags missing, all named",
    cli: "import_prices",
    args: () => [],
    expect: ["--litellm FILE is required", "--model KEY is required", "--as-of DATE is required"],
  },
  {
    name: "--as-of not a date, --tier unknown",
    cli: "import_prices",
    args: () => ["--litellm", "x.json", "--model", "m", "--as-of", "July", "--tier", "gold"],
    expect: ['--as-of: expected a date YYYY-MM-DD, got "July"', "--tier: expected standard, batch, priority or flex"],
  },
];

Deno.test("bad flags: every CLI exits 2 naming each bad flag, no stack trace", async (t) => {
  await runBadInputSuite(t, CASES);
});
