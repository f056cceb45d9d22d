/** One server-sent event. `id` and `event` are present only when the event's own lines set them. */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/** What `SseDecoder.end()` found after the last complete event. */
export interface SseEnd {
  /** Events completed only by the end of the stream (a final event without its blank line). */
  events: SseEvent[];
  /** True when bytes or fields were left over after the last blank line: the stream was cut mid-event. */
  partial: boolean;
}

const NO_EVENTS: readonly SseEvent[] = Object.freeze([]);
const CR_LINE_ENDS = /\r\n?/g;
/**
 * Decodes pieces that end on a character boundary, one call each (no state is kept between calls). A byte order mark
 * is kept as U+FEFF: only the stream's first is dropped, by the decoder (`#atStart`).
 */
const WHOLE = new TextDecoder("utf-8", { ignoreBOM: true });
const STREAM: TextDecodeOptions = { stream: true };

/**
 * Incremental decoder of a `text/event-stream` body (WHATWG HTML "event stream interpretation").
 *
 * Feed body pieces as they arrive; complete events (ended by a blank line) come back at once.
 * Lines may end in `\n`, `\r\n` or `\r`, also when a `\r\n` pair is split across pieces;
 * multi-byte UTF-8 characters split across pieces are decoded correctly. Comment lines (`:`)
 * and `retry:` are ignored; `data:` lines are joined with `\n`. An event whose lines carried no
 * `data` is not dispatched (as in the spec). Unlike a browser, `id` is not carried over to
 * later events: each event reports only the id its own lines set.
 *
 * @example Two events, the second split across pieces
 * ```ts
 * import { SseDecoder } from "./sse.ts";
 * import assert from "node:assert/strict";
 * const dec = new SseDecoder();
 * const enc = new TextEncoder();
 * assert.deepEqual(dec.push(enc.encode("data: a\n\nevent: x\ndata: b")), [{ data: "a" }]);
 * assert.deepEqual(dec.push(enc.encode("\ndata: c\n\n")), [{ event: "x", data: "b\nc" }]);
 * assert.deepEqual(dec.end(), { events: [], partial: false });
 * ```
 */
export class SseDecoder {
  /**
   * The streaming decoder, made on the first piece that ends inside a multi-byte character and kept from then on;
   * null while every piece so far ended on a character boundary (each was decoded whole, by {@linkcode WHOLE}).
   */
  #decoder: TextDecoder | null = null;
  /** No text decoded yet: a byte order mark at the very start of the stream is still to be dropped. */
  #atStart = true;
  /** Text of the current, not yet terminated line. */
  #line = "";
  /** A piece ended in `\r`: a `\n` starting the next piece belongs to it. */
  #skipLf = false;
  /** Joined `data` lines of the current event; undefined before the first. */
  #data: string | undefined;
  #event: string | undefined;
  #id: string | undefined;
  /** Any field line seen since the last blank line. */
  #pending = false;
  #ended = false;

  /** Decodes one body piece and returns the events it completed (a shared empty array when none). */
  push(piece: Uint8Array): readonly SseEvent[] {
    if (this.#ended) throw new TypeError("SseDecoder.push() after end()");
    let text = this.#decode(piece);
    if (text.length === 0) return NO_EVENTS;
    if (this.#atStart) {
      this.#atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.length === 0) return NO_EVENTS;
    }
    if (this.#skipLf) {
      this.#skipLf = false;
      if (text.charCodeAt(0) === 10) text = text.slice(1);
    }
    if (text.indexOf("\r") !== -1) {
      this.#skipLf = text.charCodeAt(text.length - 1) === 13;
      text = text.replace(CR_LINE_ENDS, "\n");
    }
    return this.#lines(text);
  }

  /**
   * Ends the stream: flushes the UTF-8 decoder, completes a final event that lacked its blank
   * line, and tells whether anything was left over after the last blank line.
   */
  end(): SseEnd {
    if (this.#ended) throw new TypeError("SseDecoder.end() called twice");
    let tail = this.#decoder?.decode() ?? "";
    if (this.#atStart && tail.charCodeAt(0) === 0xfeff) tail = tail.slice(1);
    this.#ended = true;
    const rest = (this.#line + tail).replace(CR_LINE_ENDS, "\n");
    this.#line = "";
    const partial = rest.length > 0 || this.#pending;
    const events = rest.length > 0 ? [...this.#lines(rest + "\n")] : [];
    const last = this.#dispatch();
    if (last) events.push(last);
    return { events, partial };
  }

  /**
   * The text of one piece. A piece that ends on a character boundary (its last byte ASCII), while no bytes of a
   * character are held from the piece before, is decoded whole: the same text as a streaming decode. An answer read in
   * one piece then costs one call, about a third of a streaming decoder made, fed and ended (its `decode` converts its
   * options dictionary on every call; bench/README.md "Issue 33, eighth pass"). Otherwise the streaming decoder holds
   * what a character left over for the next piece; once it exists it decodes every piece, so nothing it holds is
   * skipped.
   */
  #decode(piece: Uint8Array): string {
    if (this.#decoder === null) {
      if (piece.length === 0) return "";
      if (piece[piece.length - 1]! < 0x80) return WHOLE.decode(piece);
      this.#decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    }
    return this.#decoder.decode(piece, STREAM);
  }

  #lines(text: string): readonly SseEvent[] {
    let nl = text.indexOf("\n");
    if (nl === -1) {
      this.#line += text;
      return NO_EVENTS;
    }
    let out: SseEvent[] | undefined;
    // The line begun in an earlier piece, completed by this one.
    if (this.#line !== "") {
      const line = this.#line + text.slice(0, nl);
      this.#line = "";
      const ev = this.#take(line, 0, line.length);
      if (ev) (out ??= []).push(ev);
    } else {
      const ev = this.#take(text, 0, nl);
      if (ev) (out ??= []).push(ev);
    }
    let start = nl + 1;
    nl = text.indexOf("\n", start);
    while (nl !== -1) {
      const ev = this.#take(text, start, nl);
      if (ev) (out ??= []).push(ev);
      start = nl + 1;
      nl = text.indexOf("\n", start);
    }
    this.#line = start < text.length ? text.slice(start) : "";
    return out ?? NO_EVENTS;
  }

  /**
   * Takes the line `src[from, to)` (its end excluded): a blank line dispatches the event (returned when it has data),
   * a comment is skipped, a field is set. A `data:` line, nearly every line of an answer, is read in place, its value
   * the only string made; any other field goes through {@linkcode SseDecoder.#field}.
   */
  #take(src: string, from: number, to: number): SseEvent | undefined {
    if (to === from) return this.#dispatch();
    const c = src.charCodeAt(from);
    if (c === 58 /* ":" comment */) return undefined;
    // `src[to]` is the line's end or past the string (NaN), never ":" or " ": the reads below need no bound of their own.
    if (
      c === 100 && src.charCodeAt(from + 1) === 97 && src.charCodeAt(from + 2) === 116 &&
      src.charCodeAt(from + 3) === 97 && src.charCodeAt(from + 4) === 58 // "data:"
    ) {
      // One space after the colon is not part of the value.
      const value = src.slice(src.charCodeAt(from + 5) === 32 ? from + 6 : from + 5, to);
      this.#pending = true;
      this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
      return undefined;
    }
    this.#field(src.slice(from, to));
    return undefined;
  }

  #field(line: string): void {
    const colon = line.indexOf(":");
    let name = line;
    let value = "";
    if (colon !== -1) {
      name = line.slice(0, colon);
      const from = line.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1;
      value = line.slice(from);
    }
    this.#pending = true;
    if (name === "data") this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
    else if (name === "event") this.#event = value;
    else if (name === "id") {
      if (value.indexOf("\0") === -1) this.#id = value;
    }
  }

  #dispatch(): SseEvent | undefined {
    const data = this.#data;
    const event = this.#event;
    const id = this.#id;
    this.#data = undefined;
    this.#event = undefined;
    this.#id = undefined;
    this.#pending = false;
    if (data === undefined) return undefined;
    const ev: SseEvent = { data };
    if (event !== undefined && event !== "") ev.event = event;
    if (id !== undefined) ev.id = id;
    return ev;
  }
}
