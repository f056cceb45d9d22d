/**
 * `npx deno task run` reaches the hosts the user names (issue 30 §1), shown on loopback only: the runner CLI as a
 * subprocess WITH THE `run` TASK'S OWN PERMISSION FLAGS (read from deno.json: pinned to 127.0.0.1 again, this fails)
 * against a simulator on 127.0.0.2, alone and split over workers (narrowed to the allow-list); through a forward
 * proxy written here (HTTP_PROXY honoured and recorded, NO_PROXY too); and https with a throwaway CA (a certificate
 * not trusted is a pre-flight failure naming the host; DENO_CERT trusts it).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadSimProfile } from "../../schema/sim_profile.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { type SimHandle, startSim } from "../../sim/mod.ts";
import { constantPlan, tinyCase, writeWorkload } from "../../testing/tiny_workload.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RUN = join(ROOT, "runner/cli/run.ts");
/** Variables that would change where the run's requests go: unset in the child unless a step sets them. */
const NET_VARS = [
  "ALL_PROXY",
  "all_proxy",
  "HTTPS_PROXY",
  "https_proxy",
  "HTTP_PROXY",
  "http_proxy",
  "NO_PROXY",
  "no_proxy",
  "REQUEST_METHOD",
  "DENO_CERT",
];

/** The `run` task's permission and V8 flags, as deno.json states them. */
function runTaskFlags(): string[] {
  const task = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).tasks.run as string;
  const flags = task.split(/\s+/).filter((w) => w.startsWith("--allow-") || w.startsWith("--v8-flags="));
  assert.ok(flags.some((f) => f.startsWith("--allow-net")), task);
  return flags;
}

interface Ran {
  code: number;
  stderr: string;
  dir: string;
}

/** The run CLI with the task's flags, `env` added to this process's environment without the NET_VARS. */
async function run(args: string[], o: { out: string; runId: string; env?: Record<string, string> }): Promise<Ran> {
  const env = Deno.env.toObject();
  for (const n of NET_VARS) delete env[n];
  const res = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...runTaskFlags(), RUN, ...args, "--out", o.out, "--run-id", o.runId, "--no-progress"],
    cwd: ROOT,
    env: { ...env, ...o.env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(90_000),
  }).output();
  return { code: res.code, stderr: new TextDecoder().decode(res.stderr), dir: join(o.out, o.runId) };
}

function manifest(dir: string) {
  return JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
}

/** Data rows of a run's requests.csv (every shard's, for a run split over workers). */
function requestRows(dir: string): number {
  let n = 0;
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) n += requestRows(p);
    else if (e.name === "requests.csv") n += Deno.readTextFileSync(p).trim().split("\n").length - 1;
  }
  return n;
}

/** A plain-http forward proxy on 127.0.0.1 (absolute-form requests): counts each request and passes it on. */
function forwardProxy() {
  const seen: string[] = [];
  const client = Deno.createHttpClient({});
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    seen.push(`${req.method} ${req.url}`);
    const headers = new Headers(req.headers);
    for (const h of ["connection", "proxy-connection", "proxy-authorization", "keep-alive"]) headers.delete(h);
    const up = await fetch(req.url, { method: req.method, headers, body: req.body, redirect: "manual", client });
    return new Response(up.body, { status: up.status, headers: up.headers });
  });
  return {
    seen,
    url: `http://127.0.0.1:${server.addr.port}`,
    async stop() {
      await server.shutdown();
      client.close();
    },
  };
}

async function simOn(hostname: string, workload: string, tls?: { cert: string; key: string }): Promise<SimHandle> {
  const profile = await loadSimProfile(join(ROOT, "data/sim/fast.json"));
  return await startSim({ hostname, port: 0, profile, workload: await loadWorkload(workload), quiet: true, tls });
}

Deno.test("run reaches a host other than 127.0.0.1 with the task's own permissions; proxies honoured and recorded", async (t) => {
  // Linux routes all of 127/8 to loopback: 127.0.0.2 is a host of its own on this machine, never off it.
  Deno.listen({ hostname: "127.0.0.2", port: 0 }).close();
  const tmp = Deno.makeTempDirSync({ prefix: "net_reach_" });
  const workload = writeWorkload(tmp, [tinyCase()]);
  const plan = constantPlan(tmp, 4, 1);
  const out = join(tmp, "out");
  const sim = await simOn("127.0.0.2", workload);
  const proxy = forwardProxy();
  const target = sim.url;
  const simHost = `127.0.0.2:${sim.port}`;
  const base = ["--workload", workload, "--plan", plan, "--target", target];
  try {
    await t.step("a target on 127.0.0.2: exit 0, every request logged, run.json names the one host", async () => {
      const r = await run(base, { out, runId: "direct" });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(requestRows(r.dir), 4);
      const m = manifest(r.dir);
      assert.deepEqual(m.net_allow, [simHost]);
      assert.equal(m.targets[0].proxy, null);
      assert.equal(m.targets[0].http_client, "raw");
    });

    await t.step("split over 2 workers, each allowed exactly the target's host", async () => {
      const r = await run([...base, "--workers", "2"], { out, runId: "workers" });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(requestRows(r.dir), 4);
    });

    await t.step("HTTP_PROXY: every request through the proxy, by fetch; run.json says which", async () => {
      const r = await run(base, { out, runId: "proxied", env: { HTTP_PROXY: proxy.url } });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(requestRows(r.dir), 4);
      const chat = proxy.seen.filter((s) => s === `POST ${target}/v1/chat/completions`);
      assert.ok(chat.length >= 5, `4 requests and the pre-flight probe through the proxy: ${proxy.seen.join(", ")}`);
      const m = manifest(r.dir);
      assert.deepEqual(m.targets[0].proxy, { url: proxy.url, env: "HTTP_PROXY" });
      assert.equal(m.targets[0].http_client, "fetch");
      assert.deepEqual(m.net_allow, [proxy.url.slice("http://".length), simHost]);
    });

    await t.step("NO_PROXY naming the target: nothing through the proxy", async () => {
      proxy.seen.length = 0;
      const r = await run(base, {
        out,
        runId: "no-proxy",
        env: { http_proxy: proxy.url, NO_PROXY: "localhost,127.0.0.2" },
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(requestRows(r.dir), 4);
      assert.deepEqual(proxy.seen, []);
      assert.equal(manifest(r.dir).targets[0].proxy, null);
    });

    await t.step("--http-client raw with a proxy that applies: refused (exit 2), nothing sent", async () => {
      proxy.seen.length = 0;
      const r = await run([...base, "--http-client", "raw"], { out, runId: "raw", env: { HTTP_PROXY: proxy.url } });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`--http-client raw: .*127\\.0\\.0\\.2.* goes through the proxy ${proxy.url}`));
      assert.deepEqual(proxy.seen, []);
    });
  } finally {
    await proxy.stop();
    await sim.stop();
  }
});

/** A throwaway CA and a server certificate for 127.0.0.1 signed by it (openssl), in `dir`. */
async function throwawayCa(dir: string): Promise<{ ca: string; cert: string; key: string }> {
  const openssl = async (...args: string[]) => {
    const r = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" }).output()
      .catch((e) => {
        throw new Error(`openssl (needed to make a throwaway CA for this test) could not run: ${e}`);
      });
    assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
  };
  const subj = (cn: string) => ["-subj", `/CN=${cn}`];
  await openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "1",
    ...subj("goodput throwaway test CA"),
  );
  await openssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
    ...subj("127.0.0.1"),
  );
  Deno.writeTextFileSync(
    join(dir, "ext.cnf"),
    "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  await openssl(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.pem",
    "-days",
    "1",
    "-extfile",
    "ext.cnf",
  );
  return { ca: join(dir, "ca.pem"), cert: join(dir, "server.pem"), key: join(dir, "server.key") };
}

Deno.test("an https target: a certificate not trusted fails the pre-flight naming the host; DENO_CERT trusts it", async (t) => {
  const tmp = Deno.makeTempDirSync({ prefix: "net_tls_" });
  const pki = await throwawayCa(tmp);
  const workload = writeWorkload(tmp, [tinyCase()]);
  const plan = constantPlan(tmp, 4, 1);
  const out = join(tmp, "out");
  const sim = await simOn("127.0.0.1", workload, {
    cert: Deno.readTextFileSync(pki.cert),
    key: Deno.readTextFileSync(pki.key),
  });
  const args = ["--workload", workload, "--plan", plan, "--target", sim.url];
  try {
    assert.match(sim.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    await t.step("not trusted: exit 4, the pre-flight names the host and DENO_CERT, nothing written", async () => {
      const r = await run(args, { out, runId: "untrusted" });
      assert.equal(r.code, 4, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(
          `pre-flight failed: ${sim.url}/v1/chat/completions \\(route [^)]+\\): TLS certificate of ` +
            `127\\.0\\.0\\.1:${sim.port} not trusted: UnknownIssuer \\(set DENO_CERT=FILE`,
        ),
      );
      assert.equal(r.stderr.match(/TLS certificate/g)?.length, 1, "one failure, no retry");
      assert.throws(() => Deno.statSync(r.dir), Deno.errors.NotFound);
    });

    await t.step("not trusted, --no-preflight: each attempt is a connect_error, not a reset", async () => {
      const r = await run([...args, "--no-preflight"], { out, runId: "untrusted-attempts" });
      assert.notEqual(r.code, 0, r.stderr);
      const [head, ...rows] = Deno.readTextFileSync(join(r.dir, "attempts.csv")).trim().split("\n");
      const kind = head!.split(",").indexOf("error_kind");
      assert.ok(rows.length >= 4 && kind >= 0);
      for (const row of rows) assert.equal(row.split(",")[kind], "connect_error", row);
    });

    await t.step("DENO_CERT=<the CA>: the run succeeds over https, by fetch", async () => {
      const r = await run(args, { out, runId: "trusted", env: { DENO_CERT: pki.ca } });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(requestRows(r.dir), 4);
      const m = manifest(r.dir);
      assert.equal(m.targets[0].http_client, "fetch");
      assert.deepEqual(m.net_allow, [`127.0.0.1:${sim.port}`]);
    });
  } finally {
    await sim.stop();
  }
});
