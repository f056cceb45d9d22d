import { InputError } from "../schema/errors.ts";

/** The chat completions endpoint of a base URL (or the URL itself when it already names it). */
export function chatUrl(target: string): URL {
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    throw new InputError(`--target: not a URL: ${target}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new InputError(`--target: must be http(s): ${target}`);
  if (u.username || u.password) throw new InputError("--target: credentials in the URL are refused; use --api-key-env");
  if (!u.pathname.endsWith("/chat/completions")) {
    u.pathname = u.pathname.replace(/\/+$/, "") + (u.pathname.includes("/v1") ? "" : "/v1") + "/chat/completions";
  }
  return u;
}

/** The URL with every query value replaced (keys of some providers travel in the query). */
export function redactUrl(u: URL): string {
  const c = new URL(u);
  for (const k of [...c.searchParams.keys()]) c.searchParams.set(k, "REDACTED");
  return c.toString();
}
