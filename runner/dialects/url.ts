/**
 * A route's base URL checked the same way for every dialect: http or https only, no credentials in it (a key goes
 * in the route's `api_key_env`), the fragment dropped (HTTP never sends it, so it reaches no file, line or error).
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import { redactText, redactUrl } from "../target_url.ts";

/**
 * The checked base URL of a route; `where` names it in errors (`--target`, `<file>: routes.<name>.url`).
 *
 * @example
 * ```ts
 * import { checkedBaseUrl } from "./url.ts";
 * import assert from "node:assert/strict";
 * assert.equal(checkedBaseUrl("https://api.example.com/v1#x", "--target").href, "https://api.example.com/v1");
 * assert.throws(() => checkedBaseUrl("ftp://h", "--target"), /must be http/);
 * ```
 */
export function checkedBaseUrl(url: string, where: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InputError(`${where}: not a URL: ${redactText(url)}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new InputError(`${where}: must be http(s): ${redactUrl(u)}`);
  }
  if (u.username || u.password) throw new InputError(`${where}: credentials in the URL are refused; use api_key_env`);
  u.hash = "";
  return u;
}

/**
 * `base` with `path` appended unless its path already ends with it (a user may give the full endpoint); a trailing
 * slash of the base is dropped first.
 *
 * @example
 * ```ts
 * import { withPath } from "./url.ts";
 * import assert from "node:assert/strict";
 * assert.equal(withPath(new URL("http://h:1/"), "/v1/messages").href, "http://h:1/v1/messages");
 * assert.equal(withPath(new URL("http://h:1/v1/messages"), "/v1/messages").href, "http://h:1/v1/messages");
 * ```
 */
export function withPath(base: URL, path: string): URL {
  const u = new URL(base);
  if (!u.pathname.endsWith(path)) u.pathname = u.pathname.replace(/\/+$/, "") + path;
  return u;
}
