/**
 * The recorder's writer thread (node:worker_threads, started by recorder/thread_writer.ts): an `AppWriter` on its own
 * thread (recorder/writer_protocol.ts `serveWriter`), so that CSV encoding, Parquet row groups, rotation and run.json
 * writes never hold the app's event loop. `deno task recorder-node` bundles it as
 * `out/recorder-node/writer_worker.mjs`, beside recorder.mjs.
 *
 * @module
 */
import { parentPort, workerData } from "node:worker_threads";
import type { WriterSetup } from "./writer.ts";
import { serveWriter } from "./writer_protocol.ts";

if (parentPort === null) throw new Error("recorder/writer_worker.ts runs as the recorder's writer thread only");
serveWriter(parentPort, workerData as WriterSetup);
