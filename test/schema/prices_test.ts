import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { loadOverheadSheet, loadPriceSheet } from "../../analysis/cost/price_sheet.ts";
import { PriceSheet } from "../../schema/prices.ts";

const DATA = fileURLToPath(new URL("../../data/prices/", import.meta.url));

Deno.test("the sample sheets in data/prices validate and state their date and source", async () => {
  for (const name of ["hosted-sim.json", "selfhosted-sim.json", "litellm-gpt-4o-mini.json"]) {
    const s = await loadPriceSheet(DATA + name);
    assert.match(s.as_of, /^\d{4}-\d{2}-\d{2}$/, name);
    assert.ok(s.source.length > 20, name);
  }
  const self = (await loadPriceSheet(DATA + "selfhosted-sim.json")).routes["*"]!;
  assert.ok(self.kind === "self_hosted" && self.gpu_type === "H100-80GB");
});

Deno.test("the shipped overheads sheet prices nothing and says so (no made-up number in anyone's cost)", async () => {
  const o = await loadOverheadSheet(DATA + "overheads-default.json");
  assert.match(o.source, /^NOT PRICED: every overhead of this shipped sheet is 0/);
  const prices = [
    o.retrieval.per_call,
    o.tools.per_call,
    ...Object.values(o.tools.per_tool),
    o.storage.per_gb_month,
    o.observability.per_request,
    o.observability.per_attempt,
    o.human_review.hourly,
    o.human_review.sample_rate,
    o.allocated_operations.per_hour,
  ];
  assert.deepEqual(prices.filter((p) => p !== 0), []);
});

Deno.test("routes-sim.json: each route states its own source, so only the self-hosted price reads as an assumption", async () => {
  const s = await loadPriceSheet(DATA + "routes-sim.json");
  assert.match(s.routes.hosted!.source!, /^LiteLLM model price map snapshot/);
  assert.match(s.routes.selfhosted!.source!, /^ILLUSTRATIVE ASSUMPTION/);
  assert.doesNotMatch(s.source, /ILLUSTRATIVE|ASSUMPTION/);
});

Deno.test("the sample sheets in data/prices name no local folder (a sheet is shared; its author's folders are not)", () => {
  for (const e of Deno.readDirSync(DATA)) {
    const text = Deno.readTextFileSync(DATA + e.name);
    // A relative path up the tree, or an absolute one into a home, /work or /tmp folder.
    assert.doesNotMatch(text, /\.\.\/|\/(work|home|tmp|root|Users)\//, e.name);
  }
  // The importer quotes a local map by its file name only, a URL whole.
  const { source } = JSON.parse(Deno.readTextFileSync(DATA + "litellm-gpt-4o-mini.json"));
  assert.match(source, /MIT licence\), litellm_model_prices_and_context_window\.json, key "gpt-4o-mini"/);
});

Deno.test("PriceSheet: defaults, required charge terms and known service tiers", async (t) => {
  const base = {
    price_sheet_version: 1,
    name: "x",
    currency: "USD",
    as_of: "2026-01-01",
    source: "y",
    routes: {
      r: {
        kind: "hosted",
        input_per_mtok: 1,
        output_per_mtok: 2,
        charge: { rejected: false, failed: false, cancelled: true },
      },
    },
  };
  await t.step("defaults fill the optional fields", () => {
    const r = PriceSheet.parse(base).routes.r!;
    assert.ok(r.kind === "hosted");
    assert.deepEqual([r.cached_input_per_mtok, r.per_request, r.service_tier, r.batch_discount], [
      null,
      0,
      "standard",
      null,
    ]);
  });
  await t.step("charge terms must be stated", () => {
    const { charge: _c, ...noCharge } = base.routes.r;
    const res = PriceSheet.safeParse({ ...base, routes: { r: noCharge } });
    assert.ok(!res.success && res.error.issues.some((i) => i.path.join(".") === "routes.r.charge"));
  });
  await t.step("batch needs a batch_discount; other tiers need a multiplier", () => {
    const tier = (extra: object) => PriceSheet.safeParse({ ...base, routes: { r: { ...base.routes.r, ...extra } } });
    assert.ok(!tier({ service_tier: "batch" }).success);
    assert.ok(tier({ service_tier: "batch", batch_discount: 0.5 }).success);
    assert.ok(!tier({ service_tier: "priority" }).success);
    assert.ok(tier({ service_tier: "priority", tier_multipliers: { priority: 1.7 } }).success);
  });
  await t.step("an unknown field, a bad date and an empty sheet are refused", () => {
    assert.ok(!PriceSheet.safeParse({ ...base, extra: 1 }).success);
    assert.ok(!PriceSheet.safeParse({ ...base, as_of: "July 2026" }).success);
    assert.ok(!PriceSheet.safeParse({ ...base, routes: {} }).success);
  });
});
