/**
 * `npx deno task example`: the chat example measured end to end. Starts the simulator and the chat app (each its
 * own process, on 127.0.0.1), opens several pages of the app in headless Chromium and clicks Send in them — real
 * mouse presses and releases through the DevTools protocol — at Poisson arrival times (seeded) for a bounded time;
 * then waits for the answers and the pages' records, stops the app (which closes its recorder) and everything else,
 * and prints where the run folder is. Bounded: it stops by itself, and on an error it kills what it started.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { findChromium } from "../../analysis/plots/chromium.ts";
import { type CommandSpec, runCommand } from "../../lib/command.ts";
import { mulberry32 } from "../../lib/prng.ts";
import { InputError } from "../../schema/errors.ts";
import { startSimProcess } from "../../scripts/_sim_process.ts";
import { type Browser, BrowserGoneError, launchChromium, type PageProblem } from "./cdp.ts";
import { type ChatPage, openChatPage, pageCounts, typeQuestion } from "./chat_page.ts";
import { type AppProcess, startAppProcess } from "./app_process.ts";
import { QUESTIONS } from "./prompt.ts";

export { QUESTIONS };

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The workload of the app's questions, built from its code (workload.ts): what the simulator answers from. */
export const CHAT_WORKLOAD = "data/workloads/chat-example";

/** Options of {@linkcode driveChat}. */
export interface DriveOptions {
  /** Clicks per second (Poisson arrivals). */
  rate: number;
  /** Clicks are scheduled in [0, duration_s). */
  duration_s: number;
  /** Pages open at once (clicks go to them in turn, so answers overlap). */
  pages: number;
  seed: number;
  /** The run folder the app's recorder writes (must not exist). */
  dir: string;
  run_id: string;
  /** The simulator's profile (relative to the repository). */
  profile: string;
  /**
   * The workload the simulator knows (relative to the repository): it answers a prompt of the workload with the
   * case's answer, any other with filler. @default {@linkcode CHAT_WORKLOAD}, the app's own questions
   */
  workload?: string;
  concurrency: number;
  sample: number;
  /** How long to wait after the last click for answers and page records, s. */
  wait_s: number;
  /** Progress lines (none when absent). */
  log?: (line: string) => void;
}

/** What happened. */
export interface DriveResult {
  dir: string;
  /** Arrivals scheduled, clicks dispatched (mousePressed + mouseReleased on Send), and the click's lag, ms. */
  scheduled: number;
  clicks: number;
  lag_ms: { p50: number; max: number };
  /** The pages' own counts: submits handled, answers rendered, failures; page records posted and dropped. */
  pages: { sends: number; answered: number; failed: number; posted: number; dropped: number };
  /** How long the simulator had been up when the clicks' clock started, ms (its profile's cold start is at its start). */
  sim_age_ms: number;
  /** The simulator's cumulative counts (GET /health) before it was stopped. */
  sim: { admitted: number; finished: number; shed: number; rate_limited: number; errors: number };
  /** Uncaught exceptions and console errors in the pages. */
  problems: PageProblem[];
  /** What the app printed when it stopped. */
  app_output: string;
}

/** Poisson arrival times in [0, duration) at `rate`/s, ms: exponential gaps −ln(1 − u) / rate. */
export function poissonArrivals(rate: number, durationS: number, seed: number): number[] {
  const u = mulberry32(seed);
  const out: number[] = [];
  for (let t = -Math.log(1 - u()) / rate; t < durationS; t += -Math.log(1 - u()) / rate) out.push(t * 1000);
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Runs the whole measurement; everything it started is stopped when it returns or throws. */
export async function driveChat(o: DriveOptions): Promise<DriveResult> {
  const log = o.log ?? (() => {});
  const chromium = findChromium();
  if (!chromium) {
    throw new Error("Chromium not found: install Debian's chromium (apt-get install chromium) or set CHROMIUM");
  }
  const arrivals = poissonArrivals(o.rate, o.duration_s, o.seed);
  const pick = mulberry32(o.seed + 1);
  const questions = arrivals.map(() => QUESTIONS[Math.floor(pick() * QUESTIONS.length)]!);
  const lifeS = Math.ceil(o.duration_s + o.wait_s + 120);
  const sim = await startSimProcess({
    root: ROOT,
    profile: o.profile,
    workload: o.workload ?? CHAT_WORKLOAD,
    seed: o.seed,
    maxLifeS: lifeS,
  });
  const simStarted = performance.now();
  let app: AppProcess | null = null;
  let browser: Browser | null = null;
  // Everything started is stopped, each whatever the others do: on return, on error, on Ctrl-C.
  const stopAll = async () => {
    const [b, a] = [browser, app];
    [browser, app] = [null, null];
    const results = await Promise.allSettled([b?.close(), a?.stop(), sim.stop()]);
    for (const r of results) if (r.status === "rejected") log(`while stopping: ${r.reason?.message ?? r.reason}`);
  };
  const onSignal = () => {
    log("interrupted: stopping the browser, the app (its recorder closes) and the simulator");
    void stopAll().finally(() => Deno.exit(130));
  };
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  // The first failure of a click (run in the pages' chains, not awaited where it happens) or of any promise nobody
  // awaits: the clicks stop at the next arrival and the error is thrown from here, so everything above is stopped.
  let failure: unknown = null;
  const onUnhandled = (e: PromiseRejectionEvent) => {
    e.preventDefault();
    failure ??= e.reason;
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  try {
    app = await startAppProcess({
      root: ROOT,
      args: ["--model-url", sim.url, "--out", o.dir, "--run-id", o.run_id, "--concurrency", String(o.concurrency)]
        .concat(["--sample", String(o.sample), "--max-life", String(lifeS)]),
    });
    log(`simulator ${sim.url} (${o.profile}), chat app ${app.url}, recording into ${o.dir}`);
    browser = await launchChromium({ executable: chromium });
    log(`headless Chromium pid ${browser.pid} (profile ${browser.profile})`);
    const pages: ChatPage[] = [];
    for (let i = 0; i < o.pages; i++) pages.push(await openChatPage(browser, app.url, questions[i] ?? null));
    log(
      `${o.pages} pages open; ${arrivals.length} clicks at ${o.rate}/s (Poisson, seed ${o.seed}) over ${o.duration_s} s`,
    );
    let clicks = 0;
    const lags: number[] = [];
    const start = performance.now();
    let nextReport = 5000;
    for (const [i, at] of arrivals.entries()) {
      await sleep(start + at - performance.now());
      if (failure) throw failure;
      const d = pages[i % pages.length]!;
      const next = questions[i + pages.length] ?? null;
      d.chain = d.chain.then(async () => {
        if (failure) return;
        lags.push(performance.now() - start - at);
        await d.page.click(d.send.x, d.send.y);
        clicks++;
        if (next) await typeQuestion(d.page, next); // ready for this page's next click
      }).catch((e) => {
        failure ??= e;
      });
      if (at >= nextReport) {
        const c = await pageCounts(pages);
        log(`[${(at / 1000).toFixed(0).padStart(4)} s] ${clicks} clicks, ${c.answered} answered, ${c.failed} failed`);
        nextReport += 5000;
      }
    }
    await Promise.all(pages.map((d) => d.chain));
    if (failure) throw failure;
    const until = performance.now() + o.wait_s * 1000;
    let counts = await pageCounts(pages);
    while (performance.now() < until) {
      const answered = counts.answered + counts.failed === counts.sends && counts.sends === clicks;
      if (answered && counts.posted + counts.dropped + counts.sampled_out === counts.begun) break;
      await sleep(250);
      counts = await pageCounts(pages);
    }
    log(`${clicks} clicks: ${counts.answered} answered, ${counts.failed} failed; ${counts.posted} page records posted`);
    const health = await (await fetch(`${sim.url}/health`)).json();
    const problems = browser.problems();
    const appOutput = await app.stop();
    app = null;
    lags.sort((a, b) => a - b);
    return {
      dir: o.dir,
      scheduled: arrivals.length,
      clicks,
      lag_ms: { p50: lags[Math.floor((lags.length - 1) / 2)] ?? 0, max: lags.at(-1) ?? 0 },
      pages: counts,
      sim_age_ms: start - simStarted,
      sim: {
        admitted: health.admitted,
        finished: health.finished,
        shed: health.shed,
        rate_limited: health.rate_limited,
        errors: health.errors,
      },
      problems,
      app_output: appOutput,
    };
  } catch (e) {
    throw e instanceof BrowserGoneError
      ? new Error(
        `${e.message}; the clicks stopped and the app (its recorder closed), the simulator and Chromium were stopped. ` +
          `${o.dir} holds what was recorded before`,
        { cause: e },
      )
      : e;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
    globalThis.removeEventListener("unhandledrejection", onUnhandled);
    await stopAll();
  }
}

/** `npx deno task example`: its flags and help (lib/command.ts). */
export const EXAMPLE_COMMAND = {
  name: "example",
  invocation: "npx deno task example",
  summary: "the chat example measured end to end: the simulator, the example chat app (recorder on server and " +
    "page) and headless Chromium clicking Send at Poisson times; writes a production run folder",
  details: [
    "Needs Chromium (Debian's `chromium`, or $CHROMIUM). Everything runs on 127.0.0.1 and stops by itself. " +
    "Then `npx deno task analyze DIR` and `npx deno task report DIR` on the folder it prints. What it records: " +
    "docs/recorder_browser.md.",
  ],
  flags: {
    rate: {
      type: "number",
      arg: "R",
      default: 2,
      rule: { above: 0, max: 20 },
      description: "clicks per second (Poisson)",
    },
    duration: { type: "number", arg: "S", default: 30, rule: { above: 0, max: 600 }, description: "seconds of clicks" },
    pages: {
      type: "number",
      arg: "N",
      default: 3,
      rule: { min: 1, max: 10, integer: true },
      description: "pages (browser windows) the clicks go to in turn",
    },
    seed: {
      type: "number",
      arg: "N",
      default: 1,
      rule: { min: 0, integer: true },
      description: "the seed of the arrivals, the questions and the simulator",
    },
    out: { type: "string", arg: "DIR", default: "out", description: "where the run folder goes (`DIR/<run-id>/`)" },
    "run-id": {
      type: "string",
      arg: "ID",
      defaultText: "chat-<UTC time>",
      description: "the run's id and folder name",
    },
    profile: { type: "string", arg: "F", default: "data/sim/default.json", description: "the simulator's profile" },
    concurrency: {
      type: "number",
      arg: "N",
      default: 4,
      rule: { min: 1, integer: true },
      description: "questions the app answers at once (the rest queue)",
    },
    sample: {
      type: "number",
      arg: "S",
      default: 1,
      rule: { above: 0, max: 1 },
      description: "the share of questions recorded",
    },
    wait: {
      type: "number",
      arg: "S",
      default: 30,
      rule: { min: 1, max: 300 },
      description: "seconds to wait after the last click for answers and page records",
    },
  },
  examples: ["npx deno task example", "npx deno task example --rate 1 --duration 10 --out /tmp/chat"],
} as const satisfies CommandSpec;

if (import.meta.main) {
  await runCommand(EXAMPLE_COMMAND, async ({ values: v, check }) => {
    const runId = v["run-id"] ?? `chat-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, "")}`;
    const dir = join(v.out, runId);
    check.require(dirExists(dir), `${dir} exists: choose another --run-id or --out`);
    check.require(!/^[\w.-]+$/.test(runId), `--run-id ${runId}: letters, digits, '.', '_' and '-' only`);
    await check.load(() =>
      Deno.stat(join(ROOT, v.profile)).then(() => {}, () => {
        throw new InputError(`--profile ${v.profile}: no such file`);
      })
    );
    check.throwIfAny();
    const r = await driveChat({
      rate: v.rate,
      duration_s: v.duration,
      pages: v.pages,
      seed: v.seed,
      dir,
      run_id: runId,
      profile: v.profile,
      concurrency: v.concurrency,
      sample: v.sample,
      wait_s: v.wait,
      log: (line) => console.log(line),
    });
    console.log(
      `clicks: ${r.clicks} of ${r.scheduled} scheduled (lag p50 ${r.lag_ms.p50.toFixed(1)} ms, ` +
        `max ${r.lag_ms.max.toFixed(1)} ms); pages: ${r.pages.answered} answered, ${r.pages.failed} failed, ` +
        `${r.pages.posted} records posted, ${r.pages.dropped} dropped`,
    );
    console.log(
      `simulator: ${r.sim.admitted} admitted, ${r.sim.shed} shed, ${r.sim.rate_limited} rate-limited, ` +
        `${r.sim.errors} errors`,
    );
    for (const p of r.problems) console.log(`page problem: ${p.text}`);
    if (r.app_output.trim()) console.log(r.app_output.trim());
    console.log(`run folder: ${dir}\nnext: npx deno task analyze ${dir}\n      npx deno task report ${dir}`);
    return r.problems.length ? 1 : 0;
  });
}

function dirExists(dir: string): boolean {
  try {
    Deno.statSync(dir);
    return true;
  } catch {
    return false;
  }
}
