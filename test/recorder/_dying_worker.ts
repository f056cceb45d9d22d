/**
 * A writer thread that answers calls as the recorder's does but stops (an uncaught error) on the second append it
 * receives, without handling it (test/recorder/writer_thread_test.ts).
 *
 * @module
 */
import { setTimeout } from "node:timers";
import { parentPort, workerData } from "node:worker_threads";
import type { WriterSetup } from "../../recorder/writer.ts";
import { serveWriter, type WriterCall } from "../../recorder/writer_protocol.ts";

const port = parentPort!;
let appends = 0;
serveWriter({
  on: (_event, listener) =>
    port.on("message", (call: WriterCall) => {
      if (call.op === "append" && ++appends === 2) {
        setTimeout(() => {
          throw new Error("the writer thread of this test stops");
        });
      } else listener(call);
    }),
  postMessage: (reply) => port.postMessage(reply),
}, workerData as WriterSetup);
