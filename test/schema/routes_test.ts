import assert from "node:assert/strict";
import { InputError, loadRoutesFile, parseWith, RoutesFile } from "../../schema/mod.ts";

const r = { url: "http://127.0.0.1:1", provider: "p", model: "m" };

Deno.test("a routes file names every problem at once, with its field", () => {
  const bad = {
    name: "bad",
    routes: { a: r, b: { ...r, limits: { rps: -1 } } },
    policy: { kind: "fallback", primary: "a", fallbacks: ["zz", "a"] },
  };
  let problems = "";
  try {
    parseWith(RoutesFile, bad, "routes.json", "routes file");
  } catch (e) {
    assert.ok(e instanceof InputError);
    problems = e.problems.join("\n");
  }
  assert.match(problems, /routes\.json: policy\.fallbacks\.0: no route "zz"/);
  assert.match(problems, /policy\.fallbacks\.1: "a" is already in the chain/);
  assert.match(problems, /routes\.b\.limits\.rps/);
});

Deno.test("split policies must name defined routes and a positive weight", () => {
  const byPercent = RoutesFile.safeParse({
    name: "x",
    routes: { a: r },
    policy: { kind: "split_by_percent", weights: { a: 0 } },
  });
  assert.equal(byPercent.success, false);
  const byClass = RoutesFile.safeParse({
    name: "x",
    routes: { a: r },
    policy: { kind: "split_by_class", classes: { qa: "nope" }, default: "a" },
  });
  assert.deepEqual(byClass.error?.issues.map((i) => i.path.join(".")), ["policy.classes.qa"]);
  const ok = RoutesFile.parse({
    name: "x",
    routes: { a: r, b: r },
    policy: { kind: "fallback", primary: "a", fallbacks: ["b"] },
  });
  assert.deepEqual(ok.policy.kind === "fallback" && ok.policy.on, ["error", "timeout", "429"], "default triggers");
});

Deno.test("every routes file in data/routes loads and its price sheets exist", async () => {
  const names = [...Deno.readDirSync("data/routes")].map((e) => e.name).filter((n) => n.endsWith(".json")).sort();
  for (const want of ["hosted.json", "hybrid.json", "selfhosted.json"]) assert.ok(names.includes(want), want);
  for (const n of names) {
    const f = await loadRoutesFile(`data/routes/${n}`);
    assert.equal(`${f.name}.json`, n);
    for (const route of Object.values(f.routes)) {
      if (route.price_sheet) assert.ok(Deno.statSync(route.price_sheet).isFile, route.price_sheet);
    }
  }
});
