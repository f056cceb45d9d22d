import assert from "node:assert/strict";
import { MAX_PAGE_BODY, recorderRoutes } from "../../recorder/http.ts";
import { readTable, T0, withRecorder } from "./_fixture.ts";

const URL_BASE = "http://127.0.0.1:8000";

function pageRecord(id: string) {
  return {
    request_id: id,
    action_ms: T0 + 1,
    sent_ms: T0 + 2,
    first_byte_ms: T0 + 3,
    first_paint_ms: T0 + 4,
    last_byte_ms: T0 + 5,
    rendered_ms: T0 + 6,
    clock_offset_ms: 0,
    clock_error_ms: 0,
  };
}

const post = (path: string, body: string) => new Request(URL_BASE + path, { method: "POST", body });

Deno.test("recorderRoutes answers its two paths and leaves every other request to the app", async (t) => {
  await withRecorder({}, async ({ rec, clock, out }) => {
    const routes = recorderRoutes(rec);
    await t.step("GET /_goodput/clock gives the service clock", async () => {
      clock.at(1234.5);
      const res = await routes(new Request(`${URL_BASE}/_goodput/clock`))!;
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.deepEqual(await res.json(), { service_ms: T0 + 1234.5 });
    });
    await t.step("another path is not ours: null", () => {
      assert.equal(routes(new Request(`${URL_BASE}/api/chat`, { method: "POST", body: "{}" })), null);
      assert.equal(routes(new Request(`${URL_BASE}/_goodput/pages`)), null);
    });
    await t.step("a wrong method is 405", async () => {
      const res = await routes(new Request(`${URL_BASE}/_goodput/page`))!;
      assert.equal(res.status, 405);
      assert.equal(res.headers.get("allow"), "POST");
      await res.body?.cancel();
    });
    await t.step("POST one record, then an array: 204, joined", async () => {
      rec.begin({ class: "c", request_id: "a", page: true }).complete({});
      rec.begin({ class: "c", request_id: "b", page: true }).complete({});
      const one = await routes(post("/_goodput/page", JSON.stringify(pageRecord("a"))))!;
      assert.equal(one.status, 204);
      const many = await routes(post("/_goodput/page", JSON.stringify([pageRecord("b"), pageRecord("zzz")])))!;
      assert.equal(many.status, 204);
      await rec.flush();
      assert.deepEqual((await readTable(out, "requests")).map((r) => [r.request_id, r.scheduled_ms]), [
        ["a", 1],
        ["b", 1],
      ]);
      assert.equal(rec.stats().page_records_unjoined, 1, "zzz joins no task");
    });
    await t.step("a body that is not JSON is 400 and counted, never thrown", async () => {
      const before = rec.stats().recorder_errors;
      const res = await routes(post("/_goodput/page", "{not json"))!;
      assert.equal(res.status, 400);
      assert.equal(await res.text(), "body is not JSON");
      assert.equal(rec.stats().recorder_errors, before + 1);
    });
    await t.step("an invalid record is 400 with its problems; the valid ones beside it are taken", async () => {
      rec.begin({ class: "c", request_id: "c", page: true }).complete({});
      const bad = { ...pageRecord("x"), clock_error_ms: -1 };
      const res = await routes(post("/_goodput/page", JSON.stringify([pageRecord("c"), bad])))!;
      assert.equal(res.status, 400);
      assert.match(await res.text(), /^\[1\] clock_error_ms: /);
      await rec.flush();
      assert.ok((await readTable(out, "requests")).some((r) => r.request_id === "c"));
    });
    await t.step("a body over 64 KiB is 413, read no further", async () => {
      const before = rec.stats().recorder_errors;
      const big = JSON.stringify([pageRecord("x")]).padEnd(MAX_PAGE_BODY + 1, " ");
      const res = await routes(post("/_goodput/page", big))!;
      assert.equal(res.status, 413);
      await res.body?.cancel();
      assert.equal(rec.stats().recorder_errors, before + 1);
      // A stream with no declared length is cut at the bound too.
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < 3; i++) c.enqueue(new Uint8Array(MAX_PAGE_BODY / 2));
          c.close();
        },
      });
      const chunked = new Request(`${URL_BASE}/_goodput/page`, { method: "POST", body: stream });
      assert.equal((await routes(chunked)!).status, 413);
    });
  });
});

Deno.test("recorderRoutes takes another prefix, and serves a real Deno.serve on 127.0.0.1", async () => {
  await withRecorder({}, async ({ rec }) => {
    const routes = recorderRoutes(rec, { prefix: "/rec/" });
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
      return routes(req) ?? new Response("app", { status: 200 });
    });
    try {
      const base = `http://127.0.0.1:${server.addr.port}`;
      const clock = await fetch(`${base}/rec/clock`);
      assert.ok(typeof (await clock.json()).service_ms === "number");
      const app = await fetch(`${base}/_goodput/clock`);
      assert.equal(await app.text(), "app");
      const res = await fetch(`${base}/rec/page`, { method: "POST", body: JSON.stringify(pageRecord("none")) });
      assert.equal(res.status, 204);
      await res.body?.cancel();
    } finally {
      await server.shutdown();
    }
  });
});
