import assert from "node:assert/strict";
import { mulberry32 } from "../../lib/prng.ts";
import { sampleHash as pageHash } from "../../recorder/browser.js";
import { isSampled, sampleHash } from "../../recorder/sampling.ts";
import { readManifest, readTable, withRecorder } from "./_fixture.ts";

Deno.test("sampleHash is FNV-1a then the murmur3 finalizer, over UTF-8 bytes", () => {
  // Computed apart from this code (Python, the rule of run.json sampling.rule):
  // FNV-1a("a") = 0xe40c292c (the FNV test vector), finalized 0x1a80b1b3; FNV-1a("foobar") = 0xbf9cf968 → 0x0c0da6dc;
  // FNV-1a("") = 0x811c9dc5 (the offset basis) → 0xab3e7c0b; "日本" is 6 UTF-8 bytes → 0xf004911f.
  assert.equal(sampleHash("a"), 0x1a80b1b3);
  assert.equal(sampleHash("foobar"), 0x0c0da6dc);
  assert.equal(sampleHash(""), 0xab3e7c0b);
  assert.equal(sampleHash("日本"), 0xf004911f);
});

// The page's hash (recorder/browser.js) takes its bytes from TextEncoder: the service's, which encodes UTF-8 itself,
// must agree with it on every id, or the two sides would sample different tasks.
Deno.test("sampleHash encodes UTF-8 as TextEncoder does (the page's hash): 1- to 4-byte characters, lone surrogates as U+FFFD", () => {
  const cases = [
    "req-1",
    "é",
    "\u07ff",
    "\u0800",
    "日本",
    "\uffff",
    "😀",
    "a😀b",
    "\ud800",
    "x\udc00y",
    "\ud83d",
    "\ud83d\ud83d\ude00",
  ];
  for (const id of cases) assert.equal(sampleHash(id), pageHash(id), JSON.stringify(id));
  // Random ids over every kind of UTF-16 unit (seeded: mulberry32).
  const rnd = mulberry32(15);
  const pools = [[0x20, 0x7f], [0x80, 0x7ff], [0x800, 0xd7ff], [0xd800, 0xdbff], [0xdc00, 0xdfff], [0xe000, 0xffff]];
  for (let k = 0; k < 2000; k++) {
    let id = "";
    const len = Math.floor(rnd() * 12);
    for (let i = 0; i < len; i++) {
      const [lo, hi] = pools[Math.floor(rnd() * pools.length)]!;
      id += String.fromCharCode(lo! + Math.floor(rnd() * (hi! - lo! + 1)));
    }
    assert.equal(sampleHash(id), pageHash(id), JSON.stringify(id));
  }
});

Deno.test("isSampled compares the hash over 2^32 with the rate", () => {
  // sampleHash("req-1") = 0x4884be10 = 1216658960; / 2^32 = 0.283275…
  assert.equal(isSampled("req-1", 0.2833), true);
  assert.equal(isSampled("req-1", 0.2832), false);
  assert.equal(isSampled("req-1", 1), true);
  // Of req-0 … req-9999, 953 fall below 0.1 (counted in Python with the same rule): 9.53 %.
  let n = 0;
  for (let i = 0; i < 10_000; i++) if (isSampled(`req-${i}`, 0.1)) n++;
  assert.equal(n, 953);
});

Deno.test("the recorder keeps exactly the sampled request ids, counts the rest, and states the rule", async () => {
  await withRecorder({ sample: 0.25 }, async ({ rec, out }) => {
    for (let i = 0; i < 20; i++) {
      const t = rec.begin({ class: "c", request_id: `t-${i}` });
      assert.equal(t.sampled, isSampled(`t-${i}`, 0.25));
      t.complete({});
    }
    await rec.flush();
    // Of t-0 … t-19, the ids below 0.25 are t-2, t-3, t-11, t-12, t-13 (Python, the same rule).
    const ids = (await readTable(out, "requests")).map((r) => r.request_id);
    assert.deepEqual(ids, ["t-2", "t-3", "t-11", "t-12", "t-13"]);
    const s = rec.stats();
    assert.deepEqual([s.begun, s.sampled_out, s.written], [20, 15, 5]);
    const m = readManifest(out);
    assert.equal(m.sampling.rate, 0.25);
    assert.match(m.sampling.rule, /FNV-1a .* fmix32/);
  });
});

Deno.test("an unsampled task records nothing, and its span, phase and run still run the app's code", async () => {
  await withRecorder({ sample: 0.25 }, async ({ rec, out, errors }) => {
    const t = rec.begin({ class: "c", request_id: "t-0" }); // t-0 is not sampled at 0.25
    assert.equal(t.sampled, false);
    assert.equal(await t.span("lookup", () => 42), 42);
    assert.equal(await t.phase("queue", () => Promise.resolve("q")), "q");
    const boom = new RangeError("the app's own");
    await assert.rejects(() => t.span("lookup", () => Promise.reject(boom)), (e) => e === boom);
    await assert.rejects(() =>
      t.phase("queue", () => {
        throw boom;
      }), (e) => e === boom);
    assert.equal(t.run(() => rec.current()), t);
    const a = t.attempt();
    a.headers(200);
    a.token();
    a.end({ ok: true });
    t.complete({ valid: true });
    await rec.flush();
    assert.deepEqual(await readTable(out, "requests"), []);
    assert.deepEqual(await readTable(out, "tools"), []);
    assert.deepEqual(errors, []);
  });
});
