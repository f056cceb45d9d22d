import assert from "node:assert/strict";
import { parseVolumeFlags, SECONDS_PER_MONTH } from "../../../analysis/compare/volume_demand.ts";

const problems = (f: () => unknown): string[] => {
  try {
    f();
  } catch (e) {
    assert.equal((e as Error).name, "InputError");
    return (e as { problems: string[] }).problems;
  }
  assert.fail("expected an InputError");
};

const FLAT = Array(24).fill(1).join(",");

Deno.test("parseVolumeFlags() reads the planned demand", async (t) => {
  await t.step("a peak per second or per minute and a monthly count with a suffix", () => {
    assert.equal(parseVolumeFlags({ demand: "480/min", monthly: "2.5k" }).peak_accepted_rps, 8);
    assert.equal(parseVolumeFlags({ demand: "8", monthly: "1e7" }).monthly_accepted, 1e7);
    const d = parseVolumeFlags({ demand: "8/s", monthly: "10M" });
    assert.deepEqual(d, {
      peak_accepted_rps: 8,
      monthly_accepted: 1e7,
      profile: null,
      monthly_from: "--monthly",
      redundancy: null,
      extrapolate: false,
    });
  });
  await t.step("a profile inline or from a file gives the monthly volume", () => {
    const half = [...Array(12).fill(1), ...Array(12).fill(0.5)];
    const d = parseVolumeFlags({ demand: "8", profile: half.join(", "), redundancy: "1", extrapolate: true });
    assert.deepEqual(d.profile, half);
    assert.equal(d.monthly_accepted, 8 * 3600 * 18 * 730 / 24); // Σ fractions 18 × 30.4167 days
    assert.equal(d.monthly_from, "--profile");
    assert.equal(d.redundancy, 1);
    assert.equal(d.extrapolate, true);
    const text = "# hour: fraction of the peak\n" + half.map((f, h) => `${f} # ${h}`).join("\n");
    const read = (p: string) => {
      assert.equal(p, "data/profile.txt");
      return text;
    };
    assert.deepEqual(parseVolumeFlags({ demand: "8", profile: "data/profile.txt" }, read).profile, half);
    assert.deepEqual(parseVolumeFlags({ demand: "8", profile: "p.json" }, () => JSON.stringify(half)).profile, half);
  });
  await t.step("a monthly volume up to the peak held all month", () => {
    assert.equal(parseVolumeFlags({ demand: "1", monthly: String(SECONDS_PER_MONTH) }).monthly_accepted, 2_628_000);
  });
});

Deno.test("parseVolumeFlags() names the flag of every bad value at once", async (t) => {
  await t.step("demand ≤ 0 or not a number, redundancy negative or fractional", () => {
    assert.deepEqual(problems(() => parseVolumeFlags({ demand: "0", monthly: "1M", redundancy: "-1" })), [
      '--demand: expected accepted tasks per second at peak > 0 (8, 8/s or 480/min), got "0"',
      '--redundancy: expected a whole number of spare replicas ≥ 0, got "-1"',
    ]);
    assert.match(problems(() => parseVolumeFlags({ demand: "eight", monthly: "1M" }))[0]!, /^--demand:/);
    assert.match(problems(() => parseVolumeFlags({ demand: "-3/s", monthly: "1M" }))[0]!, /^--demand:/);
    assert.match(problems(() => parseVolumeFlags({ demand: "", monthly: "1M" }))[0]!, /^--demand:/);
    assert.match(
      problems(() => parseVolumeFlags({ demand: "8", monthly: "1M", redundancy: "1.5" }))[0]!,
      /^--redundancy/,
    );
    assert.match(problems(() => parseVolumeFlags({ monthly: "1M" }))[0]!, /^--demand: required/);
  });
  await t.step("a monthly volume missing, doubled, not a number or more than the peak allows", () => {
    assert.match(problems(() => parseVolumeFlags({ demand: "8" }))[0]!, /^--monthly or --profile: one is required/);
    assert.match(problems(() => parseVolumeFlags({ demand: "8", monthly: "1M", profile: FLAT }))[0]!, /not both/);
    assert.match(problems(() => parseVolumeFlags({ demand: "8", monthly: "lots" }))[0]!, /^--monthly: expected/);
    assert.match(problems(() => parseVolumeFlags({ demand: "8", monthly: "0" }))[0]!, /^--monthly: expected/);
    // 1 task/s all month is 2 628 000; one more is impossible.
    assert.deepEqual(problems(() => parseVolumeFlags({ demand: "1", monthly: "2628001" })), [
      "--monthly: 2628001 accepted tasks a month is more than the peak (--demand 1/s) held all month (1 × 2628000 s = " +
      "2628000)",
    ]);
  });
  await t.step("a profile that is not 24 fractions of the peak with its largest 1", () => {
    const p = (profile: string) => problems(() => parseVolumeFlags({ demand: "8", profile }));
    assert.deepEqual(p("1,0.5"), ["--profile: expected 24 hourly fractions, got 2"]);
    assert.deepEqual(p(Array(24).fill(0.5).join(",")), [
      "--profile: the largest hourly fraction is 0.5; the peak hour must be 1 (the fractions are of the peak --demand)",
    ]);
    assert.deepEqual(p([-0.1, ...Array(23).fill(1)].join(",")), [
      "--profile: hour 0 is -0.1, expected a fraction of the peak in [0, 1]",
    ]);
    assert.deepEqual(p([1.5, ...Array(23).fill(1)].join(",")), [
      "--profile: hour 0 is 1.5, expected a fraction of the peak in [0, 1]",
    ]);
    const json = p("[1, 2");
    assert.equal(json.length, 1);
    assert.match(json[0]!, /^--profile: not a JSON array/);
    const missing = problems(() =>
      parseVolumeFlags({ demand: "8", profile: "no/such/file.txt" }, () => {
        throw new Deno.errors.NotFound("no such file");
      })
    );
    assert.deepEqual(missing, ["--profile no/such/file.txt: cannot read the file (no such file)"]);
    const bad = problems(() => parseVolumeFlags({ demand: "8", profile: "p.txt" }, () => `x ${FLAT}`));
    assert.equal(bad[0], '--profile p.txt: hour 0 is not a number: "x"');
  });
});
