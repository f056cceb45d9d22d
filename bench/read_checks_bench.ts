/**
 * What reading a run costs with its row checks: `loadRun` (eager), `scanRun` (lazy; its checks are one aggregate
 * query per file) and the SQL path's `openSqlRun` (DuckDB; its checks too are one query per file) of one generated
 * Parquet log (`bench/_gen_log.ts`, seed 1), each round in a fresh child process.
 * With `--compare DIR` (another checkout of this project, e.g. a git worktree at an earlier commit) the two checkouts
 * alternate round by round, so a change to the checks is measured side by side on the same log.
 *
 *   deno run -A bench/read_checks_bench.ts [--n 1000000] [--rounds 4] [--compare ../other-checkout]
 *
 * @module
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { generateRunLog } from "./_gen_log.ts";

const HERE = new URL(".", import.meta.url).pathname;
const ROOT = resolve(HERE, "..");
const { values: v } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "1000000" },
    rounds: { type: "string", default: "4" },
    compare: { type: "string" },
    child: { type: "string" },
    log: { type: "string" },
  },
});

if (v.child) {
  // A child: `--child ROOT --log DIR` times the readers of the checkout at ROOT on the log at DIR.
  const root = v.child, dir = v.log!;
  const { loadRun } = await import(join(root, "analysis/run/load_run.ts"));
  const { scanRun } = await import(join(root, "analysis/run/scan_run.ts"));
  const { openSqlRun } = await import(join(root, "analysis/sql/sql_run.ts"));
  const quiet = { onWarning: () => {} };
  let t = performance.now();
  await loadRun(dir, quiet);
  const load = performance.now() - t;
  t = performance.now();
  await scanRun(dir, quiet);
  const scan = performance.now() - t;
  t = performance.now();
  (await openSqlRun(dir, quiet)).close();
  console.log(JSON.stringify({ load_ms: load, scan_ms: scan, sql_ms: performance.now() - t }));
  Deno.exit(0);
}

const n = Number(v.n), rounds = Number(v.rounds);
if (!(Number.isInteger(n) && n > 0 && n <= 10_000_000 && Number.isInteger(rounds) && rounds > 0)) {
  console.error("read_checks_bench: --n must be 1..10000000 and --rounds a positive integer");
  Deno.exit(2);
}
const roots = [ROOT, ...(v.compare ? [resolve(v.compare)] : [])];
const dir = Deno.makeTempDirSync({ prefix: "read-checks-" });
try {
  const log = generateRunLog(join(dir, "log"), n, 1);
  const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
  console.log(`read checks, ${n} requests, ${rounds} rounds, ${new Date().toISOString()}, load ${load()}`);
  console.log("| round | checkout | loadRun ms | scanRun ms | openSqlRun ms | load 1m |");
  console.log("| ---: | --- | ---: | ---: | ---: | ---: |");
  for (let r = 1; r <= rounds; r++) {
    for (const root of roots) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--config",
          join(ROOT, "deno.json"),
          join(HERE, "read_checks_bench.ts"),
          "--child",
          root,
          "--log",
          log,
        ],
        stdout: "piped",
        stderr: "inherit",
      }).output();
      if (out.code !== 0) throw new Error(`the child for ${root} failed`);
      const t = JSON.parse(new TextDecoder().decode(out.stdout)) as Record<"load_ms" | "scan_ms" | "sql_ms", number>;
      const ms = [t.load_ms, t.scan_ms, t.sql_ms].map((x) => x.toFixed(0)).join(" | ");
      console.log(`| ${r} | ${root} | ${ms} | ${load()} |`);
    }
  }
} finally {
  Deno.removeSync(dir, { recursive: true });
}
