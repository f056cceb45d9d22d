/**
 * The saved schedule of a killed run (schedule.csv, read to restore its
 * unlogged requests) is read bounded (issue 29): a FIFO in its place is refused
 * before it is opened — opening it to hash it used to wait for a writer forever
 * — and its sha256 is checked against run.json `plan.schedule_sha256` before
 * its rows are used (refused, or a loud warning under `verify: "warn"`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { openSqlRun } from "../../../analysis/sql/sql_run.ts";
import { InputError } from "../../../schema/errors.ts";
import { writeInterruptedRun, writeKilledRun } from "./_run_end_fixture.ts";

const quiet = { onWarning: () => {} };

Deno.test("a killed run's schedule.csv: a FIFO refused unopened, a changed one refused or warned", async (t) => {
  const root = Deno.makeTempDirSync({ prefix: "schedule_file_" });
  try {
    await t.step("a FIFO in place of schedule.csv is refused, naming it, without waiting for a writer", async () => {
      const dir = writeKilledRun(join(root, "fifo"));
      const file = join(dir, "schedule.csv");
      Deno.removeSync(file);
      assert.equal(new Deno.Command("mkfifo", { args: [file] }).outputSync().code, 0);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<"hung">((resolve) => timer = setTimeout(() => resolve("hung"), 10_000));
      const got = await Promise.race([loadRun(dir, quiet).then(() => "loaded", (e: unknown) => e), hung]);
      clearTimeout(timer);
      if (got === "hung") {
        // Release the reader blocked in open() (the code before the fix), so the test ends instead of hanging.
        Deno.openSync(file, { write: true }).close();
        assert.fail("loadRun waited on the FIFO");
      }
      assert.ok(got instanceof InputError, String(got));
      assert.match(got.message, /schedule\.csv: cannot read saved schedule: not a regular file \(a FIFO\)/);
    });

    await t.step("a changed schedule.csv: refused (strict), a warning (warn)", async () => {
      const dir = writeKilledRun(join(root, "changed"));
      const file = join(dir, "schedule.csv");
      Deno.writeTextFileSync(file, Deno.readTextFileSync(file).replace("m13,16500", "m13,16501"));
      await assert.rejects(
        () => loadRun(dir, quiet),
        (e) => e instanceof InputError && /schedule\.csv: sha256 .* plan\.schedule_sha256 .*changed/.test(e.message),
      );
      const seen: string[] = [];
      await loadRun(dir, { verify: "warn", onWarning: (w) => seen.push(w) });
      assert.ok(seen.some((w) => /^UNVERIFIED SCHEDULE: .*schedule\.csv/.test(w)), seen.join("\n"));
    });
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a finalised run's schedule.csv is checked by every reader, though none reads its rows", async (t) => {
  // An interrupted run is finalised: its end needs no row of the schedule, so before this check nothing read it and a
  // changed schedule.csv went unnoticed.
  const root = Deno.makeTempDirSync({ prefix: "schedule_final_" });
  const changed = (name: string) => {
    const dir = writeInterruptedRun(join(root, name));
    const file = join(dir, "schedule.csv");
    Deno.writeTextFileSync(file, Deno.readTextFileSync(file).replace("m13,16500", "m13,16501"));
    return dir;
  };
  const refused = (e: unknown) =>
    e instanceof InputError && /schedule\.csv: sha256 .* plan\.schedule_sha256 .*changed/.test(e.message);
  try {
    await t.step("loadRun and scanRun refuse it (strict) and warn (warn)", async () => {
      const dir = changed("polars");
      await assert.rejects(() => loadRun(dir, quiet), refused);
      await assert.rejects(() => scanRun(dir, quiet), refused);
      const seen: string[] = [];
      await loadRun(dir, { verify: "warn", onWarning: (w) => seen.push(w) });
      assert.ok(seen.some((w) => /^UNVERIFIED SCHEDULE: .*schedule\.csv/.test(w)), seen.join("\n"));
    });
    await t.step("the SQL path refuses it too", async () => {
      await assert.rejects(() => openSqlRun(changed("sql"), quiet), refused);
    });
    await t.step("the unchanged schedule of the same run reads", async () => {
      const run = await loadRun(writeInterruptedRun(join(root, "same")), quiet);
      assert.equal(run.end.status, "interrupted");
    });
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
