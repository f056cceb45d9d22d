import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../../../support/run_cli.ts";
import { InputError } from "../../../../schema/errors.ts";
import { sha256Hex } from "../../../../schema/quality_file.ts";
import { sampleReview } from "../../../../analysis/quality/review/sample_review.ts";
import { readReviewKey } from "../../../../analysis/quality/review/read_key.ts";
import { opaqueIds, type PacketData } from "../../../../analysis/quality/review/packet.ts";
import { type ReviewRun, twoRuns, writeReviewRun } from "./_fixture.ts";

const OPEN_ENDED = new Set(["long_summary", "rag_answer"]);

/** The answers a review may sample, counted from the fixture's own rows (not by the code under test). */
function eligible(run: ReviewRun, classes = OPEN_ENDED) {
  return run.requests.filter((r) => r.outcome === "ok" && run.outputs.has(r.request_id) && classes.has(r.class));
}

function embedded(html: string): PacketData {
  const m = /<script type="application\/json" id="review-data">([^<]*)<\/script>/.exec(html);
  assert.ok(m, "the page embeds its data");
  return JSON.parse(m[1]!);
}

const { root, runs } = await twoRuns();

Deno.test("review sample: a seeded stratified packet of two runs; the key maps every opaque item to its run and request", async () => {
  const out = join(root, "p1.html");
  const r = await sampleReview(runs.map((x) => x.dir), {
    out,
    strata: ["class", "route", "stage"],
    sizing: { mode: "per_stratum", per_stratum: 3 },
    seed: 42,
    raters: ["ana", "bo"],
    double_share: 0.25,
  });
  const key = await readReviewKey(join(root, "p1.key.json"));
  assert.equal((await Deno.stat(join(root, "p1.key.json"))).mode! & 0o777, 0o600, "the key is the owner's only");
  assert.equal(key.html_sha256, sha256Hex(await Deno.readFile(out)));
  assert.equal(key.packet_file, "p1.html");
  // 2 classes × 2 routes × 2 stages = 8 strata of 3 each; populations counted from the fixture.
  assert.equal(key.design.strata.length, 8);
  for (const s of key.design.strata) {
    const [cls, route, stage] = s.name.split(" / ");
    const run = runs.find((x) => x.route === route)!;
    const pop = eligible(run).filter((q) => q.class === cls && q.stage === stage).length;
    assert.deepEqual([s.population, s.sampled], [pop, 3], s.name);
    assert.equal(key.items.filter((it) => it.stratum === s.name).length, 3);
  }
  assert.equal(key.design.population, runs.reduce((a, x) => a + eligible(x).length, 0));
  for (const [i, run] of runs.entries()) {
    const answered = run.requests.filter((q) => q.outcome === "ok").length;
    const saved = run.requests.filter((q) => run.outputs.has(q.request_id)).length;
    assert.deepEqual(
      [key.runs[i]!.run_id, key.runs[i]!.answered, key.runs[i]!.with_output, key.runs[i]!.eligible],
      [run.runId, answered, saved, eligible(run).length],
    );
    assert.equal(join(root, key.runs[i]!.dir), run.dir, "run folders relative to the key");
  }
  for (const it of key.items) {
    const run = runs[it.run]!;
    const q = eligible(run).find((x) => x.request_id === it.request_id);
    assert.ok(q, `${it.item} is an eligible answer of its run`);
    assert.equal(it.stratum, `${q.class} / ${q.route} / ${q.stage}`);
    assert.equal(r.data.items[it.item]!.answer, run.outputs.get(it.request_id), "the page shows that answer");
  }
  // 24 items: 6 rated by both, 18 dealt 9 and 9.
  assert.equal(key.design.double_rated.length, 6);
  assert.deepEqual([key.assignments.ana!.length, key.assignments.bo!.length], [15, 15]);
  assert.equal(r.data.packet_sha256, key.packet_sha256);
});

Deno.test("review sample: the page names no request, run, route or stage; items in id order, not the sample's", async () => {
  const out = join(root, "p2.html");
  const r = await sampleReview(runs.map((x) => x.dir), {
    out,
    strata: ["class", "route", "stage"],
    sizing: { mode: "total", total: 20, min_per_stratum: 2 },
    seed: 3,
    raters: ["ana", "bo"],
    double_share: 0.25,
  });
  const html = await Deno.readTextFile(out);
  for (const run of runs) {
    for (const q of run.requests) assert.ok(!html.includes(q.request_id), `request ${q.request_id} in the page`);
    for (const word of [run.runId, run.route, ...run.stages, "zephyr", "quokka"]) {
      assert.ok(!html.includes(word), `${word} in the page`);
    }
  }
  for (const it of r.fullKey.items) assert.ok(!html.includes(it.case_id), `case ${it.case_id} in the page`);
  for (const word of ["scheduled_ms", "completed_ms", "request_id", "run_id", "output_tokens"]) {
    assert.ok(!html.includes(word), `${word} in the page`);
  }
  const data = embedded(html);
  const ids = Object.keys(data.items);
  assert.deepEqual(ids, [...ids].sort(), "items in id order");
  // The ids were given in draw order (stratum by stratum): the page's order is not that one.
  const drawOrder = opaqueIds(r.sample.items.length, 3);
  assert.deepEqual([...drawOrder].sort(), ids);
  assert.notDeepEqual(ids, drawOrder, "not in draw order");
  assert.deepEqual(Object.keys(data).sort(), [
    "format",
    "items",
    "packet_id",
    "packet_sha256",
    "raters",
    "rubrics",
    "version",
  ]);
  for (const item of Object.values(data.items)) {
    assert.deepEqual(Object.keys(item).sort(), ["answer", "messages", "rubric", "tool_calls"]);
  }
  // The control: the key, which is not blinded, does name them, so the search above can find them.
  const key = await Deno.readTextFile(join(root, "p2.key.json"));
  assert.ok(
    key.includes("route-zephyr") && key.includes("holdstage-y") && key.includes(r.fullKey.items[0]!.request_id),
  );
});

Deno.test("review sample: the same runs, flags and seed give the same page; another seed another sample", async () => {
  const o = {
    strata: ["class", "route"] as const,
    sizing: { mode: "total", total: 12, min_per_stratum: 2 } as const,
    raters: ["ana", "bo", "cy"],
    double_share: 0.2,
  };
  const a = await sampleReview(runs.map((x) => x.dir), { ...o, seed: 8, out: join(root, "a.html") });
  const b = await sampleReview(runs.map((x) => x.dir), { ...o, seed: 8, out: join(root, "b.html") });
  const c = await sampleReview(runs.map((x) => x.dir), { ...o, seed: 9, out: join(root, "c.html") });
  assert.equal(a.html, b.html);
  assert.deepEqual(a.key, b.key);
  assert.notEqual(a.key.packet_id, c.key.packet_id);
  assert.notDeepEqual(a.fullKey.items.map((x) => x.request_id).sort(), c.fullKey.items.map((x) => x.request_id).sort());
});

Deno.test("review sample: --classes narrows the sample; a class without a rubric and a run without outputs are refused", async () => {
  const r = await sampleReview(runs.map((x) => x.dir), {
    out: join(root, "rag.html"),
    strata: ["class"],
    sizing: { mode: "per_stratum", per_stratum: 5 },
    seed: 1,
    raters: ["ana"],
    double_share: 0.25,
    classes: ["rag_answer"],
  });
  assert.deepEqual(new Set(r.fullKey.items.map((x) => x.class)), new Set(["rag_answer"]));
  assert.equal(r.fullKey.design.double_share, 0, "one rater: nothing double-rated");
  assert.deepEqual(r.fullKey.design.classes, ["rag_answer"]);

  const bare = writeReviewRun(join(root, "bare"), { runId: "bare", route: "r", tag: "bare", stages: ["s"] });
  await Deno.remove(join(bare.dir, "outputs.jsonl"));
  const e = await sampleReview([runs[0]!.dir, bare.dir], {
    out: join(root, "bad.html"),
    strata: ["class"],
    sizing: { mode: "per_stratum", per_stratum: 5 },
    seed: 1,
    raters: ["ana"],
    double_share: 0,
    classes: ["rag_answer", "short_qa"],
  }).then(() => null, (e) => e);
  assert.ok(e instanceof InputError);
  assert.match(e.message, /bare\/outputs\.jsonl: cannot read saved outputs/);
  assert.match(e.message, /--classes: class "short_qa" has no rubric/);
});

Deno.test("review sample: a saved output that is not the answer its row hashes is refused, naming the line", async () => {
  const run = writeReviewRun(join(root, "tampered"), { runId: "t", route: "r", tag: "tam", stages: ["s"] });
  const file = join(run.dir, "outputs.jsonl");
  const lines = (await Deno.readTextFile(file)).split("\n");
  lines[2] = lines[2]!.replace("Answer", "An edited answer");
  await Deno.writeTextFile(file, lines.join("\n"));
  // run.json lists the outputs' sha256: the edit is caught there first …
  const o = {
    out: join(root, "t.html"),
    strata: ["class"] as const,
    sizing: { mode: "per_stratum", per_stratum: 1 } as const,
    seed: 1,
    raters: ["ana"],
    double_share: 0,
  };
  await assert.rejects(
    sampleReview([run.dir], o),
    /outputs\.jsonl: sha256 [0-9a-f]+ is not the [0-9a-f]+ run\.json lists/,
  );
  // … and without that listing, by the answer's hash in its row.
  const manifest = JSON.parse(await Deno.readTextFile(join(run.dir, "run.json")));
  delete manifest.files["outputs.jsonl"];
  await Deno.writeTextFile(join(run.dir, "run.json"), JSON.stringify(manifest));
  await assert.rejects(
    sampleReview([run.dir], o),
    /outputs\.jsonl: line 3: the text of request tam-q-0002 is not the answer/,
  );
});

Deno.test("review sample (CLI): writes the page and its key and prints the design; bad flags all named, exit 2", async () => {
  const cli = fileURLToPath(new URL("../../../../analysis/cli/review.ts", import.meta.url));
  const out = join(root, "cli.html");
  const ok = await runCli(cli, [
    "sample",
    ...runs.map((x) => x.dir),
    "--out",
    out,
    "--total",
    "16",
    "--raters",
    "ana,bo",
  ]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^wrote .*cli\.html \(packet rv-[0-9a-f]{12}: 16 items, 2 raters\)/);
  assert.match(ok.stdout, /cli\.key\.json \(the key: it unblinds the packet, keep it from the raters\)/);
  assert.match(ok.stdout, /sample: 16 of \d+ eligible answers, seed 1, by class, route, stage/);
  assert.match(ok.stdout, /raters: ana 10, bo 10 items; 4 rated by every rater \(share 0\.25\)/);
  await Deno.stat(join(root, "cli.key.json"));
  const bad = await runCli(cli, [
    "sample",
    runs[0]!.dir,
    "--out",
    join(root, "nowhere", "p.html"),
    "--total",
    "10",
    "--per-stratum",
    "2",
    "--raters",
    "ana,a b",
    "--strata",
    "class,colour",
    "--adjudication",
    "x.json",
  ]);
  assert.equal(bad.code, 2, bad.stderr);
  for (
    const p of [
      "--adjudication is a flag of `review import`",
      "/nowhere does not exist",
      '--raters: "a b": a name of letters',
      '--strata: expected class, route, stage, run, got "colour"',
      "give exactly one of --per-stratum N, --total N, --half-width W",
    ]
  ) assert.ok(bad.stderr.includes(p), `${p}\n${bad.stderr}`);
  assert.doesNotMatch(bad.stderr, /^\s+at /m);
});
