import assert from "node:assert/strict";
import { chatUrl, redactText, redactUrl, scrubUrl } from "../../runner/target_url.ts";
import { keyEnvProblem } from "../../runner/api_key_env.ts";

Deno.test("chatUrl drops the fragment (never sent) and names no secret when it refuses", () => {
  assert.equal(chatUrl("http://h:1/v1?key=abc#sk-frag").href, "http://h:1/v1/chat/completions?key=abc");
  assert.throws(() => chatUrl("http://u:sk-pass@h/v1"), (e: Error) => !e.message.includes("sk-pass"));
  assert.throws(
    () => chatUrl("ftp://h/v1?token=sk-tok#sk-frag"),
    (e: Error) => e.message === "--target: must be http(s): ftp://h/v1?token=REDACTED#REDACTED",
  );
  assert.throws(
    () => chatUrl("not a url?key=sk-abc"),
    (e: Error) => e.message === '--target: not a URL: "not a url…"',
  );
});

Deno.test("redactUrl replaces every query value, credentials and the fragment", () => {
  assert.equal(
    redactUrl(new URL("https://u:p@h/v1?api-version=1&sig=xyz#frag")),
    "https://REDACTED:REDACTED@h/v1?api-version=REDACTED&sig=REDACTED#REDACTED",
  );
  assert.equal(redactUrl(new URL("http://h/v1?sk-bare-token&a=1")), "http://h/v1?REDACTED&a=REDACTED");
  assert.equal(redactText("https://u:sk-p@host/v1"), '"https://REDACTED@host/v1"');
});

Deno.test("scrubUrl removes a URL's secrets from an error's text, as sent and percent-decoded", () => {
  const u = new URL("http://h/v1?key=a%2Bb&token=t0k");
  const text = `error sending request for url (${u}): key a+b, token t0k`;
  assert.equal(
    scrubUrl(text, u),
    "error sending request for url (http://h/v1?key=REDACTED&token=REDACTED): key REDACTED, token REDACTED",
  );
});

Deno.test("keyEnvProblem: names pass, keys are refused without being repeated", () => {
  const none = () => undefined;
  for (const name of ["GOODPUT_API_KEY", "OPENAI_API_KEY", "_X", "my_key", "KEY_2024_PROD_ACCOUNT_NUMBER_1"]) {
    assert.equal(keyEnvProblem(name, none), null, name);
  }
  // Set in the environment: a name, however it looks.
  assert.equal(keyEnvProblem("AIzaSyD4x9f0Qm2LkP7vR8tW1nB5", () => "v"), null);
  for (const key of ["sk-proj-abc", "AIzaSyD4x9f0Qm2LkP7vR8tW1nB5", "1abc", "a".repeat(129), "x=y"]) {
    const p = keyEnvProblem(key, none);
    assert.ok(p !== null && !p.includes(key), key);
  }
});
