/**
 * The two routes a page needs from the service (recorder/browser.js uses them): `POST {prefix}/page` takes page
 * records, `GET {prefix}/clock` gives the service's clock for the page's offset estimate. Built on the standard
 * `Request`/`Response`, so one handler serves `Deno.serve` and Node (whose global `Request`/`Response` it uses).
 *
 * @module
 */
import { checkPageRecord } from "./page_join.ts";
import { countRecorderError } from "./recorder.ts";
import type { Recorder } from "./types.ts";

/** The largest page-record body taken, bytes. */
export const MAX_PAGE_BODY = 64 * 1024;

/** Options of {@linkcode recorderRoutes}. */
export interface RecorderRoutesOptions {
  /** The path both routes live under. @default "/_goodput" */
  prefix?: string;
}

/** A handler for the recorder's routes: a response (maybe still to come) for theirs, null for any other request. */
export type RecorderRoutes = (req: Request) => Response | Promise<Response> | null;

const NO_STORE = { "cache-control": "no-store" };

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", ...NO_STORE, ...headers },
  });
}

/** The body as text, or null when it passes `max` bytes (reading stops there). */
async function boundedText(req: Request, max: number): Promise<string | null> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > max) return null;
  if (!req.body) return "";
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let n = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > max) {
      await reader.cancel();
      return null;
    }
    parts.push(value);
  }
  const all = new Uint8Array(n);
  let off = 0;
  for (const p of parts) {
    all.set(p, off);
    off += p.length;
  }
  return new TextDecoder().decode(all);
}

async function takePage(rec: Recorder, req: Request): Promise<Response> {
  try {
    const body = await boundedText(req, MAX_PAGE_BODY);
    if (body === null) {
      countRecorderError(rec, new RangeError(`page record body over ${MAX_PAGE_BODY} bytes`));
      return text(413, `body over ${MAX_PAGE_BODY} bytes`);
    }
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (e) {
      countRecorderError(rec, new SyntaxError(`page record body is not JSON: ${(e as Error).message}`));
      return text(400, "body is not JSON");
    }
    const records = Array.isArray(value) ? value : [value];
    const problems: string[] = [];
    for (const [i, r] of records.entries()) {
      const check = checkPageRecord(r);
      if (!check.ok) problems.push(...check.problems.map((p) => (records.length > 1 ? `[${i}] ${p}` : p)));
      // Counted (a bad one) or joined by the recorder itself.
      rec.page(r);
    }
    if (problems.length) return text(400, problems.join("\n"));
    return new Response(null, { status: 204, headers: NO_STORE });
  } catch (e) {
    countRecorderError(rec, e);
    return text(500, "the recorder could not take the record");
  }
}

/**
 * The recorder's routes under `prefix`: `POST {prefix}/page` (body: one page record or an array, at most 64 KiB;
 * 204 when every record was valid, 400 listing the problems otherwise — valid ones are taken either way —, 400 for a
 * body that is not JSON, 413 past the size; each failure counted in `recorder_errors`), `GET {prefix}/clock`
 * (`{"service_ms": …}`, the service clock in ms since the Unix epoch), 405 for another method on either, and null
 * for every other path, so the app's own router goes on.
 *
 * @example In Deno.serve
 * ```ts ignore
 * const routes = recorderRoutes(rec);
 * Deno.serve((req) => routes(req) ?? app(req));
 * ```
 */
export function recorderRoutes(rec: Recorder, options: RecorderRoutesOptions = {}): RecorderRoutes {
  const prefix = (options.prefix ?? "/_goodput").replace(/\/+$/, "");
  const pagePath = `${prefix}/page`;
  const clockPath = `${prefix}/clock`;
  return (req: Request) => {
    let path: string;
    try {
      path = new URL(req.url).pathname;
    } catch {
      return null; // not a URL this handler can read: the app's router decides
    }
    if (path === pagePath) {
      return req.method === "POST" ? takePage(rec, req) : text(405, "POST only", { allow: "POST" });
    }
    if (path === clockPath) {
      if (req.method !== "GET" && req.method !== "HEAD") return text(405, "GET only", { allow: "GET, HEAD" });
      return new Response(JSON.stringify({ service_ms: rec.clockNow() }), {
        headers: { "content-type": "application/json", ...NO_STORE },
      });
    }
    return null;
  };
}
