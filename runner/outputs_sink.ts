import { appendWhole } from "./sinks/log_write_error.ts";

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
  #sealed = false;
  readonly #enc = new TextEncoder();

  constructor(path: string) {
    this.path = path;
    this.#file = Deno.openSync(path, { write: true, createNew: true });
  }

  append(r: OutputRecord): void {
    if (this.#sealed) return;
    this.#buffer.push(JSON.stringify(r) + "\n");
  }

  /** Writes the buffered lines whole; a failed write leaves the file as it was and seals the sink (as CsvSink). */
  flush(): void {
    if (!this.#buffer.length) return;
    const data = this.#enc.encode(this.#buffer.join(""));
    this.#buffer = [];
    try {
      appendWhole(this.#file, this.path, data);
    } catch (e) {
      this.seal();
      throw e;
    }
  }

  /** From now on outputs are dropped, never written. */
  seal(): void {
    this.#sealed = true;
    this.#buffer = [];
  }

  close(): void {
    this.flush();
    this.#file.close();
  }
}
