import assert from "node:assert/strict";
import { runCli as runCliAt } from "../support/run_cli.ts";

const SIM_CLI = new URL("../../sim/cli.ts", import.meta.url).pathname;
const runCli = (args: string[]) =>
  runCliAt(SIM_CLI, args, ["--allow-net=127.0.0.1", "--allow-read", "--allow-write", "--allow-env"]);

Deno.test("sim CLI: bad input exits 2 with a message, never a stack trace", async (t) => {
  await t.step("an unknown flag", async () => {
    const r = await runCli(["--bogus", "1"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--bogus/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });
  await t.step("a bad number", async () => {
    const r = await runCli(["--port", "http"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--port: expected an integer in \[0, 65535\], got "http"/);
  });
  await t.step("a profile with a bad field names the file and the field", async () => {
    const file = await Deno.makeTempFile({ suffix: ".json" });
    await Deno.writeTextFile(file, JSON.stringify({ name: "x", queue: { max_len: "many" } }));
    const r = await runCli(["--profile", file, "--port", "0"]);
    await Deno.remove(file);
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`${file}: queue\\.max_len: `));
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });
  await t.step("a non-loopback --host without --expose is refused before anything listens", async () => {
    const r = await runCli(["--host", "0.0.0.0", "--port", "0"]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /hostname 0\.0\.0\.0: the simulator listens on loopback only .* unless exposed \(--expose\)/,
    );
  });
  await t.step("--tls-cert without --tls-key, or a file that is not PEM, is refused", async () => {
    const file = await Deno.makeTempFile({ suffix: ".pem" });
    await Deno.writeTextFile(file, "not a certificate");
    const one = await runCli(["--tls-cert", file, "--port", "0"]);
    assert.equal(one.code, 2);
    assert.match(one.stderr, /--tls-cert and --tls-key: give both or neither/);
    const both = await runCli(["--tls-cert", file, "--tls-key", file, "--port", "0"]);
    await Deno.remove(file);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--tls-cert .*\.pem: not a PEM file/);
    assert.doesNotMatch(both.stderr, /\n\s+at /);
  });
  await t.step("a missing workload names the path", async () => {
    const r = await runCli(["--workload", "no/such/workload", "--port", "0"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no\/such\/workload: cannot read workload/);
  });
});

Deno.test("sim CLI: serves the design workload, prints its URL, writes the timeline, stops after --duration-s", async () => {
  const file = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    const r = await runCli([
      "--port",
      "0",
      "--profile",
      "data/sim/fast.json",
      "--duration-s",
      "1.2",
      "--timeline",
      file,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout.trim(), /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(r.stderr, /fast \(72 cases\) listening/);
    const rows = (await Deno.readTextFile(file)).trim().split("\n");
    assert.equal(rows.length, 1);
    assert.equal(JSON.parse(rows[0]!).replicas, 1);
  } finally {
    await Deno.remove(file);
  }
});
