/// <reference lib="deno.worker" />
import { getEncoding } from "js-tiktoken";

const enc = getEncoding("o200k_base");
self.onmessage = (e: MessageEvent<{ id: number; text: string }>) => {
  self.postMessage({ id: e.data.id, n: enc.encode(e.data.text).length });
};
