/**
 * Chromium killed in the middle: every DevTools call ends at once with one clear error (not a 20-s timeout, not an
 * uncaught rejection), the process is waited for (no defunct Chromium) and none of its processes is left; the chat
 * example stops its clicks, stops everything it started and throws a message that says what happened.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { findChromium } from "../../../analysis/plots/chromium.ts";
import { BrowserGoneError, launchChromium } from "../../../examples/chat/cdp.ts";
import { driveChat } from "../../../examples/chat/drive.ts";
import { haveChromium } from "../../browser/_tools.ts";

/** The process's state letter from /proc (Z: defunct), or null when it is gone (exited and waited for). */
function procState(pid: number): string | null {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/stat`).replace(/^.*\) /s, "")[0] ?? null;
  } catch {
    return null;
  }
}

/** Processes whose command line names `text` (Chromium passes its --user-data-dir to every one of its processes). */
function processesNaming(text: string): number[] {
  const out: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      if (Deno.readTextFileSync(`/proc/${e.name}/cmdline`).includes(text)) out.push(Number(e.name));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test({
  name: "cdp: Chromium killed → the next call fails at once with BrowserGoneError and the process is reaped unasked",
  ignore: !haveChromium(),
  async fn() {
    const browser = await launchChromium({ executable: findChromium()! });
    const page = await browser.newPage("data:text/html,<button>Send</button>");
    assert.equal(procState(browser.pid) !== null, true, "Chromium runs");
    Deno.kill(browser.pid, "SIGKILL");
    const t0 = performance.now();
    const err = await page.click(10, 10).catch((e) => e);
    assert.ok(err instanceof BrowserGoneError, String(err));
    assert.match(err.message, new RegExp(`Chromium \\(pid ${browser.pid}\\) closed during Input\\.dispatchMouseEvent`));
    assert.ok(performance.now() - t0 < 5000, "no 20-s command timeout");
    // Waited for without close(): no defunct (Z) process stays behind.
    await until("Chromium reaped", () => procState(browser.pid) === null, 5000);
    await until("none of its processes left", () => processesNaming(browser.profile).length === 0, 5000);
    await browser.close(); // still safe
  },
});

Deno.test({
  name: "the chat example with Chromium killed mid-run stops, reaps the browser and throws what happened",
  ignore: !haveChromium(),
  async fn() {
    const dir = join(await Deno.makeTempDir({ prefix: "chat-gone-" }), "run");
    let pid = 0;
    let profile = "";
    const t0 = performance.now();
    const err = await driveChat({
      rate: 2,
      duration_s: 20,
      pages: 2,
      seed: 5,
      dir,
      run_id: "chat-gone",
      profile: "data/sim/default.json",
      concurrency: 4,
      sample: 1,
      wait_s: 5,
      log: (line) => {
        const m = /^headless Chromium pid (\d+) \(profile (\S+)\)$/.exec(line);
        if (m) [pid, profile] = [Number(m[1]), m[2]!];
        // Killed once the pages are open and the clicks are about to start.
        if (/pages open/.test(line)) Deno.kill(pid, "SIGKILL");
      },
    }).then(() => null, (e) => e);
    assert.ok(pid > 0, "the driver names Chromium's pid");
    assert.ok(err instanceof Error, "driveChat throws");
    assert.match(
      err.message,
      new RegExp(
        `^the DevTools connection to Chromium \\(pid ${pid}\\) closed during .*: the browser exited or was ` +
          `killed; the clicks stopped and the app \\(its recorder closed\\), the simulator and Chromium were stopped`,
      ),
    );
    assert.ok(performance.now() - t0 < 20_000, "it stops well before the 20 s of clicks");
    assert.equal(procState(pid), null, "Chromium was waited for (not defunct)");
    assert.deepEqual(processesNaming(profile), [], "none of Chromium's processes left");
    await Deno.remove(join(dir, ".."), { recursive: true });
  },
});
