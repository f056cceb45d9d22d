/**
 * Splits a log CSV read in chunks of bytes into runs of whole rows: each
 * {@linkcode WholeRows.push} returns the bytes up to the last line end
 * outside quotes seen so far (a `"` toggles the quote state, so `""` inside
 * quotes toggles twice, as in `lib/csv_rows.ts` `endOfWholeRows`); what
 * follows is kept until more arrives. At the end of the file, what is still
 * kept is a row cut off mid-write. Quote and line-end bytes are ASCII, so
 * splitting bytes never cuts a UTF-8 character.
 */
export class WholeRows {
  #inQuotes = false;
  #kept: Uint8Array[] = [];
  #keptBytes = 0;
  #newlines = 0;
  /** Bytes seen so far. */
  total = 0;
  /** Bytes handed out as whole rows so far. */
  handed = 0;

  /** Takes the next chunk; returns the whole rows it completes (a new array), or null. */
  push(chunk: Uint8Array): Uint8Array | null {
    this.total += chunk.length;
    let end = 0;
    let inQuotes = this.#inQuotes;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c === 34) inQuotes = !inQuotes;
      else if (c === 10) {
        this.#newlines++;
        if (!inQuotes) end = i + 1;
      }
    }
    this.#inQuotes = inQuotes;
    if (end === 0) {
      this.#keep(chunk);
      return null;
    }
    const out = new Uint8Array(this.#keptBytes + end);
    let off = 0;
    for (const k of this.#kept) {
      out.set(k, off);
      off += k.length;
    }
    out.set(chunk.subarray(0, end), off);
    this.#kept = [];
    this.#keptBytes = 0;
    this.#keep(chunk.subarray(end));
    this.handed += out.length;
    return out;
  }

  /** Bytes after the last whole row: at the end of the file, a row cut off mid-write. */
  get keptBytes(): number {
    return this.#keptBytes;
  }

  /** The 1-based line on which the kept bytes start. */
  get keptLine(): number {
    let inKept = 0;
    for (const k of this.#kept) for (const c of k) if (c === 10) inKept++;
    return 1 + this.#newlines - inKept;
  }

  #keep(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#kept.push(bytes.slice());
    this.#keptBytes += bytes.length;
  }
}
