import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../../schema/errors.ts";
import type { QualityRow } from "../../../../schema/quality.ts";
import { readQuality } from "../../../../schema/quality_file.ts";
import { rubricVerdict } from "../../../../schema/rubric.ts";
import { importReview } from "../../../../analysis/quality/review/import_review.ts";
import { sampleReview } from "../../../../analysis/quality/review/sample_review.ts";
import { humanConsensus } from "../../../../analysis/quality/consensus.ts";
import { runCli } from "../../../support/run_cli.ts";
import { handMadeRatings, type Packet, PASSING, rating, smallPacket, writeRatings } from "./_packet.ts";

const CLI = fileURLToPath(new URL("../../../../analysis/cli/review.ts", import.meta.url));

async function table(p: Packet, run: number) {
  const r = p.runs[run]!;
  return await readQuality(r.dir, {
    runId: r.runId,
    requestIds: new Set(r.requests.map((q) => q.request_id)),
  });
}

Deno.test("review import: the verdicts land in each run's quality table as human:<rater>, with time and details", async () => {
  const p = await smallPacket();
  const files = handMadeRatings(p);
  const r = await importReview(p.keyFile, [files.ana, files.bo], { resamples: 200 });
  let rows = 0;
  for (const [i, run] of p.runs.entries()) {
    const t = await table(p, i);
    const items = p.key.items.filter((it) => it.run === i);
    if (!items.length) {
      assert.equal(t, null, `${run.runId}: nothing sampled, nothing written`);
      continue;
    }
    assert.ok(t);
    const part = t.manifest.parts.find((x) => x.file === `review-${p.key.packet_id}.csv`)!;
    assert.equal(part.written_by, "review import");
    assert.deepEqual(part.details.raters, ["ana", "bo"]);
    assert.deepEqual((part.details.design as { seed: number }).seed, 5);
    assert.deepEqual(part.details.packet_minutes_per_rater, { ana: 3.5, bo: 3.5 }, "10+20+…+60 s = 210 s each");
    for (const it of items) {
      for (const rater of it.raters) {
        const row: QualityRow | undefined = t.rows.find((x) =>
          x.request_id === it.request_id && x.source === `human:${rater}`
        );
        assert.ok(row, `${it.item} by ${rater}`);
        const scores = JSON.parse(row.scores);
        assert.equal(row.pass, rubricVerdict(p.key.rubrics[0]!, scores).pass);
        assert.equal(row.rationale, `${rater} on ${it.item}`);
        assert.equal(row.judged_epoch_ms, Date.parse("2026-12-06T10:00:00.000Z"));
        const idx = p.key.assignments[rater]!.indexOf(it.item);
        assert.equal(row.time_spent_ms, 10_000 * (idx + 1));
        rows++;
      }
    }
  }
  assert.equal(rows, 12, "6 items each");
  assert.equal(r.ratings.length, 12);
  // Importing again replaces the part: the same rows, no duplicate.
  await importReview(p.keyFile, [files.ana, files.bo], { resamples: 0 });
  let again = 0;
  for (const i of [0, 1]) again += (await table(p, i))?.rows.length ?? 0;
  assert.equal(again, 12);
});

Deno.test("review import: the disagreement record of the hand-made case, its Markdown and the adjudication template", async () => {
  const p = await smallPacket();
  const files = handMadeRatings(p);
  const r = await importReview(p.keyFile, [files.ana, files.bo], { resamples: 0 });
  const [, d1, d2, d3] = p.d;
  assert.equal(r.record.compared, 4);
  assert.equal(r.record.differ_on_pass, 1);
  assert.deepEqual(r.record.items.map((x) => [x.item, x.differs_on]), [
    [d1, ["coverage"]],
    [d2, ["pass", "faithful"]],
    [d3, ["coverage", "concise"]],
  ]);
  const onD2 = r.record.items[1]!;
  assert.deepEqual(onD2.ratings.map((x) => [x.rater, x.pass, x.scores.faithful, x.notes]), [
    ["ana", false, 0, `ana on ${d2}`],
    ["bo", true, 1, `bo on ${d2}`],
  ]);
  const it = p.key.items.find((x) => x.item === d2)!;
  assert.equal(onD2.request_id, it.request_id);
  const written = JSON.parse(await Deno.readTextFile(join(p.root, "packet.disagreements.json")));
  assert.deepEqual(written, r.record);
  const md = await Deno.readTextFile(join(p.root, "packet.disagreements.md"));
  assert.match(md, /3 of 4 items rated by two or more raters differ \(1 on the verdict\)/);
  assert.ok(md.includes(`| ana | fail | 0 | 5 | 4 | ana on ${d2} |`), md);
  const template = JSON.parse(await Deno.readTextFile(join(p.root, "packet.adjudication.json")));
  assert.deepEqual(template.entries[0], {
    item: d1,
    adjudicator: "",
    scores: { faithful: null, coverage: null, concise: null },
    note: "",
  });
  assert.equal(template.entries.length, 3);
});

Deno.test("review import: agreement on the hand-made case — kappa 0.5, alpha nominal 16/30 on the verdict", async () => {
  const p = await smallPacket();
  const files = handMadeRatings(p);
  const r = await importReview(p.keyFile, [files.ana, files.bo], { resamples: 0 });
  // Verdicts on d0…d3: ana P P F F, bo P P P F. p_o = 3/4; p_e = (2/4)(3/4) + (2/4)(1/4) = 1/2; κ = (3/4 − 1/2)/(1/2).
  assert.equal(r.agreement.pass.kappa!.kappa, 0.5);
  // Coincidences: o_PP = 4, o_FF = 2, o_PF = o_FP = 1; n = 8, n_P = 5, n_F = 3;
  // α = 1 − (n − 1) · (o_PF + o_FP) / (2 n_P n_F) = 1 − 7 · 2 / 30 = 16/30.
  assert.ok(Math.abs(r.agreement.pass.alpha.alpha! - 16 / 30) < 1e-12);
  // coverage, interval: units (5,5) (4,5) (5,5) (5,3); n_5 = 6, n_4 = 1, n_3 = 1;
  // D_o = (2·1 + 2·4)/8 = 1.25; D_e = (2·6·1·1 + 2·6·1·4 + 2·1·1·1)/56 = 62/56; α = 1 − 1.25·56/62 = −8/62.
  const coverage = r.agreement.criteria.find((c) => c.criterion === "coverage")!;
  assert.ok(Math.abs(coverage.alpha.interval!.alpha! + 8 / 62) < 1e-12, String(coverage.alpha.interval!.alpha));
  assert.equal(r.agreement.items, 4);
});

Deno.test("review import: every kind of bad ratings file is named at once, by file and item, and nothing is written", async () => {
  const p = await smallPacket();
  const ana = p.key.assignments.ana!, bo = p.key.assignments.bo!;
  const boOnly = bo.find((x) => !ana.includes(x))!;
  const f = (name: string, text: string) => {
    Deno.writeTextFileSync(join(p.root, name), text);
    return join(p.root, name);
  };
  const files = [
    f("garbage.json", "{ not json"),
    f("shape.json", JSON.stringify({ packet_id: p.key.packet_id, ratings: [] })),
    writeRatings(p, "other.json", "ana", [], { packet_id: "rv-000000000000" }),
    writeRatings(p, "edited.json", "ana", [], { packet_sha256: "f".repeat(64) }),
    writeRatings(p, "stranger.json", "zed", []),
    writeRatings(p, "ana1.json", "ana", [
      rating("i-00000000", PASSING),
      rating(boOnly, PASSING),
      rating(ana[0]!, { ...PASSING, coverage: 7 }),
      rating(ana[1]!, { faithful: 1, coverage: 5 }),
      rating(ana[2]!, { ...PASSING, tone: 3 }),
      rating(ana[3]!, PASSING),
      rating(ana[3]!, PASSING),
    ]),
    writeRatings(p, "ana2.json", "ana", [rating(ana[4]!, PASSING), rating(ana[3]!, PASSING)]),
  ];
  const e = await importReview(p.keyFile, files, { resamples: 0 }).then(() => null, (e) => e);
  assert.ok(e instanceof InputError);
  const at = (name: string) => join(p.root, name);
  const expected = [
    `${at("garbage.json")}: not a ratings file (UTF-8 JSON)`,
    `${at("shape.json")}: packet_sha256: `,
    `${at("shape.json")}: rater: `,
    `${at("other.json")}: packet_id rv-000000000000 is not this packet's (${p.key.packet_id})`,
    `${at("edited.json")}: packet_sha256 ffffffffffff… is not this packet's`,
    `${at("stranger.json")}: rater "zed" is not a rater of the packet (ana, bo)`,
    `${at("ana1.json")}: ratings.0 (item i-00000000): not an item of the packet`,
    `${at("ana1.json")}: ratings.1 (item ${boOnly}): not assigned to ana`,
    `${at("ana1.json")}: ratings.2 (item ${
      ana[0]
    }): criterion "coverage": 7 is off its scale (a whole number from 1 to 5)`,
    `${at("ana1.json")}: ratings.3 (item ${ana[1]}): no score for criterion "concise"`,
    `${at("ana1.json")}: ratings.4 (item ${ana[2]}): "tone" is not a criterion of the rubric`,
    `${at("ana1.json")}: ratings.6 (item ${ana[3]}): ana rated it already (${at("ana1.json")}: ratings.5 (item ${
      ana[3]
    }))`,
    `${at("ana2.json")}: ratings.1 (item ${ana[3]}): ana rated it already`,
  ];
  for (const line of expected) {
    assert.ok(e.problems.some((x: string) => x.startsWith(line)), `${line}\n---\n${e.message}`);
  }
  assert.equal(e.problems.length, expected.length, e.message);
  for (const run of p.runs) await assert.rejects(Deno.stat(join(run.dir, "quality")), Deno.errors.NotFound);
});

Deno.test("review import (CLI): bad ratings exit 2 naming the file, no stack trace; good ones print the agreement", async () => {
  const p = await smallPacket();
  const bad = writeRatings(p, "stranger.json", "zed", []);
  const no = await runCli(CLI, ["import", p.keyFile, bad], ["--allow-all"]);
  assert.equal(no.code, 2, no.stderr);
  assert.match(no.stderr, /^error: review import: 1 problem, nothing written/);
  assert.ok(no.stderr.includes(`${bad}: rater "zed" is not a rater of the packet`));
  assert.doesNotMatch(no.stderr, /^\s+at /m);
  const files = handMadeRatings(p);
  const ok = await runCli(CLI, ["import", p.keyFile, files.ana, files.bo, "--resamples", "100"], ["--allow-all"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /packet rv-[0-9a-f]{12}: 12 ratings: ana 6 \(3\.5 min\), bo 6 \(3\.5 min\)/);
  assert.match(ok.stdout, /verdict \(pass\/fail\): Cohen's kappa 0\.5 \[/);
  assert.match(ok.stdout, /disagreements: 3 of 4 items/);
  const wrong = await runCli(CLI, ["import", p.keyFile, files.ana, "--total", "4"], ["--allow-all"]);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /--total is a flag of `review sample`/);
});

Deno.test("review import --adjudication: settled items are written as adjudicated:<who>; the consensus takes them", async () => {
  const p = await smallPacket();
  const files = handMadeRatings(p);
  await importReview(p.keyFile, [files.ana, files.bo], { resamples: 0 });
  const [d0, d1, d2, d3] = p.d as [string, string, string, string];
  const templateFile = join(p.root, "packet.adjudication.json");
  const template = JSON.parse(await Deno.readTextFile(templateFile));
  // d2 settled as a fail by cy; d1 and d3 left open.
  template.entries[1] = {
    item: d2,
    adjudicator: "cy",
    scores: { faithful: 0, coverage: 5, concise: 4 },
    note: "one figure wrong",
  };
  await Deno.writeTextFile(templateFile, JSON.stringify(template));
  const r = await importReview(p.keyFile, [files.ana, files.bo], { resamples: 0, adjudication: templateFile });
  assert.deepEqual([r.adjudication!.settled.map((s) => s.item), r.adjudication!.open], [[d2], [d1, d3]]);
  assert.equal(r.files.template_written, false, "a template holding a settled entry is kept");
  const rows = (await Promise.all([0, 1].map((i) => table(p, i)))).flatMap((t) => t?.rows ?? []);
  const settled = rows.filter((x) => x.source === "adjudicated:cy");
  const it = (item: string) => p.key.items.find((x) => x.item === item)!;
  assert.deepEqual(settled.map((x) => [x.request_id, x.pass, x.rationale]), [[
    it(d2).request_id,
    false,
    "one figure wrong",
  ]]);
  const byRequest = humanConsensus(rows);
  assert.deepEqual([byRequest.get(it(d2).request_id)!.status, byRequest.get(it(d2).request_id)!.pass], [
    "adjudicated",
    false,
  ]);
  assert.deepEqual([byRequest.get(it(d0).request_id)!.status, byRequest.get(it(d0).request_id)!.pass], [
    "agreed",
    true,
  ]);
  assert.equal(byRequest.get(it(d3).request_id)!.status, "agreed", "both fail d3, on different criteria");
  assert.equal(byRequest.get(it(d1).request_id)!.status, "agreed");

  // A bad adjudication: an item nobody disputes, a bad name, a score missing, an item twice.
  template.entries = [
    { item: d0, adjudicator: "cy", scores: PASSING, note: "" },
    { item: d1, adjudicator: "c y", scores: PASSING, note: "" },
    { item: d3, adjudicator: "cy", scores: { faithful: 1, coverage: null, concise: 3 }, note: "" },
    { item: d2, adjudicator: "cy", scores: PASSING, note: "" },
    { item: d2, adjudicator: "cy", scores: PASSING, note: "" },
  ];
  await Deno.writeTextFile(templateFile, JSON.stringify(template));
  const e = await importReview(p.keyFile, [files.ana, files.bo], { adjudication: templateFile }).then(
    () => null,
    (e) => e,
  );
  assert.ok(e instanceof InputError);
  for (
    const line of [
      `entries.0 (item ${d0}): not an item the raters disagree on`,
      `entries.1 (item ${d1}): adjudicator "c y": a name of letters`,
      `entries.2 (item ${d3}): no score for criterion "coverage"`,
      `entries.4 (item ${d2}): the item is settled twice`,
    ]
  ) assert.ok(e.problems.some((x: string) => x.startsWith(`${templateFile}: ${line}`)), `${line}\n${e.message}`);
  assert.equal(e.problems.length, 4, e.message);
});

Deno.test("review import: a second packet's verdict of the same rater on the same request is refused before writing", async () => {
  const p = await smallPacket();
  const files = handMadeRatings(p);
  await importReview(p.keyFile, [files.ana, files.bo], { resamples: 0 });
  // Another packet of the same answers (every long_summary answer, so it holds p's items too), rated by ana.
  const other = await sampleReview(p.runs.map((r) => r.dir), {
    out: join(p.root, "other.html"),
    strata: ["class"],
    sizing: { mode: "per_stratum", per_stratum: 1000 },
    seed: 6,
    raters: ["ana"],
    double_share: 0,
    classes: ["long_summary"],
  });
  const key = other.fullKey;
  const ratings = key.assignments.ana!.map((item) => rating(item, PASSING));
  const file = join(p.root, "other-ana.json");
  await Deno.writeTextFile(
    file,
    JSON.stringify({ packet_id: key.packet_id, packet_sha256: key.packet_sha256, rater: "ana", ratings }),
  );
  const before = await Promise.all(p.runs.map((r) => Deno.readTextFile(join(r.dir, "quality", "quality.json"))));
  const e = await importReview(join(p.root, "other.key.json"), [file], { resamples: 0 }).then(() => null, (e) => e);
  assert.ok(e instanceof InputError);
  // Each of ana's 6 requests in p has a second verdict of human:ana.
  const seconds = e.problems.filter((x: string) => / a second verdict of human:ana on request /.test(x));
  assert.equal(seconds.length, 6, e.message);
  assert.ok(
    seconds.every((x: string) => p.runs.some((r) => x.startsWith(join(r.dir, "quality", "review-")))),
    e.message,
  );
  for (const [i, r] of p.runs.entries()) {
    assert.equal(await Deno.readTextFile(join(r.dir, "quality", "quality.json")), before[i], "the table is untouched");
  }
});
