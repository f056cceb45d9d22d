/** Test helpers: Bedrock stream transcripts (test/fixtures/dialects/bedrock-converse/) as event-stream bytes. */
import { EventStreamCodec, type MessageHeaders } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { AwsEventStreamDecoder } from "../../../runner/dialects/aws_eventstream.ts";
import { BedrockAnswer } from "../../../runner/dialects/bedrock_answer.ts";

/** One message of a transcript. */
export interface Frame {
  t?: number;
  type?: string;
  message_type?: "event" | "exception";
  payload?: unknown;
  raw?: string;
  no_event_type?: boolean;
}

export const FIXTURES = new URL("../../fixtures/dialects/bedrock-converse/", import.meta.url);
const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** A fixture file, parsed. */
export function fixture<T = { description: string; frames: Frame[] }>(name: string): T {
  return JSON.parse(Deno.readTextFileSync(new URL(name, FIXTURES)));
}

/** One transcript message as event-stream bytes. */
export function encodeFrame(f: Frame): Uint8Array {
  const kind = f.message_type ?? "event";
  const headers: MessageHeaders = {
    ":message-type": { type: "string", value: kind },
    ":content-type": { type: "string", value: "application/json" },
  };
  if (!f.no_event_type) {
    headers[kind === "exception" ? ":exception-type" : ":event-type"] = { type: "string", value: f.type! };
  }
  return codec.encode({ headers, body: fromUtf8(f.raw ?? JSON.stringify(f.payload)) });
}

/** Byte strings joined. */
export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Replays a transcript: its bytes through the decoder in pieces of `piece` bytes (messages split across pieces and
 * several in one piece), each event fed to a fresh parser at its frame's time.
 */
export function replay(frames: Frame[], piece = 37): { answer: BedrockAnswer; decoder: AwsEventStreamDecoder } {
  const answer = new BedrockAnswer();
  const decoder = new AwsEventStreamDecoder();
  const bytes = concat(frames.map(encodeFrame));
  let n = 0;
  for (let at = 0; at < bytes.length; at += piece) {
    for (const ev of decoder.push(bytes.subarray(at, at + piece))) answer.feedEvent(ev, frames[n++]!.t ?? n);
  }
  const end = decoder.end();
  if (end.partial || decoder.problem) throw new Error(`transcript did not decode: ${decoder.problem}`);
  if (n !== frames.length) throw new Error(`decoded ${n} of ${frames.length} frames`);
  return { answer, decoder };
}
