import assert from "node:assert/strict";
import { readManifest, readTable, T0, withRecorder } from "./_fixture.ts";

Deno.test("a task not completed within task_timeout_ms of its action is written aborted, unfinished_timeout", async () => {
  await withRecorder({ task_timeout_ms: 1000 }, async ({ rec, clock, out }) => {
    clock.at(100);
    const task = rec.begin({ class: "c", request_id: "slow", at: T0 + 50 }); // the action at 50
    const call = task.attempt({ streamed: true }); // sent at 100
    clock.at(200);
    call.token(T0 + 200);
    clock.at(1049); // 1049 − 50 = 999 < 1000
    await rec.flush();
    assert.equal(rec.stats().written, 0);
    clock.at(1050); // 1050 − 50 = 1000 ≥ 1000
    await rec.flush();
    task.complete({ valid: true }); // too late: ignored
    await rec.flush();
    const rows = await readTable(out, "requests");
    assert.equal(rows.length, 1);
    const r = rows[0]!;
    assert.deepEqual(
      [r.outcome, r.error_kind, r.scheduled_ms, r.first_sent_ms, r.first_token_ms, r.completed_ms, r.send_lag_ms],
      ["aborted", "unfinished_timeout", 50, 100, 200, null, 50], // sent by its only call at 100: lag 100 − 50
    );
    const [a] = await readTable(out, "attempts");
    assert.deepEqual([a!.error_kind, a!.completed_ms], ["attempt_not_ended", null]);
  });
});

Deno.test("a task still open at close is written aborted, unfinished_at_close", async () => {
  await withRecorder({}, async ({ rec, clock, out }) => {
    clock.at(10);
    rec.begin({ class: "c", request_id: "open" }).received();
    clock.at(20);
    await rec.close();
    const [r] = await readTable(out, "requests");
    assert.deepEqual([r!.request_id, r!.outcome, r!.error_kind, r!.completed_ms], [
      "open",
      "aborted",
      "unfinished_at_close",
      null,
    ]);
    assert.equal(readManifest(out).requests, 1);
  });
});

Deno.test("a completed task waits page_wait_ms for its page record, then is written on the service's times", async () => {
  await withRecorder({ page_wait_ms: 500 }, async ({ rec, clock, out }) => {
    const task = rec.begin({ class: "c", request_id: "p", page: true }); // at 0
    clock.at(2);
    task.sent(T0 + 2);
    clock.at(100);
    task.complete({ valid: true });
    clock.at(599); // 599 − 100 < 500
    await rec.flush();
    assert.equal(rec.stats().written, 0);
    clock.at(600); // 600 − 100 = 500: written without a page
    await rec.flush();
    const [r] = await readTable(out, "requests");
    assert.deepEqual([r!.scheduled_ms, r!.first_sent_ms, r!.completed_ms, r!.outcome], [0, 2, 100, "ok"]);
    assert.deepEqual(await readTable(out, "phases"), []);
    // The page record arrives after the task was written: counted as unjoined.
    rec.page({
      request_id: "p",
      action_ms: T0,
      sent_ms: T0 + 1,
      first_byte_ms: null,
      first_paint_ms: null,
      last_byte_ms: null,
      rendered_ms: null,
      clock_offset_ms: 0,
      clock_error_ms: 0,
    });
    assert.equal(rec.stats().page_records_unjoined, 1);
    await rec.flush();
    assert.equal(readManifest(out).dropped.page_records_unjoined, 1);
  });
});
