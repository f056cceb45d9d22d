/**
 * `deno task test`: the whole suite in two passes.
 *
 * 1. Every test and every JSDoc example, files in parallel (one worker per core).
 * 2. The tests that judge the runner's or the simulator's own timing (send lag, start times, a kill after a number
 *    of answered calls, modelled step times, shards started together on several network namespaces), one file at a
 *    time. Run beside the subprocess-heavy tests of pass 1 on
 *    a two-core machine, their clocks measure the other tests, not the code; alone, they measure the code. The two
 *    tests that drive the Deno Jupyter kernel run here too: beside each other and that load, a cell's output could
 *    arrive after nbconvert stopped waiting.
 *
 * Both passes always run; the exit code is non-zero when either failed. Each pass ends with Deno's own summary line;
 * the last line is the overall one over both passes, with the failed tests named (scripts/_test_summary.ts), which
 * `.ci/run` reads. With arguments (`deno task test test/runner/`), only those are run, in one pass.
 *
 * @module
 */
import { type CommandSpec, runCommand } from "../lib/command.ts";
import { overallLine, type PassResult, readPass } from "./_test_summary.ts";

const SERIAL = [
  "test/analysis/knee/knee_capacity_test.ts",
  "test/bench/reference_sender_test.ts",
  "test/browser/jupyter_display_test.ts",
  "test/browser/report_layout_test.ts",
  "test/browser/review_page_test.ts",
  "test/quality/done_when_test.ts",
  "test/examples/chat/drive_test.ts",
  "test/examples/chat/browser_gone_test.ts",
  "test/engine/engine_test.ts",
  "test/engine/knee_test.ts",
  "test/engine/server_test.ts",
  "test/runner/batch_route_test.ts",
  "test/runner/dispatch_test.ts",
  "test/runner/fault_table_test.ts",
  "test/runner/kill_test.ts",
  "test/runner/net_reach_test.ts",
  "test/notebooks/notebooks_test.ts",
  "test/runner/judge/open_loop_test.ts",
  "test/runner/open_loop_test.ts",
  "test/runner/shards_netns_test.ts",
  "test/sim/engine_test.ts",
  "test/sim/cut_streams_test.ts",
  "test/sim/faults_test.ts",
  "test/sim/scaling_test.ts",
];
/** Source folders: their JSDoc examples run (`--doc`). */
const SOURCES = ["mod.ts", "analysis/", "schema/", "lib/", "runner/", "sim/", "importers/", "recorder/", "engine/"];
/** Deno's own test-file pattern: `*_test`, `*.test` or `test`, with a script extension. */
const TEST_FILE = /(^|[_.])test\.(ts|tsx|mts|js|jsx|mjs)$/;

/**
 * Every test file under `test/` but the serial ones, by name: `deno test --ignore` is not applied when more than one
 * root is given (Deno 2.9.6), so pass 1 lists its files instead of ignoring.
 */
function parallelTests(dir = "test"): string[] {
  const out: string[] = [];
  for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name.localeCompare(b.name))) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...parallelTests(path));
    else if (e.isFile && TEST_FILE.test(e.name) && !SERIAL.includes(path)) out.push(path);
  }
  return out;
}

/** Copies a child's stream to ours as it comes, and keeps its text for the summary. */
async function tee(from: ReadableStream<Uint8Array>, to: { write(p: Uint8Array): Promise<number> }): Promise<string> {
  const dec = new TextDecoder();
  let text = "";
  for await (const chunk of from) {
    for (let off = 0; off < chunk.length;) off += await to.write(chunk.subarray(off));
    text += dec.decode(chunk, { stream: true });
  }
  return text + dec.decode();
}

/** One `deno test` pass: its output goes through as it comes; its summary and failures are read from it. */
async function pass(name: string, args: string[]): Promise<PassResult> {
  const child = new Deno.Command(Deno.execPath(), { args, stdout: "piped", stderr: "piped" }).spawn();
  const [out, err, status] = await Promise.all([
    tee(child.stdout, Deno.stdout),
    tee(child.stderr, Deno.stderr),
    child.status,
  ]);
  return readPass(name, out + "\n" + err, status.code);
}

/** `npx deno task test`: its help (lib/command.ts); every other argument goes to `deno test`. */
export const TEST_COMMAND = {
  name: "test",
  invocation: "npx deno task test",
  summary: "the test suite in two passes: every test and JSDoc example in parallel, then the timing-sensitive " +
    "tests one file at a time (several minutes)",
  details: ["With arguments, only those are run, in one pass (`deno test --allow-all ARGS`)."],
  flags: {},
  passthrough: "deno test --allow-all",
  examples: ["npx deno task test", "npx deno task test test/cli/ --filter help"],
  exits: { 1: "a test failed, or a pass ended without a summary (the last line says which)" },
} as const satisfies CommandSpec;

if (import.meta.main) {
  await runCommand(TEST_COMMAND, async ({ positionals: args }) => {
    const passes: PassResult[] = [];
    if (args.length) {
      passes.push(await pass("tests", ["test", "--allow-all", ...args]));
    } else {
      const parallel = ["test", "--allow-all", "--parallel", "--doc", ...SOURCES, ...parallelTests()];
      passes.push(await pass("pass 1 (parallel)", parallel));
      passes.push(await pass("pass 2 (serial)", ["test", "--allow-all", ...SERIAL]));
    }
    const failed = passes.some((p) => p.failed > 0 || p.code !== 0);
    const names = passes.flatMap((p) => p.failures);
    if (names.length) {
      console.log(`\nfailed tests over ${passes.length > 1 ? "both passes" : "the pass"}:\n  ${names.join("\n  ")}`);
    }
    console.log(`\n${overallLine(passes)}`);
    return failed ? 1 : 0;
  });
}
