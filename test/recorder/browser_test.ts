import assert from "node:assert/strict";
import { estimateClockOffset, isSampled, pageRecorder, REQUEST_ID_HEADER, sampleHash } from "../../recorder/browser.js";
import { checkPageRecord } from "../../recorder/page_join.ts";
import { isSampled as serviceSampled, sampleHash as serviceHash } from "../../recorder/sampling.ts";
import { FakePage, settle } from "./_page_env.ts";

Deno.test("estimateClockOffset() takes the probe with the smallest round trip, page − service, ± half its round trip", async (t) => {
  await t.step("the midpoint of the best probe minus the service's time", () => {
    // Round trips 10, 3 and 4 ms: the second wins. Page midpoint (2000 + 2003) / 2 = 2001.5; service 1001:
    // offset 2001.5 − 1001 = 1000.5 ms (page ahead), error 3 / 2 = 1.5 ms.
    const est = estimateClockOffset([
      { page_sent_ms: 1000, service_ms: 5, page_received_ms: 1010 },
      { page_sent_ms: 2000, service_ms: 1001, page_received_ms: 2003 },
      { page_sent_ms: 3000, service_ms: 2001, page_received_ms: 3004 },
    ]);
    assert.deepEqual(est, { offset_ms: 1000.5, error_ms: 1.5 });
  });
  await t.step("a page behind the service has a negative offset", () => {
    // Midpoint (500 + 502) / 2 = 501; service 751 → 501 − 751 = −250, error 1.
    assert.deepEqual(estimateClockOffset([{ page_sent_ms: 500, service_ms: 751, page_received_ms: 502 }]), {
      offset_ms: -250,
      error_ms: 1,
    });
  });
  await t.step("no sample, no estimate", () => assert.equal(estimateClockOffset([]), null));
});

Deno.test("isSampled() keeps an id when its 32-bit hash over 2^32 falls below the rate (the service's rule)", async (t) => {
  await t.step("FNV-1a of 'a' is 0xe40c292c (the FNV test vector); fmix32 makes it 0x1a80b1b3", () => {
    assert.equal(sampleHash("a"), 0x1a80b1b3);
  });
  await t.step("0x1a80b1b3 / 2^32 = 444641715 / 4294967296 = 0.1035…: sampled at 0.2, not at 0.1", () => {
    assert.equal(isSampled("a", 0.2), true);
    assert.equal(isSampled("a", 0.1), false);
  });
  await t.step("every id at rate 1", () => assert.equal(isSampled("ffffffff-ffff-4fff-bfff-ffffffffffff", 1), true));
  await t.step("the page and the service (recorder/sampling.ts) decide alike, id by id", () => {
    const ids = Array.from({ length: 2000 }, (_, i) => (i % 2 ? crypto.randomUUID() : `req-${i}-é`));
    assert.deepEqual(ids.map(sampleHash), ids.map(serviceHash));
    for (const rate of [0.01, 0.1, 0.5, 0.99]) {
      assert.deepEqual(ids.map((id) => isSampled(id, rate)), ids.map((id) => serviceSampled(id, rate)));
    }
  });
});

Deno.test("pageRecorder() times one action from the event to the paint after the final DOM update", async () => {
  const page = new FakePage();
  page.offset = 250; // the page's clock is 250 ms ahead of the service's
  page.probeDelays = [[4, 6], [1, 2], [3, 3]];
  const rec = pageRecorder({ env: page.env, flush_ms: 1000 });
  await settle();
  // Probes: RTTs 10, 3, 6: the second wins: offset 250 + (down − up) / 2 = 250 + (2 − 1) / 2 = 250.5, error 1.5.
  assert.deepEqual(rec.clock(), { offset_ms: 250.5, error_ms: 1.5 });
  const t0 = page.t;
  // The click happened 12 ms before the handler ran: timeStamp is ms after timeOrigin.
  const task = rec.begin({ timeStamp: t0 - 12 - page.timeOrigin });
  assert.deepEqual(task.headers(), { [REQUEST_ID_HEADER]: task.request_id });
  await page.advance(2);
  task.sent(); // t0 + 2
  await page.advance(40);
  task.firstByte(); // t0 + 42
  await page.advance(8);
  task.firstToken(); // t0 + 50: the paint is the task after the next frame
  await page.advance(6);
  await page.paint(3); // frame at t0 + 56, the task after it at t0 + 59
  await page.advance(100);
  task.lastByte(); // t0 + 159
  await page.advance(1);
  task.rendered(); // t0 + 160
  await page.advance(10);
  await page.paint(2); // frame at t0 + 170, task at t0 + 172: the record is finished, posted after flush_ms
  assert.equal(page.posted().length, 0);
  await page.advance(1000);
  assert.deepEqual(page.posted(), [{
    request_id: task.request_id,
    action_ms: t0 - 12,
    sent_ms: t0 + 2,
    first_byte_ms: t0 + 42,
    first_paint_ms: t0 + 59,
    last_byte_ms: t0 + 159,
    rendered_ms: t0 + 172,
    clock_offset_ms: 250.5,
    clock_error_ms: 1.5,
    error: null,
  }]);
  assert.deepEqual(checkPageRecord(page.posted()[0]), { ok: true, record: page.posted()[0] }, "the service takes it");
  const post = page.sent.find((s) => s.url === "/_goodput/page")!;
  assert.equal(post.keepalive, true);
  assert.deepEqual(rec.stats(), { begun: 1, sampled_out: 0, posted: 1, dropped: 0, errors: 0 });
});

Deno.test("pageRecorder() posts in batches: at `batch` records at once, the rest after flush_ms", async () => {
  const page = new FakePage();
  const rec = pageRecorder({ env: page.env, batch: 2, flush_ms: 500, endpoint: "/rec/" });
  await settle();
  for (let i = 0; i < 3; i++) rec.begin(null).fail("HTTP 503");
  await settle();
  const posts = () => page.sent.filter((s) => s.url === "/rec/page").map((s) => JSON.parse(s.body!).length);
  assert.deepEqual(posts(), [2]);
  await page.advance(499);
  assert.deepEqual(posts(), [2]);
  await page.advance(1);
  assert.deepEqual(posts(), [2, 1]);
  assert.deepEqual(page.posted().map((r) => r.error), ["HTTP 503", "HTTP 503", "HTTP 503"]);
});

Deno.test("pageRecorder() in a page that never paints leaves the paint null and says why", async () => {
  const page = new FakePage();
  const rec = pageRecorder({ env: page.env, paint_wait_ms: 300, flush_ms: 10 });
  await settle();
  const task = rec.begin(null);
  task.firstToken();
  task.lastByte();
  task.rendered();
  await page.advance(310);
  const [r] = page.posted();
  assert.equal(r!.first_paint_ms, null);
  assert.equal(r!.rendered_ms, null);
  assert.equal(
    r!.error,
    "first_paint_ms: no paint within 300 ms (the page was hidden?); rendered_ms: no paint within 300 ms (the page was hidden?)",
  );
});

Deno.test("pageRecorder() on leaving the page sends every open task by beacon, with why", async () => {
  const page = new FakePage();
  const rec = pageRecorder({ env: page.env });
  await settle();
  const task = rec.begin(null);
  task.sent();
  page.leave();
  await settle();
  const beacon = page.sent.filter((s) => s.beacon);
  assert.equal(beacon.length, 1);
  assert.equal(JSON.parse(beacon[0]!.body!)[0].error, "the page was left before the answer was rendered");
  task.rendered(); // after the end: ignored
  await page.advance(5000);
  assert.equal(page.posted().length, 1);
});

Deno.test("pageRecorder() posts only the sampled ids, by the service's rule", async () => {
  const page = new FakePage();
  const rec = pageRecorder({ env: page.env, sample: 0.5, flush_ms: 10 });
  await settle();
  const ids = Array.from({ length: 8 }, () => {
    const task = rec.begin(null);
    assert.deepEqual(task.headers(), { [REQUEST_ID_HEADER]: task.request_id }, "sampled or not, the id is sent");
    task.fail("x");
    return task.request_id;
  });
  await page.advance(20);
  const kept = ids.filter((id) => isSampled(id, 0.5));
  assert.ok(kept.length > 0 && kept.length < 8, `the fake ids split: ${kept.length} of 8 kept`);
  assert.deepEqual(page.posted().map((r) => r.request_id), kept);
  assert.equal(rec.stats().sampled_out, 8 - kept.length);
});

Deno.test("pageRecorder() never throws into the page: failures are counted", async (t) => {
  await t.step("no clock probe succeeds: the records are dropped, not posted with a made-up offset", async () => {
    const page = new FakePage();
    page.clockStatus = null;
    const errors: unknown[] = [];
    const rec = pageRecorder({ env: page.env, flush_ms: 10, onError: (e) => errors.push(e) });
    await settle();
    rec.begin(null).fail("x");
    await page.advance(20);
    assert.equal(page.posted().length, 0);
    assert.equal(rec.stats().dropped, 1);
    assert.ok(errors.some((e) => /no clock probe/.test(String(e))));
  });
  await t.step("the page route answers 500: dropped and counted", async () => {
    const page = new FakePage();
    page.pageStatus = 500;
    const rec = pageRecorder({
      env: page.env,
      flush_ms: 10,
      onError: () => {
        throw new Error("the app's handler");
      },
    });
    await settle();
    rec.begin(null).fail("x");
    await page.advance(20);
    assert.deepEqual({ ...rec.stats(), begun: 0 }, { begun: 0, sampled_out: 0, posted: 0, dropped: 1, errors: 1 });
  });
  await t.step("a broken environment gives an inert recorder whose tasks still answer", () => {
    const page = new FakePage();
    const rec = pageRecorder({
      env: {
        ...page.env,
        uuid: () => {
          throw new Error("no uuid");
        },
      },
    });
    const task = rec.begin(null);
    assert.deepEqual(task.headers(), {});
    task.sent();
    task.rendered();
    assert.equal(rec.stats().errors, 1);
  });
  await t.step("a full buffer drops the newest records and counts them", async () => {
    const page = new FakePage();
    const rec = pageRecorder({ env: page.env, max_records: 2, batch: 100, flush_ms: 50 });
    await settle();
    for (let i = 0; i < 5; i++) rec.begin(null).fail("x");
    await page.advance(60);
    assert.equal(page.posted().length, 2);
    assert.equal(rec.stats().dropped, 3);
  });
});

Deno.test("pageRecorder() keeps a record's error within what the service takes (1 to 200 characters)", async () => {
  const page = new FakePage();
  const rec = pageRecorder({ env: page.env, flush_ms: 10 });
  await settle();
  rec.begin(null).fail("x".repeat(300));
  rec.begin(null).fail("");
  await page.advance(20);
  assert.deepEqual(page.posted().map((r) => r.error), ["x".repeat(200), "failed"]);
});
