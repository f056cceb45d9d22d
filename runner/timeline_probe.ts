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
 * A `GET` of a server's own endpoint within `timeoutMs`: its text on 200, else why not. With `tries` 2 (the probes of
 * `/sim/timeline` and `/metrics` before ms 0), a request that gets no answer in time is asked once more — a stall of a
 * moment, of the server or of this process, must not cost the run what the server offers; an answer of any kind is
 * final. `/slots`, read once a second while a server is polled, is asked once.
 */
export async function probeGet(
  url: string | URL,
  timeoutMs: number,
  options: { tries: 1 | 2; redirect?: RequestRedirect },
): Promise<{ text: string } | { why: string }> {
  for (let asked = 1;; asked++) {
    try {
      const res = await fetch(url, { redirect: options.redirect, signal: AbortSignal.timeout(timeoutMs) });
      if (res.status === 200) return { text: await res.text() };
      await res.body?.cancel();
      return { why: `HTTP ${res.status}` };
    } catch (e) {
      if ((e as Error).name !== "TimeoutError") return { why: (e as Error).message };
      if (asked >= options.tries) {
        return { why: `no answer in ${timeoutMs} ms${options.tries === 2 ? ", asked twice" : ""}` };
      }
    }
  }
}

/**
 * `GET <href>` by {@linkcode probeGet}, asked twice on no answer in time: null when the server announced its
 * timeline, else why not.
 */
export async function probeTimeline(href: string, timeoutMs: number): Promise<string | null> {
  const got = await probeGet(href, timeoutMs, { tries: 2 });
  if ("why" in got) return got.why;
  try {
    return Array.isArray(JSON.parse(got.text)) ? null : "not a JSON array";
  } catch {
    return "not JSON";
  }
}
