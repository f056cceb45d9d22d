/**
 * A small packet for the import tests: 8 long_summary answers from the two fixture runs, raters ana and bo, half of
 * them rated by both; and ratings files written the way the page exports them.
 */
import { join } from "node:path";
import { sampleReview } from "../../../../analysis/quality/review/sample_review.ts";
import type { ReviewKey } from "../../../../analysis/quality/review/review_files.ts";
import { type ReviewRun, twoRuns } from "./_fixture.ts";

/** A long-summary score set that passes (faithful 1, coverage ≥ 4, concise ≥ 3). */
export const PASSING = { faithful: 1, coverage: 5, concise: 4 };

export interface Packet {
  root: string;
  runs: ReviewRun[];
  keyFile: string;
  packetFile: string;
  key: ReviewKey;
  /** The double-rated items in id order: d[0] … d[3]. */
  d: string[];
}

/** Samples the packet into a fresh folder. */
export async function smallPacket(): Promise<Packet> {
  const { root, runs } = await twoRuns();
  const packetFile = join(root, "packet.html");
  const r = await sampleReview(runs.map((x) => x.dir), {
    out: packetFile,
    strata: ["class"],
    sizing: { mode: "per_stratum", per_stratum: 8 },
    seed: 5,
    raters: ["ana", "bo"],
    double_share: 0.5,
    classes: ["long_summary"],
  });
  return {
    root,
    runs,
    keyFile: join(root, "packet.key.json"),
    packetFile,
    key: r.fullKey,
    d: r.fullKey.design.double_rated,
  };
}

/** One exported rating. */
export function rating(item: string, scores: Record<string, number>, extra: { notes?: string; ms?: number } = {}) {
  return {
    item,
    scores,
    notes: extra.notes ?? "",
    time_spent_ms: extra.ms ?? 30_000,
    rated_iso: "2026-12-06T10:00:00.000Z",
  };
}

/** Writes a ratings file as the page exports it; returns its path. */
export function writeRatings(p: Packet, name: string, rater: string, ratings: object[], over: object = {}): string {
  const file = join(p.root, name);
  Deno.writeTextFileSync(
    file,
    JSON.stringify(
      { packet_id: p.key.packet_id, packet_sha256: p.key.packet_sha256, rater, ratings, ...over },
      null,
      2,
    ),
  );
  return file;
}

/**
 * The hand-made case: every item passing, except on the double-rated items — d0 both alike; d1 coverage 4 (ana) vs
 * 5 (bo), both pass; d2 ana fails faithful, bo passes; d3 ana concise 2, bo coverage 3, both fail.
 */
export function handMadeRatings(p: Packet): { ana: string; bo: string } {
  const [d0, d1, d2, d3] = p.d as [string, string, string, string];
  const special: Record<string, Record<string, Record<string, number>>> = {
    ana: { [d1]: { coverage: 4 }, [d2]: { faithful: 0 }, [d3]: { concise: 2 } },
    bo: { [d3]: { coverage: 3 } },
  };
  void d0;
  const files = { ana: "", bo: "" };
  for (const rater of ["ana", "bo"] as const) {
    const ratings = p.key.assignments[rater]!.map((item, i) =>
      rating(item, { ...PASSING, ...special[rater]![item] }, { notes: `${rater} on ${item}`, ms: 10_000 * (i + 1) })
    );
    files[rater] = writeRatings(p, `ratings-${rater}.json`, rater, ratings);
  }
  return files;
}
