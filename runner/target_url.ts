import { InputError } from "../schema/errors.ts";

/**
 * The chat completions endpoint of a base URL (or the URL itself when it already names it). Credentials in the
 * URL are refused; a fragment (`#…`), which HTTP never sends, is dropped, so it reaches no file, line or error.
 */
export function chatUrl(target: string): URL {
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    throw new InputError(`--target: not a URL: ${redactText(target)}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new InputError(`--target: must be http(s): ${redactUrl(u)}`);
  }
  if (u.username || u.password) throw new InputError("--target: credentials in the URL are refused; use --api-key-env");
  u.hash = "";
  if (!u.pathname.endsWith("/chat/completions")) {
    u.pathname = u.pathname.replace(/\/+$/, "") + (u.pathname.includes("/v1") ? "" : "/v1") + "/chat/completions";
  }
  return u;
}

/**
 * The URL as it may be shown or stored: every query value replaced (keys of some providers travel in the query:
 * `key`, `api_key`, `sig`, `token`, …; all values are replaced, not a list of names), and any credentials or
 * fragment replaced too.
 */
export function redactUrl(u: URL): string {
  const c = new URL(u);
  // A parameter without a value may be the secret itself (`?sk-…`): it is replaced whole.
  const params = [...c.searchParams].map(([k, v]) => v === "" ? "REDACTED" : `${encodeURIComponent(k)}=REDACTED`);
  c.search = params.length ? `?${params.join("&")}` : "";
  if (c.username) c.username = "REDACTED";
  if (c.password) c.password = "REDACTED";
  if (c.hash) c.hash = "REDACTED";
  return c.toString();
}

/**
 * Text about `u` (an error message of fetch names the whole URL) with every secret part of `u` — query values,
 * credentials, fragment — replaced by `REDACTED`.
 *
 * @example
 * ```ts
 * import { scrubUrl } from "./target_url.ts";
 * import assert from "node:assert/strict";
 * const u = new URL("http://127.0.0.1:1/v1/chat/completions?api_key=s3cr3t");
 * assert.equal(
 *   scrubUrl(`error sending request for url (${u}): refused`, u),
 *   "error sending request for url (http://127.0.0.1:1/v1/chat/completions?api_key=REDACTED): refused",
 * );
 * ```
 */
export function scrubUrl(text: string, u: URL): string {
  const bare = [...u.searchParams].filter(([, v]) => v === "").map(([k]) => k);
  const secrets = [...u.searchParams.values(), ...bare, u.username, u.password, u.hash.slice(1)]
    .flatMap((s) => [s, safeDecode(s)])
    .filter((s) => s.length > 0)
    .sort((a, b) => b.length - a.length);
  let out = text;
  for (const s of new Set(secrets)) {
    out = out.replaceAll(s, "REDACTED");
    out = out.replaceAll(encodeURIComponent(s), "REDACTED");
  }
  return out;
}

/** A string that is not a URL, shown without what could be a secret: credentials and everything from `?` or `#`. */
export function redactText(s: string): string {
  const cut = s.search(/[?#]/);
  const head = (cut < 0 ? s : s.slice(0, cut) + "…").replace(/\/\/[^/]*@/, "//REDACTED@");
  return JSON.stringify(head.slice(0, 80));
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
