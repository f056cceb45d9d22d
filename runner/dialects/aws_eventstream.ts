/**
 * Incremental decoder of the AWS event-stream framing (`application/vnd.amazon.eventstream`), which Bedrock's
 * ConverseStream answers in: binary messages, each a 12-byte prelude (total length, headers length, prelude
 * CRC32), typed headers, a payload and a message CRC32. The frames are decoded by `@smithy/eventstream-codec`; this
 * file only buffers body pieces until a whole message (by the prelude's total length) is there, and turns a message
 * into a {@linkcode StreamEvent}.
 *
 * @module
 */
import type { EventStreamCodec, Message } from "@smithy/eventstream-codec";
import type { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { createRequire } from "node:module";
import type { crc32 as Crc32 } from "node:zlib";
import type { StreamEvent } from "./dialect.ts";

/** The error kind of an attempt whose event stream could not be decoded (see {@linkcode AwsEventStreamDecoder}). */
export const BAD_FRAME_KIND = "bad_eventstream_frame";

/** What {@linkcode AwsEventStreamDecoder.end} found after the last whole message. */
export interface AwsEventStreamEnd {
  /** Always empty: a message is only ever completed by its own bytes (kept for symmetry with `SseDecoder.end`). */
  events: StreamEvent[];
  /** True when bytes were left over after the last whole message: the stream was cut mid-message. */
  partial: boolean;
}

const PRELUDE = 12;
/** Prelude + message CRC: the smallest message (no headers, no payload). */
const MIN_MESSAGE = 16;
/** The framing's own limits: a payload of at most 16 MiB and headers of at most 128 KiB. */
const MAX_MESSAGE = 16 * 1024 * 1024 + 128 * 1024 + MIN_MESSAGE;
const NO_EVENTS: readonly StreamEvent[] = Object.freeze([]);
// The codec's packages and node:zlib's CRC are loaded by the first Bedrock stream, not by every run (they cost
// start-up CPU).
const require = createRequire(import.meta.url);
let shared: EventStreamCodec | null = null;
let crc: typeof Crc32 | null = null;
function crc32(bytes: Uint8Array): number {
  crc ??= (require("node:zlib") as { crc32: typeof Crc32 }).crc32;
  return crc(bytes);
}
function codec(): EventStreamCodec {
  if (shared === null) {
    const m = require("@smithy/eventstream-codec") as { EventStreamCodec: typeof EventStreamCodec };
    const utf8 = require("@smithy/util-utf8") as { toUtf8: typeof toUtf8; fromUtf8: typeof fromUtf8 };
    shared = new m.EventStreamCodec(utf8.toUtf8, utf8.fromUtf8);
  }
  return shared;
}
const utf8 = new TextDecoder();

/**
 * Decodes an AWS event stream piece by piece. Each whole message becomes one {@linkcode StreamEvent}:
 * - `:message-type` `event`: `event` is the `:event-type` header, `data` the payload as UTF-8;
 * - `:message-type` `exception`: `event` is `exception:` + the `:exception-type` header (e.g.
 *   `exception:throttlingException`), `data` the payload (`{"message": …}`);
 * - `:message-type` `error`: `event` is `error:` + the `:error-code` header, `data` the `:error-message` header;
 * - any other or absent message type, or a type header that is not a string: `event` is null (the answer parser
 *   calls that a malformed event).
 *
 * A framing problem (a total length under 16 bytes or over the framing's limit, a bad prelude or message CRC,
 * unreadable headers) never throws: it sets {@linkcode problem} (the first one wins), and from then on the decoder
 * drops every byte (a stream whose framing is lost cannot be resynchronised). The caller checks `problem` after
 * each `push` and after `end` and ends the attempt as `invalid_response` with kind {@linkcode BAD_FRAME_KIND}.
 *
 * @example One message, split across two pieces
 * ```ts
 * import { AwsEventStreamDecoder } from "./aws_eventstream.ts";
 * import { EventStreamCodec } from "@smithy/eventstream-codec";
 * import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
 * import assert from "node:assert/strict";
 * const frame = new EventStreamCodec(toUtf8, fromUtf8).encode({
 *   headers: {
 *     ":message-type": { type: "string", value: "event" },
 *     ":event-type": { type: "string", value: "messageStop" },
 *   },
 *   body: fromUtf8('{"stopReason":"end_turn"}'),
 * });
 * const dec = new AwsEventStreamDecoder();
 * assert.deepEqual(dec.push(frame.subarray(0, 10)), []);
 * assert.deepEqual(dec.push(frame.subarray(10)), [{ event: "messageStop", data: '{"stopReason":"end_turn"}' }]);
 * assert.deepEqual(dec.end(), { events: [], partial: false });
 * assert.equal(dec.problem, null);
 * ```
 */
export class AwsEventStreamDecoder {
  /** Bytes of the message being received (not yet whole). */
  #buf: Uint8Array = new Uint8Array(0);
  #problem: string | null = null;
  #ended = false;

  /** The first framing problem found, or null. */
  get problem(): string | null {
    return this.#problem;
  }

  /** Decodes one body piece and returns the events of the messages it completed (a shared empty array when none). */
  push(piece: Uint8Array): readonly StreamEvent[] {
    if (this.#ended) throw new TypeError("AwsEventStreamDecoder.push() after end()");
    if (this.#problem !== null || piece.length === 0) return NO_EVENTS;
    let buf = piece;
    if (this.#buf.length) {
      buf = new Uint8Array(this.#buf.length + piece.length);
      buf.set(this.#buf);
      buf.set(piece, this.#buf.length);
    }
    let out: StreamEvent[] | undefined;
    let at = 0;
    while (buf.length - at >= PRELUDE) {
      const view = new DataView(buf.buffer, buf.byteOffset + at, PRELUDE);
      const total = view.getUint32(0, false);
      if (crc32(buf.subarray(at, at + 8)) !== view.getUint32(8, false)) {
        return this.#fail("the prelude CRC does not match", out);
      }
      if (total < MIN_MESSAGE || total > MAX_MESSAGE) {
        return this.#fail(`a message's total length is ${total}, outside ${MIN_MESSAGE}..${MAX_MESSAGE}`, out);
      }
      if (buf.length - at < total) break;
      let msg: Message;
      try {
        msg = codec().decode(buf.subarray(at, at + total));
      } catch (e) {
        // The codec throws for a bad message CRC or unreadable headers: this stream's problem, not the run's.
        return this.#fail(`a message cannot be decoded: ${(e as Error).message}`, out);
      }
      (out ??= []).push(toEvent(msg));
      at += total;
    }
    // Keep only the unfinished message's bytes (a copy: the caller may reuse its buffer).
    this.#buf = at === buf.length ? new Uint8Array(0) : buf.slice(at);
    return out ?? NO_EVENTS;
  }

  /** Ends the stream: says whether bytes were left over after the last whole message. */
  end(): AwsEventStreamEnd {
    if (this.#ended) throw new TypeError("AwsEventStreamDecoder.end() called twice");
    this.#ended = true;
    const partial = this.#problem === null && this.#buf.length > 0;
    this.#buf = new Uint8Array(0);
    return { events: [], partial };
  }

  #fail(problem: string, out: StreamEvent[] | undefined): readonly StreamEvent[] {
    this.#problem = problem.slice(0, 200);
    this.#buf = new Uint8Array(0);
    return out ?? NO_EVENTS;
  }
}

/** A string header's value, or null when absent or of another type. */
function header(msg: Message, name: string): string | null {
  const h = msg.headers[name];
  return h?.type === "string" ? h.value : null;
}

function toEvent(msg: Message): StreamEvent {
  const type = header(msg, ":message-type");
  const data = utf8.decode(msg.body);
  if (type === "event") return { event: header(msg, ":event-type"), data };
  if (type === "exception") {
    const ex = header(msg, ":exception-type");
    return { event: ex === null ? null : `exception:${ex}`, data };
  }
  if (type === "error") {
    const code = header(msg, ":error-code");
    return { event: code === null ? null : `error:${code}`, data: header(msg, ":error-message") ?? data };
  }
  return { event: null, data };
}
