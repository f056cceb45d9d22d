// Child process for the crash test: flushes `flushed` rows, appends more
// without flushing, reports, then waits to be killed with SIGKILL.
import { CsvSink } from "../../../../runner/sinks/csv_sink.ts";
import { requestRow } from "../_rows.ts";

const [dir, flushedArg] = Deno.args;
const flushed = Number(flushedArg);
const sink = CsvSink.open(dir!, "requests", { epochMs: 1767225600000 });
for (let i = 0; i < flushed; i++) sink.append(requestRow({ request_id: `r-${i}` }));
sink.flush();
for (let i = 0; i < 10; i++) sink.append(requestRow({ request_id: `lost-${i}` }));
console.log("ready");
setTimeout(() => console.log("not killed"), 15_000);
