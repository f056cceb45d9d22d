/**
 * Which targets announce a server timeline. `/sim/timeline` is the
 * simulator's own endpoint: a real service has none, so the runner asks each
 * distinct server once (twice when the first gets no answer in time), before
 * ms 0, and copies the timeline at the end only from the servers that
 * announced it.
 *
 * @module
 */

/** The timeline URL of a target's chat URL (one per server). */
export function timelineUrl(chatUrl: URL): URL {
  return new URL("/sim/timeline", chatUrl);
}

/**
 * Asks every distinct server `GET /sim/timeline` once (once more when the
 * first gets no answer in time), concurrently, each within `timeoutMs`. A
 * server announces its timeline by answering `200` with a JSON array;
 * anything else (no connection, any other status, a body that is not a JSON
 * array, no answer in time twice) means it has none: no server rows are
 * fetched from it at the end, and one note says so. Returns the timeline URLs
 * (href) that announced.
 */
export async function announcedTimelines(
  chatUrls: readonly URL[],
  options: { timeoutMs?: number; note?: (line: string) => void } = {},
): Promise<Set<string>> {
  const { timeoutMs = 2000, note = (l: string) => console.error(l) } = options;
  const urls = [...new Set(chatUrls.map((u) => timelineUrl(u).href))];
  const answers = await Promise.all(urls.map(async (href) => ({ href, why: await probeTimeline(href, timeoutMs) })));
  const announced = new Set<string>();
  for (const { href, why } of answers) {
    if (why === null) announced.add(href);
    else note(`note: ${href}: no server timeline (${why}); the run has no server rows from it`);
  }
  return announced;
}

/**
 * `GET <href>` within `timeoutMs`, asked once more when the first gets no answer in time (a stall of a moment, of the
 * server or of this process before ms 0, must not cost the run its timeline; an answer of any kind is final): null
 * when the server announced its timeline, else why not.
 */
export async function probeTimeline(href: string, timeoutMs: number): Promise<string | null> {
  const first = await probeOnce(href, timeoutMs);
  if (first !== TIMED_OUT) return first;
  const second = await probeOnce(href, timeoutMs);
  return second === TIMED_OUT ? `no answer in ${timeoutMs} ms, asked twice` : second;
}

const TIMED_OUT = Symbol("timed out");

async function probeOnce(href: string, timeoutMs: number): Promise<string | null | typeof TIMED_OUT> {
  try {
    const res = await fetch(href, { signal: AbortSignal.timeout(timeoutMs) });
    if (res.status !== 200) {
      await res.body?.cancel();
      return `HTTP ${res.status}`;
    }
    const body = await res.text();
    try {
      return Array.isArray(JSON.parse(body)) ? null : "not a JSON array";
    } catch {
      return "not JSON";
    }
  } catch (e) {
    return (e as Error).name === "TimeoutError" ? TIMED_OUT : (e as Error).message;
  }
}
