// Installs the pinned npm dependencies (Deno among them) when node_modules is
// missing or older than package-lock.json, so the README's two commands work on
// a machine that has only Node.js and npm.
import { execSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

const lock = "package-lock.json";
const installed = "node_modules/.package-lock.json";
const fresh = existsSync(installed) && existsSync("node_modules/.bin/deno") &&
  sameLock(readFileSync(lock, "utf8"), readFileSync(installed, "utf8"));
if (!fresh) {
  console.error("installing pinned dependencies (npm ci) ...");
  execSync("npm ci --no-audit --no-fund --loglevel=error", { stdio: "inherit" });
}

function sameLock(a, b) {
  const pa = JSON.parse(a).packages ?? {};
  const pb = JSON.parse(b).packages ?? {};
  for (const [k, v] of Object.entries(pa)) {
    if (k === "" || v.optional) continue;
    if (pb[k]?.version !== v.version) return false;
  }
  return true;
}
