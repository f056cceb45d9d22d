import assert from "node:assert/strict";
import { join } from "node:path";
import { EXIT_PREFLIGHT, preflight } from "../../runner/preflight.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { chatUrl } from "../../runner/target_url.ts";
import { type FaultMode, startFaultServer } from "../support/fault_server.ts";
import { runCli } from "../support/run_cli.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** A port nothing listens on (taken, then closed). */
function deadPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Mode, whether the probe streams, ok, and what its reason must match (null: no reason). */
const PROBES: [FaultMode, boolean, boolean, RegExp | null][] = [
  ["ok-sse", true, true, null],
  ["ok-json", false, true, null],
  ["429", false, true, /^busy: HTTP 429 with an OpenAI error body \(fault: rate limited\)$/],
  ["503-empty", false, false, /^HTTP 503$/],
  ["501", false, false, /^HTTP 501: not implemented$/],
  ["401", false, false, /^HTTP 401 \(the key was refused: see --api-key-env\): invalid api key$/],
  ["500-html", false, false, /^HTTP 500$/],
  ["wrong-content-type", true, false, /^HTTP 200 with content-type "text\/html", not an OpenAI answer$/],
  ["json-html", false, false, /^HTTP 200 with content-type "text\/html", not an OpenAI answer$/],
  ["ok-json", true, false, /content-type "application\/json"/], // a JSON answer to a streamed probe
  ["malformed-sse", true, false, /^HTTP 200, not an OpenAI answer \(malformed_sse\): SSE data is not JSON/],
  ["sse-keepalive-only", true, false, /\(stream_incomplete\): the stream ended without \[DONE\] or a finish_reason/],
  ["json-not-json", false, false, /^HTTP 200, not an OpenAI answer \(invalid_json\): body is not JSON: OK$/],
  ["json-choices-string", false, false, /\(bad_choices\): choices is "tok0", not an array/],
  ["json-usage-negative", false, false, /\(bad_usage\): usage.prompt_tokens is -5/],
  ["garbage", false, false, /./],
];

Deno.test("preflight() calls a target OpenAI only for a well-formed answer, or a 429/503 with an OpenAI error body", async (t) => {
  const srv = await startFaultServer({ tokens: 2 });
  try {
    for (const [mode, stream, ok, reason] of PROBES) {
      await t.step(`${mode} ${stream ? "streamed" : "unstreamed"}`, async () => {
        const before = srv.requests.length;
        const [p] = await preflight(
          [{ route: "r", url: chatUrl(`${srv.url}/${mode}`), headers: {}, model: "m", stream }],
          { timeoutMs: 5000, maxBytes: 1 << 20 },
        );
        assert.equal(p!.ok, ok, p!.reason ?? "");
        if (reason) assert.match(p!.reason ?? "", reason);
        else assert.equal(p!.reason, null);
        assert.equal(p!.route, "r");
        assert.equal(p!.stream, stream);
        assert.equal(srv.requests.length - before, 1, "one probe request, never retried");
        const sent = JSON.parse(srv.requests.at(-1)!.body);
        assert.equal(sent.max_tokens, 1);
        assert.equal(sent.stream, stream);
        assert.equal(srv.requests.at(-1)!.headers.has("idempotency-key"), false, "not an offered request");
      });
    }
  } finally {
    await srv.close();
  }
});

Deno.test("preflight() names a refused connection, an answer that never comes and one over the size cap", async () => {
  const srv = await startFaultServer({ tokens: 2 });
  try {
    const at = (url: string) => ({ route: "r", url: chatUrl(url), headers: {}, model: "m", stream: false });
    const [refused, hung, big] = await Promise.all([
      preflight([at(`http://127.0.0.1:${deadPort()}`)], { timeoutMs: 2000, maxBytes: 1 << 20 }),
      preflight([at(`${srv.url}/hang`)], { timeoutMs: 300, maxBytes: 1 << 20 }),
      preflight([at(`${srv.url}/ok-json`)], { timeoutMs: 2000, maxBytes: 10 }),
    ]);
    assert.deepEqual([refused[0]!.ok, refused[0]!.status, refused[0]!.reason], [false, null, "connection refused"]);
    assert.deepEqual([hung[0]!.ok, hung[0]!.reason], [false, "no answer within 300 ms"]);
    assert.deepEqual([big[0]!.ok, big[0]!.reason], [false, "HTTP 200, answer over 10 bytes"]);
  } finally {
    await srv.close();
  }
});

Deno.test("a run with the pre-flight records the probe in run.json, not in the requests or attempts tables", async () => {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({ tokens: 2 });
  try {
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()]),
      plan: constantPlan(dir, 10, 0.3),
      target: `${srv.url}/ok-sse`,
      out: join(dir, "out"),
      formats: ["csv"],
      progress: false,
      serverTimeline: false,
      preflight: true,
    });
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
    assert.equal(manifest.preflight?.length, 1);
    const p = manifest.preflight![0]!;
    assert.deepEqual([p.route, p.url, p.stream, p.status, p.ok, p.reason], [
      manifest.targets[0]!.route,
      `${srv.url}/ok-sse/v1/chat/completions`,
      true,
      200,
      true,
      null,
    ]);
    // 3 offered requests (10 rps × 0.3 s), 3 attempts; the server received those 3 calls and the probe.
    assert.equal(requests.length, 3);
    assert.equal(attempts.length, 3);
    assert.equal(srv.requests.length, 4);
    assert.equal(srv.requests[0]!.headers.has("idempotency-key"), false, "the probe came first, before ms 0");
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

/** `deno task run`'s script against `target` (3 requests), with `extra` flags. */
async function cliAgainst(target: string, extra: string[] = []) {
  const dir = Deno.makeTempDirSync();
  const args = [
    ...["--workload", writeWorkload(dir, [tinyCase()], { qa: false }), "--plan", constantPlan(dir, 10, 0.3)],
    ...["--target", target, "--out", join(dir, "out"), "--run-id", "r", "--format", "csv", "--no-progress"],
    ...["--timeouts", writeJson(dir, "timeouts.json", { attempt_ms: 500, request_ms: 1500, idle_ms: 400 })],
    ...["--retry", writeJson(dir, "retry.json", { max_attempts: 1 }), "--no-server-timeline", ...extra],
  ];
  const r = await runCli(join(ROOT, "runner/cli/run.ts"), args);
  let written: string[] = [];
  try {
    written = [...Deno.readDirSync(join(dir, "out"))].map((e) => e.name);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  Deno.removeSync(dir, { recursive: true });
  return { ...r, written };
}

Deno.test("deno task run stops before ms 0 with exit 4, the target and the reason named, nothing written", async (t) => {
  const srv = await startFaultServer();
  try {
    const cases: [string, string, RegExp][] = [
      ["nothing listens", `http://127.0.0.1:${deadPort()}`, /v1\/chat\/completions \(route \w+\): connection refused/],
      [
        "HTML to everything",
        `${srv.url}/json-html`,
        /json-html\/v1\/chat\/completions \(route \w+\): HTTP 200 with content-type "text\/html"/,
      ],
      ["501 to everything", `${srv.url}/501`, /501\/v1\/chat\/completions \(route \w+\): HTTP 501: not implemented/],
    ];
    for (const [name, target, reason] of cases) {
      await t.step(name, async () => {
        const r = await cliAgainst(target);
        assert.equal(r.code, EXIT_PREFLIGHT, r.stderr);
        assert.equal(EXIT_PREFLIGHT, 4);
        assert.match(r.stderr, /^error: pre-flight failed: /m);
        assert.match(r.stderr, reason);
        assert.match(r.stderr, /No run was started and nothing was written; --no-preflight runs against it anyway/);
        assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
        assert.deepEqual(r.written, [], "no run folder");
      });
    }
  } finally {
    await srv.close();
  }
});

Deno.test("deno task run --no-preflight runs against a failing target anyway (exit 3, finalised)", async () => {
  const srv = await startFaultServer();
  try {
    const r = await cliAgainst(`${srv.url}/501`, ["--no-preflight"]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /no request succeeded: 0 of 3 offered requests ended ok \(http_error 3\)/);
    assert.deepEqual(r.written, ["r"]);
    // Without --conditions the CLI asks GET /v1/models once for the model's name; no chat probe.
    assert.deepEqual(srv.requests.map((q) => q.method).sort(), ["GET", "POST", "POST", "POST"]);
    assert.equal(srv.requests.find((q) => q.method === "GET")!.target, "/501/v1/models");
  } finally {
    await srv.close();
  }
});

Deno.test("preflight() does not follow a redirect: the key goes to the target's URL and nowhere else", async () => {
  const elsewhere = await startFaultServer();
  const ac = new AbortController();
  const seen: (string | null)[] = [];
  const redirector = Deno.serve({ hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} }, (req) => {
    seen.push(req.headers.get("authorization"));
    return new Response(null, { status: 302, headers: { location: `${elsewhere.url}/ok-json/v1/chat/completions` } });
  });
  try {
    const url = chatUrl(`http://127.0.0.1:${redirector.addr.port}`);
    const [p] = await preflight(
      [{ route: "r", url, headers: { authorization: "Bearer sk-test" }, model: "m", stream: false }],
      { timeoutMs: 2000, maxBytes: 1 << 20 },
    );
    assert.equal(p!.ok, false);
    assert.equal(p!.status, 302);
    assert.equal(p!.reason, `HTTP 302 redirect to ${elsewhere.url}/ok-json/v1/chat/completions, not followed`);
    assert.deepEqual(seen, ["Bearer sk-test"], "the key reached the target once");
    assert.equal(elsewhere.requests.length, 0, "nothing was sent to where the redirect pointed");
  } finally {
    ac.abort();
    await redirector.finished;
    await elsewhere.close();
  }
});
