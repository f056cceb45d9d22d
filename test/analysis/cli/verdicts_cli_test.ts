import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import { runCli } from "../../support/run_cli.ts";
import { END_POLICY, writeInterruptedRun, writeKilledRun } from "../run/_run_end_fixture.ts";
import { CLIENT_POLICY, writeClientLimitedSweep } from "../knee/_verdict_fixture.ts";
import { SWEEP_POLICY, writeSweepRun } from "../knee/knee_fixture.ts";
import { hosted, sheetA } from "../cost/ledger_fixture.ts";

const cli = (name: string) => new URL(`../../../analysis/cli/${name}.ts`, import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"];
const run = (name: string, args: string[]) => runCli(cli(name), args, name === "report" ? ["-A"] : PERMS);
const firstLine = (text: string) => text.split("\n")[0]!;
/** The first screen's caveat lines (before the first blank line), without their severity word and docs anchor. */
const caveatLines = (text: string) =>
  text.split("\n\n")[0]!.split("\n").filter((l) => /^(INVALID|WARNING|NOTE) /.test(l)).map((l) =>
    l.replace(/^\S+\s+/, "").replace(/ \[docs\/[^\]]+\]$/, "")
  );

function files() {
  const root = Deno.makeTempDirSync();
  const write = (name: string, v: unknown) => {
    Deno.writeTextFileSync(join(root, name), JSON.stringify(v));
    return join(root, name);
  };
  const prices = write(
    "prices.json",
    sheetA({ routes: { "*": hosted(1, 0.5, 4, { rejected: false, failed: true, cancelled: true }) } }),
  );
  return { root, write, prices };
}

const KILLED =
  /^INCOMPLETE RUN \(killed, no final status; log ends at 17 s of 60 s\): 2 requests cut off by the kill are censored/;
const INTERRUPTED = /^INCOMPLETE RUN \(interrupted at 17\.35 s of 60 s\): 2 requests cut off by the stop are censored/;

Deno.test("analyze, knee, ledger and report open with the INCOMPLETE RUN verdict, its line the first caveat", async (t) => {
  const { root, write, prices } = files();
  const slo = write("slo.json", END_POLICY);
  const killed = writeKilledRun(join(root, "killed"));
  const interrupted = writeInterruptedRun(join(root, "interrupted"));

  for (const [what, dir, want] of [["killed", killed, KILLED], ["interrupted", interrupted, INTERRUPTED]] as const) {
    await t.step(`${what}: analyze`, async () => {
      const r = await run("analyze", [dir, "--slo", slo]);
      assert.equal(r.code, 0, r.stderr);
      // The knee of a cut run may find no level left to judge: then NO CAPACITY is a verdict too.
      assert.match(
        firstLine(r.stdout),
        /^INCOMPLETE RUN( \+ NO CAPACITY)?: stopped early; windows end at the first censored request(; nothing|$)/,
      );
      assert.match(caveatLines(r.stdout)[0]!, want);
      const j = JSON.parse((await run("analyze", [dir, "--slo", slo, "--json"])).stdout);
      assert.match(j.verdicts.lines[0], want);
      assert.equal(j.disclosure.run_end.status, what);
      // The window: main clipped at the first censored request (12500 or 16500 ms): 2.5 or 6.5 s (run_end_test.ts).
      assert.equal(j.overall.measurement_seconds, what === "killed" ? 2.5 : 6.5);
    });
    await t.step(`${what}: knee`, async () => {
      const r = await run("knee", [dir, "--slo", slo]);
      assert.equal(r.code, 0, r.stderr);
      // The knee of a cut run may find no level left to judge: then NO CAPACITY is a verdict too.
      assert.match(
        firstLine(r.stdout),
        /^INCOMPLETE RUN( \+ NO CAPACITY)?: stopped early; windows end at the first censored request(; nothing|$)/,
      );
      assert.match(caveatLines(r.stdout)[0]!, want);
      const j = JSON.parse((await run("knee", [dir, "--slo", slo, "--json"])).stdout);
      assert.match(j.verdicts[0], want);
      assert.equal(j.disclosure.run_ends[0].end.status, what);
    });
    await t.step(`${what}: ledger`, async () => {
      const r = await run("ledger", [dir, "--prices", prices, "--slo", slo]);
      assert.equal(r.code, 0, r.stderr);
      // The knee of a cut run may find no level left to judge: then NO CAPACITY is a verdict too.
      assert.match(
        firstLine(r.stdout),
        /^INCOMPLETE RUN( \+ NO CAPACITY)?: stopped early; windows end at the first censored request(; nothing|$)/,
      );
      assert.match(caveatLines(r.stdout)[0]!, want);
      const j = JSON.parse((await run("ledger", [dir, "--prices", prices, "--slo", slo, "--json"])).stdout);
      assert.match(j.verdicts.lines[0], want);
      assert.equal(j.disclosure.run_end.status, what);
    });
    await t.step(`${what}: report (stdout and the top of the page)`, async () => {
      const out = join(root, `${what}.html`);
      const r = await run("report", [dir, "--slo", slo, "--out", out]);
      assert.equal(r.code, 0, r.stderr);
      // The knee of a cut run may find no level left to judge: then NO CAPACITY is a verdict too.
      assert.match(
        firstLine(r.stdout),
        /^INCOMPLETE RUN( \+ NO CAPACITY)?: stopped early; windows end at the first censored request(; nothing|$)/,
      );
      assert.match(caveatLines(r.stdout)[0]!, want);
      const html = Deno.readTextFileSync(out);
      const verdict = html.indexOf('<p class="gp-verdict-line gp-invalid" role="alert"><b>INCOMPLETE RUN</b>');
      assert.ok(verdict > 0 && verdict < html.indexOf("<h1>"), "the verdict line stands above the title");
      assert.match(html, /<li class="gp-sev-INVALID"><span class="gp-sev">INVALID<\/span> INCOMPLETE RUN \(/);
    });
  }
});

Deno.test("knee says no capacity can be derived when nothing was accepted at any level", async () => {
  const { root, write } = files();
  const strict = { ...SWEEP_POLICY, classes: { qa: { ...SWEEP_POLICY.classes.qa!, e2e_ms: 100 } } };
  const slo = write("slo.json", strict);
  const r = await run("knee", [writeSweepRun(join(root, "run")), "--slo", slo, "--headroom", "0.2"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(firstLine(r.stdout), "NO CAPACITY: nothing was accepted: no capacity to derive");
  assert.equal(
    caveatLines(r.stdout)[0],
    "NO CAPACITY: no capacity can be derived from this run: no request was accepted at any load level (0 of 600 " +
      "offered over 4 levels)",
  );
  assert.match(r.stdout, /^knee: none — no capacity can be derived from this run/m);
  assert.match(r.stdout, /^production limit: no capacity can be derived from this run/m);
  assert.doesNotMatch(r.stdout, /at least the highest rate tested/);
});

Deno.test("a client-limited run and its levels are named in the first lines of analyze, knee and the report", async (t) => {
  const { root, write } = files();
  const slo = write("slo.json", CLIENT_POLICY);
  const dir = writeClientLimitedSweep(join(root, "run"));
  await t.step("analyze: the run re-judged from its log, its client-limited stages in one line", async () => {
    const out = (await run("analyze", [dir, "--slo", slo])).stdout;
    assert.match(firstLine(out), /^CLIENT-LIMITED: /);
    const lines = caveatLines(out);
    assert.ok(
      lines.some((l) => /^CLIENT-LIMITED RUN: s8 \(8 req\/s\): 16 of 160 not sent or shed/.test(l)),
      lines.join("\n"),
    );
  });
  await t.step("knee: the levels excluded, and said so", async () => {
    const r = await run("knee", [dir, "--slo", slo, "--json"]);
    const j = JSON.parse(r.stdout);
    assert.deepEqual(j.disclosure.excluded_levels.map((e: { planned_rps: number }) => e.planned_rps), [8, 16]);
    assert.deepEqual(j.levels.map((l: { planned_rps: number }) => l.planned_rps), [2, 4, 6]);
    const out = (await run("knee", [dir, "--slo", slo])).stdout;
    assert.match(firstLine(out), /^CLIENT-LIMITED: /);
    const lines = caveatLines(out);
    // Every answer was on time: no request late only by its send lag, so no run line beside the levels'.
    assert.ok(!lines.some((l) => l.startsWith("CLIENT-LIMITED RUN")), lines.join("\n"));
    assert.ok(
      lines.some((l) => /^CLIENT-LIMITED LEVELS excluded from the knee: 8 req\/s planned/.test(l)),
      lines.join("\n"),
    );
  });
  await t.step("report: the verdict line, then the run's and the stages' lines on the first screen", async () => {
    const out = join(root, "report.html");
    const r = await run("report", [dir, "--slo", slo, "--out", out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(firstLine(r.stdout), /^CLIENT-LIMITED: /);
    assert.ok(caveatLines(r.stdout).some((l) => l.startsWith("CLIENT-LIMITED RUN")), r.stdout);
    const html = Deno.readTextFileSync(out);
    const top = html.slice(html.indexOf('<section class="gp-verdict"'), html.indexOf('<h2 id="figures">'));
    assert.match(top, /<b>CLIENT-LIMITED<\/b>: the load generator/);
    assert.match(top, /INVALID<\/span> CLIENT-LIMITED RUN/);
    assert.match(top, /INVALID<\/span> CLIENT-LIMITED RUN: s8 \(8 req\/s\)/);
  });
});

Deno.test("a complete run without client limits opens with VALID and no caveat line", async () => {
  const { root, write } = files();
  const slo = write("slo.json", SWEEP_POLICY);
  const dir = writeSweepRun(join(root, "run"));
  const m = JSON.parse(Deno.readTextFileSync(join(dir, "run.json"))) as RunManifest;
  assert.equal(m.result.status, "complete");
  const r = await run("knee", [dir, "--slo", slo]);
  assert.equal(firstLine(r.stdout), "VALID: no verdict against these numbers");
  assert.deepEqual(caveatLines(r.stdout), []);
  const a = await run("analyze", [dir, "--slo", slo]);
  assert.match(firstLine(a.stdout), /^VALID: no verdict against these numbers/);
  assert.match(a.stdout.split("\n")[1]!, /^accepted goodput [\d.]+ tasks\/s = \d+ accepted \/ [\d.]+ s \(window /);
});
