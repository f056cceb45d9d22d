/**
 * Writes the claims of a summary-only source into a folder: `claims.json` (every headline of the tool, with the
 * audit claim of each that maps onto one) and one audit claim file per mapped headline under `claims/`, each
 * readable by `npx deno task audit RUN --claim FILE`.
 *
 * @module
 */
import { join } from "node:path";
import { Claim } from "../schema/claim.ts";
import { ImportedClaims } from "../schema/imported_claims.ts";
import { VERSION } from "../runner/version.ts";
import { prepareOutDir } from "./write_run.ts";

/** Writes `dir/claims.json` and `dir/claims/*.json`; returns claims.json as written. */
export function writeClaims(dir: string, claims: Omit<ImportedClaims, "importer">): ImportedClaims {
  const full = ImportedClaims.parse({
    ...claims,
    importer: { name: "goodput-import", version: VERSION, deno: Deno.version.deno },
  });
  prepareOutDir(dir);
  const mapped = full.headlines.filter((h) => h.claim !== null);
  if (mapped.length) Deno.mkdirSync(join(dir, "claims"), { recursive: true });
  for (const h of mapped) {
    Deno.writeTextFileSync(join(dir, h.claim!.file), JSON.stringify(Claim.parse(h.claim!.claim), null, 2) + "\n");
  }
  Deno.writeTextFileSync(join(dir, "claims.json"), JSON.stringify(full, null, 2) + "\n");
  return full;
}
