/** Bad bytes from the server: an unparsable status line, header, length or chunk size. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProtocolError";
  }
}

/**
 * A chunked body whose framing breaks after the head (a bad chunk size, chunk data not followed by CRLF, a bad
 * trailer): `stream_cut`, as fetch names it (transport_error.ts), not the head's `protocol_error`.
 */
export class ChunkFramingError extends ProtocolError {
  readonly inBody = true;
}

/** Receives what `ResponseParser.feed` found, in order. */
export interface ResponseSink {
  /** A final (non-1xx) status line and its headers, names lower-cased. */
  head(status: number, headers: Map<string, string>): void;
  /** Body bytes `buf[start, end)`, de-chunked; valid only during the call. */
  body(buf: Uint8Array, start: number, end: number): void;
}

const enum S {
  Head,
  Length,
  Eof,
  Size,
  SizeExt,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  TrailerStart,
  TrailerLine,
  TrailerLf,
  Done,
}

const MAX_HEAD = 64 * 1024;
const MAX_SIZE_DIGITS = 12;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const headDecoder = new TextDecoder("utf-8");
/**
 * The text of the last final head read, and what it parsed to once the next head came with the same text: a server
 * that sends the same head on every answer but for its date (once a second) has most heads read by one comparison,
 * and one whose heads all differ (a request id in each) pays only that comparison.
 */
let lastText = "";
let lastParsed: { minor: string; status: number; entries: [string, string][] } | null = null;

/**
 * Incremental HTTP/1.1 response parser: status line, headers, then a body framed by
 * `Transfer-Encoding: chunked`, `Content-Length`, or the connection's end. 1xx heads are skipped.
 * `feed` throws `ProtocolError` on bytes it cannot parse.
 */
export class ResponseParser {
  #sink: ResponseSink;
  #state = S.Head;
  /** Head bytes saved while the head spans pieces. */
  #head: Uint8Array | undefined;
  #headLen = 0;
  #remaining = 0;
  #digits = 0;
  #extLen = 0;
  /** The connection may carry another exchange after this response. */
  keepAlive = true;
  /** A final head was delivered to the sink. */
  sawHead = false;

  constructor(sink: ResponseSink) {
    this.#sink = sink;
  }

  /** The response is complete (bytes after it, if any, were not consumed). */
  get done(): boolean {
    return this.#state === S.Done;
  }

  /** Parses `buf[start, end)`; returns the index after the last consumed byte (< end only when done). */
  feed(buf: Uint8Array, start: number, end: number): number {
    let i = start;
    while (i < end && this.#state !== S.Done) {
      switch (this.#state) {
        case S.Head:
          i = this.#feedHead(buf, i, end);
          break;
        case S.Length: {
          const n = Math.min(this.#remaining, end - i);
          this.#sink.body(buf, i, i + n);
          i += n;
          this.#remaining -= n;
          if (this.#remaining === 0) this.#state = S.Done;
          break;
        }
        case S.Eof:
          this.#sink.body(buf, i, end);
          i = end;
          break;
        case S.Data: {
          const n = Math.min(this.#remaining, end - i);
          this.#sink.body(buf, i, i + n);
          i += n;
          this.#remaining -= n;
          if (this.#remaining === 0) this.#state = S.DataCr;
          break;
        }
        case S.SizeExt: {
          const lf = buf.indexOf(10, i);
          const stop = lf === -1 || lf >= end ? end : lf;
          this.#extLen += stop - i;
          if (this.#extLen > 4096) throw new ChunkFramingError("chunk extension longer than 4096 bytes");
          i = stop;
          if (stop < end) this.#endSizeLine(), i++;
          break;
        }
        case S.TrailerLine: {
          const lf = buf.indexOf(10, i);
          if (lf === -1 || lf >= end) i = end;
          else this.#state = S.TrailerStart, i = lf + 1;
          break;
        }
        default:
          this.#byte(buf[i]!);
          i++;
      }
    }
    return i;
  }

  /** The connection ended; returns whether the response was complete. */
  eof(): boolean {
    if (this.#state === S.Eof) this.#state = S.Done;
    return this.#state === S.Done;
  }

  #byte(b: number): void {
    switch (this.#state) {
      case S.Size: {
        const d = hexValue(b);
        if (d >= 0) {
          if (++this.#digits > MAX_SIZE_DIGITS) throw new ChunkFramingError("chunk size too large");
          this.#remaining = this.#remaining * 16 + d;
        } else if (this.#digits === 0) {
          throw new ChunkFramingError(`invalid chunk size byte 0x${b.toString(16)}`);
        } else if (b === 59 || b === 32 || b === 9) {
          this.#state = S.SizeExt;
          this.#extLen = 0;
        } else if (b === 13) this.#state = S.SizeLf;
        else if (b === 10) this.#endSizeLine();
        else throw new ChunkFramingError(`invalid chunk size byte 0x${b.toString(16)}`);
        return;
      }
      case S.SizeLf:
        if (b !== 10) throw new ChunkFramingError("chunk size line not ended by CRLF");
        return this.#endSizeLine();
      case S.DataCr:
        if (b === 13) this.#state = S.DataLf;
        else if (b === 10) this.#startSize();
        else throw new ChunkFramingError("chunk data not followed by CRLF");
        return;
      case S.DataLf:
        if (b !== 10) throw new ChunkFramingError("chunk data not followed by CRLF");
        return this.#startSize();
      case S.TrailerStart:
        if (b === 13) this.#state = S.TrailerLf;
        else if (b === 10) this.#state = S.Done;
        else this.#state = S.TrailerLine;
        return;
      case S.TrailerLf:
        if (b !== 10) throw new ChunkFramingError("chunked trailer not ended by CRLF");
        this.#state = S.Done;
        return;
    }
  }

  #startSize(): void {
    this.#state = S.Size;
    this.#remaining = 0;
    this.#digits = 0;
  }

  #endSizeLine(): void {
    this.#state = this.#remaining === 0 ? S.TrailerStart : S.Data;
  }

  /** Collects head bytes until the blank line, then parses the head; returns the index after it. */
  #feedHead(buf: Uint8Array, start: number, end: number): number {
    if (this.#headLen === 0) {
      const stop = findHeadEnd(buf, start, end);
      if (stop !== -1) {
        this.#parseHead(buf.subarray(start, stop));
        return stop;
      }
    }
    const old = this.#headLen;
    const take = Math.min(end - start, MAX_HEAD - old);
    if (!this.#head || this.#head.length < old + take) {
      const grown = new Uint8Array(Math.min(MAX_HEAD, Math.max(1024, (old + take) * 2)));
      if (this.#head) grown.set(this.#head.subarray(0, old));
      this.#head = grown;
    }
    this.#head.set(buf.subarray(start, start + take), old);
    this.#headLen = old + take;
    // The terminator may straddle the previous piece, so rescan a few saved bytes.
    const stop = findHeadEnd(this.#head, Math.max(0, old - 3), this.#headLen);
    if (stop === -1) {
      if (this.#headLen >= MAX_HEAD) throw new ProtocolError(`response head longer than ${MAX_HEAD} bytes`);
      return start + take;
    }
    this.#headLen = 0;
    this.#parseHead(this.#head.subarray(0, stop));
    return start + (stop - old);
  }

  #parseHead(bytes: Uint8Array): void {
    const text = headDecoder.decode(bytes);
    const last = lastParsed;
    if (last !== null && text === lastText) return this.#final(last.minor, last.status, new Map(last.entries));
    const lines = text.split("\n");
    const statusLine = stripCr(lines[0]!);
    const m = STATUS_LINE.exec(statusLine);
    if (!m) throw new ProtocolError(`bad status line ${JSON.stringify(statusLine.slice(0, 80))}`);
    const minor = m[1]!;
    const status = Number(m[2]);
    const headers = new Map<string, string>();
    for (let k = 1; k < lines.length; k++) {
      const line = stripCr(lines[k]!);
      if (line.length === 0) continue;
      const colon = line.indexOf(":");
      const name = colon > 0 ? line.slice(0, colon) : "";
      if (!TOKEN.test(name)) throw new ProtocolError(`bad header line ${JSON.stringify(line.slice(0, 80))}`);
      const key = name.toLowerCase();
      const value = line.slice(colon + 1).trim();
      const prev = headers.get(key);
      headers.set(key, prev === undefined ? value : `${prev}, ${value}`);
    }
    if (status < 200) {
      if (status === 101) throw new ProtocolError("unexpected 101 Switching Protocols");
      return; // 1xx interim response: the final head follows.
    }
    lastParsed = text === lastText ? { minor, status, entries: [...headers] } : null;
    lastText = text;
    this.#final(minor, status, headers);
  }

  /** A final head: its framing, then the sink (each response gets its own map of headers). */
  #final(minor: string, status: number, headers: Map<string, string>): void {
    this.#frame(minor, status, headers);
    this.sawHead = true;
    this.#sink.head(status, headers);
  }

  #frame(minor: string, status: number, headers: Map<string, string>): void {
    const conn = headers.get("connection")?.toLowerCase() ?? "";
    this.keepAlive = minor === "1" ? !/(^|,)\s*close\s*(,|$)/.test(conn) : /(^|,)\s*keep-alive\s*(,|$)/.test(conn);
    const te = headers.get("transfer-encoding");
    const cl = headers.get("content-length");
    if (status === 204 || status === 304) {
      this.#state = S.Done;
    } else if (te !== undefined) {
      if (/(^|,)\s*chunked\s*$/i.test(te)) this.#startSize();
      else this.#state = S.Eof, this.keepAlive = false;
    } else if (cl !== undefined) {
      const values = new Set(cl.split(",").map((v) => v.trim()));
      const [only] = values;
      if (values.size !== 1 || !/^\d{1,15}$/.test(only!)) {
        throw new ProtocolError(`bad content-length ${JSON.stringify(cl.slice(0, 40))}`);
      }
      this.#remaining = Number(only);
      this.#state = this.#remaining === 0 ? S.Done : S.Length;
    } else {
      this.#state = S.Eof;
      this.keepAlive = false;
    }
  }
}

/** Index after the blank line (LF LF or LF CR LF) ending a head in `b[from, end)`, or -1. */
function findHeadEnd(b: Uint8Array, from: number, end: number): number {
  for (;;) {
    const lf = b.indexOf(10, from);
    if (lf === -1 || lf >= end) return -1;
    if (lf + 1 < end && b[lf + 1] === 10) return lf + 2;
    if (lf + 2 < end && b[lf + 1] === 13 && b[lf + 2] === 10) return lf + 3;
    from = lf + 1;
  }
}

function stripCr(line: string): string {
  return line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
}

function hexValue(b: number): number {
  if (b >= 48 && b <= 57) return b - 48;
  if (b >= 97 && b <= 102) return b - 87;
  if (b >= 65 && b <= 70) return b - 55;
  return -1;
}
