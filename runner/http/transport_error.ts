import type { HttpOutcome, TransportErrorKind } from "./client.ts";

/** Where in an exchange an error happened: it decides between reset and cut. */
export type ExchangePhase = "connect" | "request" | "body";

/**
 * Names a transport failure for `error_kind`. Refused connects are `connect_refused`, other
 * connect failures `connect_error`; a failure before the response head is `connection_reset`,
 * after it `stream_cut`. Errors named `ProtocolError` (bad bytes) are `protocol_error`, except a chunked body's framing
 * broken after the head (a bad chunk size, a chunk not ended by CRLF): `stream_cut`, as the fetch client must name it —
 * fetch reports a bad chunk, a chunk cut short and a missing last chunk with one message.
 */
export function classifyError(err: unknown, phase: ExchangePhase): TransportErrorKind {
  // A chunked body's framing broken after the head is a cut body, as fetch (hyper) reports it: one kind for both.
  if (err instanceof Error && err.name === "ProtocolError") {
    return "inBody" in err && err.inBody === true ? "stream_cut" : "protocol_error";
  }
  if (err instanceof DOMException && err.name === "AbortError") return "aborted";
  if (phase === "connect") {
    return err instanceof Deno.errors.ConnectionRefused || /refused/i.test(messageOf(err))
      ? "connect_refused"
      : "connect_error";
  }
  return phase === "request" ? "connection_reset" : "stream_cut";
}

/** A failed outcome ending now. */
export function failure(kind: TransportErrorKind, endMs: number, err: unknown): HttpOutcome {
  return { ok: false, endMs, kind, message: messageOf(err) };
}

/** The message of an error and its causes, one line. */
export function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  let msg = `${err.name}: ${err.message}`;
  let cause = err.cause;
  for (let depth = 0; cause instanceof Error && depth < 4; depth++, cause = cause.cause) {
    msg += ` (cause ${cause.name}: ${cause.message})`;
  }
  return msg.replaceAll("\n", " ");
}
