import assert from "node:assert/strict";
import { demoSummary, firstScreen } from "../../scripts/demo.ts";

Deno.test("firstScreen() keeps a CLI's lines up to its first blank line", () => {
  assert.deepEqual(firstScreen("VALID: x\naccepted goodput 5 tasks/s\n\nSLO policy: p.json\n"), [
    "VALID: x",
    "accepted goodput 5 tasks/s",
  ]);
  assert.deepEqual(firstScreen("one line"), ["one line"]);
});

Deno.test("demoSummary(): the report's and the comparison's first screens, the files by folder, the report", () => {
  const report = "VALID: no verdict against these numbers\naccepted goodput 5.3 tasks/s\nknee 10 req/s\n" +
    "cost per accepted task 0.01 USD\n\nreport written to out/t/report.html (3.1 MB, 12 figures)\n  timeline: …\n";
  const compare = "VALID: no verdict against these numbers\nhosted: goodput 6 tasks/s; cost/accepted 0.035 USD\n" +
    "selfhosted: goodput 5 tasks/s; cost/accepted 0.034 USD\n\nSLO policy: s.json\nby route\n";
  const lines = demoSummary({
    runDir: "out/t",
    headroom: 0.2,
    report,
    compare,
    routeDirs: ["out/t-routes/route-hosted", "out/t-routes/route-selfhosted"],
    files: ["out/t/run-summary.txt", "out/t-routes/route-hosted/run-summary.txt", "out/t/analyze.txt"],
    reportFile: "/repo/out/t/report.html",
  });
  assert.deepEqual(lines, [
    "timeline run out/t (headroom 0.2, chosen by the demo: pass --headroom to choose yours):",
    "  VALID: no verdict against these numbers",
    "  accepted goodput 5.3 tasks/s",
    "  knee 10 req/s",
    "  cost per accepted task 0.01 USD",
    "route runs out/t-routes/route-hosted, out/t-routes/route-selfhosted (same schedule and workload; cost per " +
    "accepted task per route):",
    "  VALID: no verdict against these numbers",
    "  hosted: goodput 6 tasks/s; cost/accepted 0.035 USD",
    "  selfhosted: goodput 5 tasks/s; cost/accepted 0.034 USD",
    "each command's full output:",
    "  out/t/: run-summary.txt, analyze.txt",
    "  out/t-routes/route-hosted/: run-summary.txt",
    "HTML report: /repo/out/t/report.html (open it in a browser)",
  ]);
});

Deno.test("demoSummary(): the quality table's line comes after the comparison's first screen", () => {
  const lines = demoSummary({
    runDir: "out/t",
    headroom: 0.2,
    report: "VALID: x\n",
    compare: "VALID: y\n",
    routeDirs: ["out/t-routes/a"],
    files: [],
    reportFile: "/r.html",
    quality: "quality: 3 of 3 open-ended answers judged by sim-judge",
  });
  assert.deepEqual(lines.slice(3, 6), [
    "  VALID: y",
    "quality: 3 of 3 open-ended answers judged by sim-judge",
    "each command's full output:",
  ]);
});
