/**
 * A full disk in the middle of a run: the run folder on a small tmpfs (mounted here; root only, as in CI — skipped
 * with its reason where mounting is not allowed). The runner must stop sending, finalise what is on disk, mark the
 * run `write_failed`, leave no cut line, print one line naming the file and the error, and exit 6.
 */
import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { join } from "node:path";
import { loadRun } from "../../analysis/run/load_run.ts";
import { RunManifest } from "../../schema/mod.ts";
import { RESERVE_FILE } from "../../runner/disk_reserve.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeWorkload } from "../../testing/tiny_workload.ts";

const RUN = new URL("../../runner/cli/run.ts", import.meta.url).pathname;

/** Mounts a tmpfs of `bytes` at a new folder; null (with why) where this process may not mount. */
async function smallDisk(bytes: number): Promise<{ path: string; unmount(): Promise<void> } | string> {
  const path = Deno.makeTempDirSync({ prefix: "goodput-full-" });
  const mount = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", `size=${bytes}`, "tmpfs", path],
    stdout: "null",
    stderr: "piped",
  }).output().catch((e: Error) => ({ success: false, stderr: new TextEncoder().encode(e.message) }));
  if (!mount.success) {
    Deno.removeSync(path);
    return `mount -t tmpfs failed (${new TextDecoder().decode(mount.stderr).trim()})`;
  }
  return {
    path,
    async unmount() {
      await new Deno.Command("umount", { args: [path] }).output();
      Deno.removeSync(path, { recursive: true });
    },
  };
}

/** Whether this process can mount a tmpfs (root with the right to mount: CI), found by mounting one; why not. */
async function mountProbe(): Promise<string | null> {
  if (Deno.uid?.() !== 0) return "mounting a small tmpfs needs root (CI runs as root)";
  const disk = await smallDisk(64 * 1024);
  if (typeof disk === "string") return disk;
  await disk.unmount();
  return null;
}
const cannotMount = await mountProbe();
const canMount = cannotMount === null;

Deno.test({
  name: "a full disk: the run stops, is finalised as write_failed with no cut line, one error line, exit 6",
  ignore: !canMount,
  async fn() {
    // 1.5 MiB: the 1 MiB reserve, run.json, schedule and sidecars (~40 KB), then ~0.4 MB of rows and outputs —
    // some 200 of the 800 requests (each ~0.7 KB of rows and ~1.4 KB of saved output at 200 tokens).
    const disk = await smallDisk(1536 * 1024);
    if (typeof disk === "string") throw new Error(disk);
    const dir = Deno.makeTempDirSync();
    const srv = await startFaultServer({ tokens: 200 });
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          RUN,
          "--workload",
          writeWorkload(dir, [tinyCase()]),
          "--plan",
          constantPlan(dir, 200, 4),
          "--target",
          `${srv.url}/ok-sse`,
          "--out",
          disk.path,
          "--run-id",
          "full",
          "--no-progress",
          "--no-preflight",
          "--no-server-timeline",
          "--save-outputs",
          "--format",
          "csv",
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 6, stderr);
      assert.doesNotMatch(stderr, /^\s+at /m, "no stack trace");
      const errors = stderr.split("\n").filter((l) => l.startsWith("error:"));
      assert.equal(errors.length, 1, stderr);
      assert.match(
        errors[0]!,
        /^error: cannot write (requests\.csv|attempts\.csv|tools\.csv|outputs\.jsonl): .*\(ENOSPC\)/,
      );
      assert.match(errors[0]!, /write_failed.*\(exit 6\)$/);

      const runDir = join(disk.path, "full");
      const manifest = RunManifest.parse(JSON.parse(Deno.readTextFileSync(join(runDir, "run.json"))));
      assert.equal(manifest.result.status, "write_failed");
      assert.equal(manifest.result.write_error?.code, "ENOSPC");
      // Stopped at once: far fewer rows than the 800 scheduled, and ended well before the plan's 4 s.
      const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
      assert.ok(requests.length > 0 && requests.length < 800, `${requests.length} request rows`);
      assert.ok(manifest.result.ended_ms < 4000, `ended at ${manifest.result.ended_ms} ms`);
      for (const f of ["requests.csv", "attempts.csv", "tools.csv", "outputs.jsonl"]) {
        const text = Deno.readTextFileSync(join(runDir, f));
        assert.ok(text.endsWith("\n"), `${f} ends with a whole line`);
        assert.match(manifest.files[f] ?? "", /^[0-9a-f]{64}$/, `${f} hashed`);
      }
      assert.ok(!Deno.readDirSync(runDir).some((e) => e.name === RESERVE_FILE), "the reserve is released");
      // The readers take it as a log that ends early (a killed run's rule), with one warning saying why.
      const run = await loadRun(runDir);
      assert.equal(run.end.status, "killed");
      assert.match(
        run.end.log_end_rule!,
        /full: stopped by a failed log write \(write_failed: \S+, ENOSPC\): latest time/,
      );
      assert.ok(run.warnings.some((w) => /write_failed.*ENOSPC/.test(w)), run.warnings.join("\n"));
      // Its first line says the runner stopped on the failed write, not that the run was killed.
      assert.match(
        run.end.headline!,
        /^INCOMPLETE RUN \(stopped by a failed log write \(write_failed: \S+, ENOSPC\); log ends at /,
      );
      // The log ends early; each of the 800 scheduled requests is counted once: in the window (scheduled before its
      // end, logged or restored from the schedule), censored (cut off by the stop), or after the window's end. A
      // request in flight when the disk filled is censored, so the window can end before the log does.
      assert.ok(run.end.log_end_ms! < 4000, `log ends at ${run.end.log_end_ms} ms`);
      const inWindow = run.requests.filter(pl.col("scheduled_ms").lt(run.end.cut_ms!)).height;
      assert.equal(inWindow + run.end.censored + run.end.after_cut, 800);
    } finally {
      await srv.close();
      await disk.unmount();
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a disk without room for the run: refused before the first request, the file named, exit 6, no folder left",
  ignore: !canMount,
  async fn() {
    // 200 KiB: the schedule and the CSV headers fit, the 1 MiB reserve does not.
    const disk = await smallDisk(200 * 1024);
    if (typeof disk === "string") throw new Error(disk);
    const dir = Deno.makeTempDirSync();
    const srv = await startFaultServer({ tokens: 3 });
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          ...["run", "-A", RUN, "--workload", writeWorkload(dir, [tinyCase()]), "--plan", constantPlan(dir, 10, 1)],
          ...["--target", `${srv.url}/ok-sse`, "--out", disk.path, "--run-id", "small", "--no-progress"],
          ...["--no-preflight", "--no-server-timeline"],
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 6, stderr);
      assert.doesNotMatch(stderr, /^\s+at /m, "no stack trace");
      const errors = stderr.split("\n").filter((l) => l.startsWith("error:"));
      assert.deepEqual(errors.length, 1, stderr);
      assert.match(
        errors[0]!,
        /^error: cannot write \S+\/small\/\.goodput-reserve: .*\(ENOSPC\): the run did not start/,
      );
      assert.equal(srv.requests.filter((r) => r.target.includes("chat/completions")).length, 0, "nothing sent");
      assert.deepEqual([...Deno.readDirSync(disk.path)], [], "no folder left");
    } finally {
      await srv.close();
      await disk.unmount();
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

if (cannotMount) console.error(`disk_full_test: skipped: ${cannotMount}`);
