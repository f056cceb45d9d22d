import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { AttemptRow, PhaseRow, RequestRow, ToolRow } from "../../schema/events.ts";
import { readTable, T0, withRecorder } from "./_fixture.ts";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

Deno.test("a task without a page: every time column of every table, hand-computed", async () => {
  await withRecorder({}, async ({ rec, clock, out }) => {
    // The recorder starts at T0: the run's epoch, so a row time is (instant − T0).
    clock.at(100);
    const task = rec.begin({ class: "chat", case_id: "c-1", request_id: "q-a", at: T0 + 90, prompt: "What is 2+2?" });
    clock.at(101);
    task.received();
    clock.at(102);
    assert.equal(await task.span("retrieval", () => (clock.at(122), "docs")), "docs");
    clock.at(123);
    await task.phase("queue", () => void clock.at(125));
    const call = { streamed: true, provider: "p", model: "m-1" };
    const a1 = task.attempt(call); // sent at 125
    clock.at(181); // the call's instants below are told, each no later than the clock's now
    a1.headers(503, T0 + 180);
    a1.end({ ok: false, http_status: 503, at: T0 + 181 });
    clock.at(231);
    const a2 = task.attempt(call);
    clock.at(405);
    a2.headers(200, T0 + 300);
    for (const t of [310, 330, 340, 400]) a2.token(T0 + t);
    const u2 = { input_tokens: 100, cached_input_tokens: 10, output_tokens: 4, reasoning_tokens: 2 };
    a2.end({ ok: true, http_status: 200, finish_reason: "tool_calls", usage: u2, at: T0 + 405 });
    clock.at(406);
    await task.span("lookup", () => void clock.at(416)); // a tool after a model call: round 1
    clock.at(420);
    const a3 = task.attempt(call); // round 1
    clock.at(500);
    a3.headers(200, T0 + 430);
    a3.token(T0 + 450);
    a3.token(T0 + 470);
    const u3 = { input_tokens: 130, output_tokens: 9 };
    a3.end({ ok: true, http_status: 200, finish_reason: "stop", usage: u3, service_mode: "full", at: T0 + 500 });
    clock.at(505);
    task.complete({ output: "4", valid: true, quality_ok: true, schema_ok: null });
    clock.at(507);
    task.responded();
    clock.at(510);
    task.rendered();
    clock.at(1000);
    await rec.flush();

    const [req] = await readTable(out, "requests");
    const expected: RequestRow = {
      run_id: "prod-1",
      request_id: "q-a",
      case_id: "c-1",
      class: "chat",
      priority: 0,
      stage: "w0000", // floor(90 / 3,600,000)
      shard: 0,
      route: "app",
      scheduled_ms: 90, // TaskStart.at = T0 + 90
      send_lag_ms: 35, // 125 − 90
      first_sent_ms: 125, // no task.sent(): the first model call's send
      first_token_ms: 450, // no task.firstToken(): the final model call's first token
      completed_ms: 510, // task.rendered()
      outcome: "ok",
      http_status: 200,
      error_kind: null,
      attempts: 3,
      rounds: 2, // rounds 0 and 1
      tool_calls: 1, // lookup (retrieval is not a tool call)
      tool_ms: 30, // (122 − 102) + (416 − 406)
      input_tokens: 230, // 100 + 130 (the calls that answered)
      cached_input_tokens: 10, // 10 + 0
      output_tokens: 13, // 4 + 9
      finish_reason: "stop",
      output_valid: true,
      schema_ok: null,
      quality_ok: true,
      safety_ok: null,
      auth_ok: null,
      quality_detail: null,
      prompt_sha256: sha("What is 2+2?"),
      output_sha256: sha("4"),
      streamed: true,
      applicable_gates: "output_valid,schema_ok,quality_ok", // schema_ok was given (null: not evaluated)
      service_mode: "full",
      reasoning_tokens: 2, // only a2 reported them
      cache_write_tokens: null,
    };
    assert.deepEqual(req, expected);

    const base = { run_id: "prod-1", request_id: "q-a", route: "app", provider: "p", model: "m-1", streamed: true };
    const none = {
      service_mode: null,
      reasoning_tokens: null,
      cache_write_tokens: null,
      retry_after_ms: null,
      service_tier_requested: null,
      service_tier: null,
      rl_limit_requests: null,
      rl_remaining_requests: null,
      rl_limit_tokens: null,
      rl_remaining_tokens: null,
      rl_reset_requests_ms: null,
      rl_reset_tokens_ms: null,
      retry_reason: null,
      backoff_ms: null,
      error_kind: null,
    };
    const attempts: AttemptRow[] = [
      {
        ...base,
        ...none,
        round: 0,
        attempt: 1,
        sent_ms: 125,
        headers_ms: 180,
        first_token_ms: null,
        last_token_ms: null,
        completed_ms: null, // failed
        http_status: 503,
        error_kind: "http_503",
        retry_reason: "http_503", // failed and followed by another call of round 0
        backoff_ms: 50, // 231 − 181
        input_tokens: 0,
        cached_input_tokens: 0,
        output_tokens: 0,
        token_source: null,
        finish_reason: null,
        itl_p50_ms: null,
        itl_max_ms: null,
      },
      {
        ...base,
        ...none,
        round: 0,
        attempt: 2,
        sent_ms: 231,
        headers_ms: 300,
        first_token_ms: 310,
        last_token_ms: 400,
        completed_ms: 405,
        http_status: 200,
        input_tokens: 100,
        cached_input_tokens: 10,
        output_tokens: 4,
        token_source: "usage",
        finish_reason: "tool_calls",
        itl_p50_ms: 20, // gaps 20, 10, 60: median 20
        itl_max_ms: 60,
        reasoning_tokens: 2,
      },
      {
        ...base,
        ...none,
        round: 1,
        attempt: 1,
        sent_ms: 420,
        headers_ms: 430,
        first_token_ms: 450,
        last_token_ms: 470,
        completed_ms: 500,
        http_status: 200,
        input_tokens: 130,
        cached_input_tokens: 0,
        output_tokens: 9,
        token_source: "usage",
        finish_reason: "stop",
        itl_p50_ms: 20, // one gap: 470 − 450
        itl_max_ms: 20,
        service_mode: "full",
      },
    ];
    assert.deepEqual(await readTable(out, "attempts"), attempts);

    const tool = { run_id: "prod-1", request_id: "q-a", ok: true, error_kind: null };
    const tools: ToolRow[] = [
      { ...tool, round: 0, tool: "retrieval", started_ms: 102, ended_ms: 122 },
      { ...tool, round: 1, tool: "lookup", started_ms: 406, ended_ms: 416 },
    ];
    assert.deepEqual(await readTable(out, "tools"), tools);

    const phase = { run_id: "prod-1", request_id: "q-a", side: "service", clock_offset_ms: null, clock_error_ms: null };
    const phases: PhaseRow[] = [
      { ...phase, phase: "service", side: "service", started_ms: 101, ended_ms: 507 }, // received → responded
      { ...phase, phase: "queue", side: "service", started_ms: 123, ended_ms: 125 },
    ];
    assert.deepEqual(await readTable(out, "phases"), phases);
  });
});

Deno.test("a task whose page record joins: its times come from the page, placed on the service clock", async () => {
  await withRecorder({}, async ({ rec, clock, out }) => {
    // The page's clock is 250 ms ahead of the service's (offset = page − service), error bound 2.5 ms.
    const page = (ms: number) => T0 + ms + 250;
    clock.at(2000);
    const task = rec.begin({ class: "chat", request_id: "q-b", page: true }); // begun at 2000
    task.received(); // 2000
    clock.at(2010);
    const a = task.attempt(); // sent 2010
    a.headers(200); // 2010
    clock.at(2100);
    a.token();
    clock.at(2290);
    a.token();
    a.end({ ok: true, usage: { input_tokens: 50, output_tokens: 20 } }); // at 2290
    clock.at(2292);
    task.complete({ output: "hello", valid: true, quality_ok: false, quality_detail: "too short", safety_ok: true });
    clock.at(2295);
    task.responded();
    clock.at(2400);
    await rec.flush();
    assert.equal(rec.stats().written, 0, "the task waits for its page record");

    rec.page({
      request_id: "q-b",
      action_ms: page(1990),
      sent_ms: page(1996),
      first_byte_ms: page(2105),
      first_paint_ms: page(2112),
      last_byte_ms: page(2298),
      rendered_ms: page(2320),
      clock_offset_ms: 250,
      clock_error_ms: 2.5,
    });
    clock.at(2500);
    await rec.flush();
    assert.equal(rec.stats().written, 1);

    const [req] = await readTable(out, "requests");
    assert.deepEqual(
      {
        scheduled_ms: req!.scheduled_ms,
        send_lag_ms: req!.send_lag_ms,
        first_sent_ms: req!.first_sent_ms,
        first_token_ms: req!.first_token_ms,
        completed_ms: req!.completed_ms,
      },
      {
        scheduled_ms: 1990, // the page's action: (T0 + 1990 + 250) − 250 − T0
        send_lag_ms: 6, // 1996 − 1990
        first_sent_ms: 1996, // the page's send
        first_token_ms: 2112, // the page's first paint of a token
        completed_ms: 2320, // the page's render
      },
    );
    assert.equal(req!.outcome, "ok");
    assert.equal(req!.case_id, "chat", "case_id defaults to the class");
    assert.equal(req!.prompt_sha256, sha("chat"), "without a prompt: the sha256 of the case_id");
    assert.equal(req!.applicable_gates, "output_valid,quality_ok,safety_ok");
    assert.deepEqual([req!.output_valid, req!.quality_ok, req!.safety_ok], [true, false, true]);
    assert.equal(req!.quality_detail, "too short");
    assert.equal(req!.streamed, null, "the call did not say whether it streamed");
    const [att] = await readTable(out, "attempts");
    assert.deepEqual(
      [att!.sent_ms, att!.headers_ms, att!.first_token_ms, att!.last_token_ms, att!.completed_ms],
      [2010, 2010, 2100, 2290, 2290],
    );
    assert.deepEqual([att!.itl_p50_ms, att!.itl_max_ms, att!.provider, att!.model], [190, 190, "", ""]);

    const rows = (await readTable(out, "phases")).map((p) => [
      p.phase,
      p.side,
      p.started_ms,
      p.ended_ms,
      p.clock_offset_ms,
      p.clock_error_ms,
    ]);
    assert.deepEqual(rows, [
      ["page", "page", 1990, 1996, 250, 2.5], // action → send, both on the page
      ["network_up", "network", 1996, 2000, 250, 2.5], // the page's send → task.received()
      ["service", "service", 2000, 2295, null, null], // received → responded
      ["network_down", "network", 2295, 2298, 250, 2.5], // responded → the page's last byte
      ["render", "page", 2298, 2320, 250, 2.5], // last byte → the paint after the final update
    ]);
  });
});

Deno.test("outcome of a completed task follows its final model call; the page can still say the user never saw it", async (t) => {
  const finals = [
    { name: "429", end: { ok: false, http_status: 429 }, want: ["rejected", "http_429"] },
    { name: "500", end: { ok: false, http_status: 500 }, want: ["http_error", "http_500"] },
    { name: "a timeout kind", end: { ok: false, error_kind: "read_timeout" }, want: ["timeout", "read_timeout"] },
    { name: "no status", end: { ok: false, error_kind: "ECONNRESET" }, want: ["transport_error", "ECONNRESET"] },
    { name: "no status, no kind", end: { ok: false }, want: ["transport_error", "attempt_failed"] },
    {
      name: "2xx not usable",
      end: { ok: false, http_status: 200, error_kind: "bad_json" },
      want: ["invalid_response", "bad_json"],
    },
    { name: "never ended", end: null, want: ["aborted", "attempt_not_ended"] },
  ] as const;
  for (const f of finals) {
    await t.step(f.name, async () => {
      await withRecorder({}, async ({ rec, out }) => {
        const task = rec.begin({ class: "c" });
        const a = task.attempt();
        if (f.end) a.end(f.end);
        task.complete({ valid: true });
        await rec.flush();
        const [req] = await readTable(out, "requests");
        assert.deepEqual([req!.outcome, req!.error_kind, req!.completed_ms], [...f.want, null]);
      });
    });
  }
  await t.step("a page that gave up makes an ok task aborted", async () => {
    await withRecorder({}, async ({ rec, out, clock }) => {
      const task = rec.begin({ class: "c", request_id: "q", page: true });
      task.attempt().end({ ok: true });
      task.complete({ valid: true });
      const at = clock.now();
      rec.page({
        request_id: "q",
        action_ms: at - 5,
        sent_ms: at - 4,
        first_byte_ms: null,
        first_paint_ms: null,
        last_byte_ms: null,
        rendered_ms: null,
        clock_offset_ms: 0,
        clock_error_ms: 0,
        error: "navigated_away",
      });
      await rec.flush();
      const [req] = await readTable(out, "requests");
      assert.deepEqual([req!.outcome, req!.error_kind, req!.completed_ms], ["aborted", "page:navigated_away", null]);
    });
  });
  await t.step("fail() writes its outcome and kind, and no completed_ms", async () => {
    await withRecorder({}, async ({ rec, out }) => {
      rec.begin({ class: "c" }).fail("timeout", "upstream_deadline");
      await rec.flush();
      const [req] = await readTable(out, "requests");
      assert.deepEqual([req!.outcome, req!.error_kind, req!.completed_ms, req!.applicable_gates], [
        "timeout",
        "upstream_deadline",
        null,
        "output_valid,quality_ok",
      ]);
    });
  });
});

Deno.test("a retry reason and backoff the caller gives are written as given", async () => {
  await withRecorder({}, async ({ rec, out, clock }) => {
    const task = rec.begin({ class: "c" });
    clock.at(10);
    const first = task.attempt();
    clock.at(20);
    first.end({ ok: false, http_status: 503, retry_reason: "fallback:http_503", backoff_ms: 0, at: T0 + 20 });
    clock.at(70);
    const second = task.attempt({ route: "backup" });
    clock.at(90);
    second.end({ ok: true, at: T0 + 90 });
    task.complete({});
    await rec.flush();
    const rows = await readTable(out, "attempts");
    assert.deepEqual(rows.map((a) => [a.route, a.attempt, a.retry_reason, a.backoff_ms]), [
      ["app", 1, "fallback:http_503", 0], // given (derived would be http_503 and 70 − 20 = 50)
      ["backup", 2, null, null],
    ]);
    const [req] = await readTable(out, "requests");
    assert.equal(req!.route, "backup", "the route of the final call");
  });
});
