import assert from "node:assert/strict";
import { VOLUME_RULES } from "../../../analysis/compare/volume.ts";
import { escapeHtml } from "../../../analysis/plots/html.ts";
import { buildComparePage } from "../../../analysis/report/compare_page.ts";
import { makeCaveat } from "../../../analysis/report/caveats.ts";
import { DEMO_ROUTES, demoPageInput } from "./_compare_page_inputs.ts";

const input = await demoPageInput();

/** The page's HTML between `<body>` and the render summary: what the page says, without the inlined bundle. */
const bodyOf = (html: string) =>
  html.slice(html.indexOf("</head><body>"), html.indexOf('<pre id="gp-render-summary">'));
/** The text of the element that opens with `open` (up to its first `close`). */
function element(html: string, open: string, close = "</section>"): string {
  const at = html.indexOf(open);
  assert.ok(at >= 0, `no ${open}`);
  return html.slice(at, html.indexOf(close, at) + close.length);
}
/** The rows of the table with `id`, as arrays of cell text (still escaped). */
function rows(html: string, id: string): string[][] {
  const t = element(html, `<table id="${id}">`, "</table>");
  return [...t.matchAll(/<tr[^>]*>(.*?)<\/tr>/g)].slice(1).map((m) =>
    [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]!)
  );
}

const SECTIONS = [
  'id="verdict"',
  'id="ranked"',
  'id="volume"',
  'id="sensitivity"',
  'id="classes"',
  'id="knees"',
  'id="caveats"',
  'id="disclosure"',
];

Deno.test("buildComparePage() on the demo routes: the verdict first, then every part in order, each figure with its disclosure", async (t) => {
  const page = buildComparePage(input);
  const body = bodyOf(page.html);
  await t.step("the verdict section comes before any table, figure or other section", () => {
    const verdictAt = body.indexOf('<section class="gp-verdict" id="verdict">');
    assert.ok(verdictAt > 0);
    for (const first of ["<table", 'class="gp-plot"', "<h2", "<figure"]) {
      assert.ok(verdictAt < body.indexOf(first), `the verdict before the first ${first}`);
    }
    const at = SECTIONS.map((s) => body.indexOf(s));
    assert.ok(at.every((x) => x > 0), `every section: ${SECTIONS.filter((_, i) => at[i]! < 0)}`);
    assert.deepEqual([...at].sort((a, b) => a - b), at, "in order");
  });
  await t.step(
    "the verdict section: the ranked verdict, the validity verdict, caveat lines, headroom, assumptions",
    () => {
      const v = element(body, '<section class="gp-verdict"');
      const d = input.decision!;
      // The ranked verdict line leads, the runs' validity verdict right after it.
      assert.ok(v.indexOf(escapeHtml(d.verdict.text)) < v.indexOf('class="gp-verdict-line'));
      assert.match(d.verdict.text, /^verdict: (not distinguishable|.* is the cheapest)/);
      assert.match(v, /<p class="gp-verdict-line gp-valid"><b>VALID<\/b>: no verdict against these numbers/);
      for (const c of input.caveats) assert.ok(v.includes(escapeHtml(c.line)), c.line);
      assert.ok(v.includes(escapeHtml(d.headroom)));
      // The GPU-hour price of the demo sheet is ILLUSTRATIVE and flips pairs inside its range: the verdict says so.
      assert.ok(input.sensitivity!.driven_by.length >= 1);
      assert.match(v, /<li><b>ASSUMED<\/b> the ranking is driven by an assumed selfhosted H100-80GB GPU-hour cost/);
      const extrapolated = input.volume!.routes.filter((r) => r.extrapolated).map((r) => r.route);
      assert.ok(extrapolated.length >= 1);
      for (const r of extrapolated) assert.ok(v.includes(`the cost of ${r} at the planned volume is an EXTRAPOLATION`));
      assert.ok(v.includes(escapeHtml(input.policy_source)));
    },
  );
  await t.step("the ranked tables: every route with its interval, the differences to the best and separability", () => {
    const d = input.decision!;
    const cost = rows(body, "ranked-cost");
    assert.deepEqual(
      cost.map((r) => r[1]),
      [...d.routes].sort((a, b) => a.cost_rank! - b.cost_rank!).map((r) => r.route),
    );
    assert.equal(cost[0]![9], "best");
    for (const [i, diff] of d.cost_differences.entries()) {
      const row = cost[i + 1]!;
      assert.equal(row[1], diff.route);
      assert.equal(row[9], diff.distinguishable ? "yes" : `no: ~${diff.more_requests} more requests`);
      assert.match(row[8]!, /^\[[-+]?[\d.e-]+, [-+]?[\d.e-]+\]$/, "an interval");
    }
    // The demo's two cheapest routes differ in the fourth significant digit: printed apart.
    assert.notEqual(cost[0]![5], cost[1]![5]);
    assert.equal(rows(body, "ranked-goodput").length, DEMO_ROUTES.length);
  });
  await t.step("cost at volume, sensitivity: the tables with assumptions marked, and their figures", () => {
    const vol = rows(body, "volume-table");
    assert.deepEqual(vol.map((r) => r[0]), input.volume!.routes.map((r) => r.route));
    assert.deepEqual(vol.map((r) => r[4]), input.volume!.routes.map((r) => (r.extrapolated ? "EXTRAPOLATION" : "no")));
    assert.match(body, /<tr class="gp-assumed"><td>selfhosted<\/td><td>self_hosted<\/td><td class="gp-num">/);
    assert.match(body, /<tr class="gp-assumed"><td>routes\.selfhosted\.gpu_hour \*<\/td>/);
    assert.ok(rows(body, "break-even").some((r) => r[1] === "routes.selfhosted.gpu_hour *"));
    assert.deepEqual(page.figures.map((f) => f.id), [
      "cost-vs-demand",
      "sensitivity-tornado",
      ...DEMO_ROUTES.map((r) => `goodput-vs-load-${r}`),
    ]);
    assert.deepEqual(page.absent, []);
    const ids = [...body.matchAll(/<div class="gp-plot" id="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(ids, page.figures.map((f) => f.id), "each figure once, in page order");
    for (const f of page.figures) {
      assert.ok(body.includes(`<figcaption><b>${escapeHtml(f.title)}</b> — ${escapeHtml(f.disclosure)}`), f.id);
      assert.equal(f.layout.title.text, f.title, `${f.id}: the plot's own title says the same`);
    }
    // Each route's knee figure in the knees section, named by route.
    const knees = element(body, '<section class="gp-section" id="knees">');
    for (const r of input.routeCosts!.routes) assert.ok(knees.includes(`id="goodput-vs-load-${r.run_id}"`));
    assert.match(page.figures[2]!.title, /^hosted: Accepted goodput vs offered load/);
  });
  await t.step("per class side by side and the knees table", () => {
    const acc = rows(body, "class-acceptance");
    const c = input.compare;
    assert.equal(acc[0]![0], "all");
    assert.deepEqual(acc.slice(1).map((r) => r[0]), c.routes[0]!.by_class.map((x) => x.class));
    // all: accepted/offered of each route, side by side.
    assert.deepEqual(
      acc[0]!.slice(1).map((x) => x.replace(/^.* \((\d+\/\d+)\)$/, "$1")),
      c.routes.map((r) => `${r.overall.accepted}/${r.overall.offered}`),
    );
    assert.equal(rows(body, "class-latency").length, c.routes[0]!.by_class.length);
    assert.deepEqual(rows(body, "knees").map((r) => r[0]), c.routes.map((r) => r.route));
  });
  await t.step("the disclosure states every rule", () => {
    const disc = element(body, '<section class="gp-disclosure"');
    const rules = [
      ...input.decision!.method.rules,
      ...VOLUME_RULES,
      ...input.sensitivity!.disclosure.rules,
      input.pricing!.price_sheet.source,
      input.policy_source,
      input.compare.policy.window,
    ];
    for (const r of rules) assert.ok(disc.includes(escapeHtml(r)), r.slice(0, 80));
  });
});

Deno.test("buildComparePage() without prices says in one line each what is absent and why", () => {
  const page = buildComparePage({
    ...input,
    routeCosts: null,
    decision: null,
    volume: null,
    sensitivity: null,
    pricing: null,
  });
  const body = bodyOf(page.html);
  assert.deepEqual(page.figures, []);
  assert.ok(!body.includes('class="gp-plot"'));
  assert.deepEqual(page.absent.map((a) => a.id), [
    "ranked",
    "cost-vs-demand",
    "sensitivity-tornado",
    "goodput-vs-load",
  ]);
  for (const [section, a] of [["ranked", 0], ["volume", 1], ["sensitivity", 2], ["knees", 3]] as const) {
    const s = element(body, `<section class="gp-section" id="${section}">`);
    const x = page.absent[a]!;
    assert.ok(s.includes(`<p class="gp-absent">${escapeHtml(`${x.title}: absent — ${x.reason}.`)}</p>`), section);
  }
  assert.match(page.absent[0]!.reason, /no price sheet given \(--prices FILE\)/);
  const v = element(body, '<section class="gp-verdict"');
  assert.match(v, /ranked verdict: none: no price sheet given \(--prices FILE\)/);
  assert.match(v, /not priced/);
  // The knees table still stands, from the comparison's own columns.
  assert.equal(rows(body, "knees").length, DEMO_ROUTES.length);
  for (const id of SECTIONS) assert.ok(body.includes(id), id);
});

Deno.test("buildComparePage() escapes every text it is given", () => {
  const evil = `<script>alert("x")</script>&<b>`;
  const [first, ...rest] = input.compare.routes;
  const caveat = makeCaveat("load_warning", "WARNING", "WARNING", `route-hosted: ${evil}`);
  const page = buildComparePage({
    ...input,
    compare: { ...input.compare, routes: [{ ...first!, route: evil }, ...rest] },
    decision: { ...input.decision!, verdict: { ...input.decision!.verdict, text: `verdict: ${evil}` } },
    caveats: [caveat, ...input.caveats],
    policy_source: evil,
    pricing: { price_sheet: { ...input.pricing!.price_sheet, source: evil }, overheads: evil },
  });
  const body = bodyOf(page.html);
  assert.ok(!body.includes(evil), "no raw markup from the input");
  assert.ok(!body.includes("<script>alert"), "no injected script");
  const escaped = escapeHtml(evil);
  // The route (side by side tables, title), the verdict, the caveat line, the policy, the price source.
  assert.ok((body.match(new RegExp(escaped.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "g")) ?? []).length >= 6);
  assert.ok(page.html.includes(`<title>Route comparison: ${escaped} vs`));
});
