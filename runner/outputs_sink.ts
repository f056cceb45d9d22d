/** One saved output (only with --save-outputs). */
export interface OutputRecord {
  request_id: string;
  text: string;
  tool_calls: string;
}

/** Appends outputs as JSON lines, written at each flush like the log tables. */
export class OutputsSink {
  readonly path: string;
  readonly #file: Deno.FsFile;
  #buffer: string[] = [];
  readonly #enc = new TextEncoder();

  constructor(path: string) {
    this.path = path;
    this.#file = Deno.openSync(path, { write: true, createNew: true });
  }

  append(r: OutputRecord): void {
    this.#buffer.push(JSON.stringify(r) + "\n");
  }

  flush(): void {
    if (!this.#buffer.length) return;
    const data = this.#enc.encode(this.#buffer.join(""));
    this.#buffer = [];
    let off = 0;
    while (off < data.length) off += this.#file.writeSync(data.subarray(off));
  }

  close(): void {
    this.flush();
    this.#file.close();
  }
}
