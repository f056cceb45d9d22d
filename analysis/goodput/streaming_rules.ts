/**
 * The streaming definitions in words (TTFT, TPOT, how streaming is known) and
 * the streaming kinds: what every disclosure states, whichever engine counted
 * (polars in `_streaming.ts`, SQL in analysis/sql/).
 *
 * @module
 */

/** How a request's streaming is known, as the `streaming` code of `streamingExprs` (`_streaming.ts`). */
export const STREAMING = ["streamed", "not_streamed", "assumed_streamed", "inferred_not_streamed"] as const;
export type Streaming = typeof STREAMING[number];

/** The TTFT definition, stated in every disclosure. */
export const TTFT_DEFINITION =
  "TTFT = first_token_ms − scheduled_ms of a streamed request: the first token (text or tool-call delta) of its " +
  "first model round, so retrieval and a tool-calling round's own first token count, the tool rounds after it do " +
  "not; not observable (null, never 0) for a request that was not streamed, and then the TTFT limit does not apply";

/** The TPOT definition, stated in every disclosure. */
export const TPOT_DEFINITION =
  "TPOT = (last_token_ms − first_token_ms) / (output_tokens − 1) of the final answered attempt (highest attempt " +
  "with both token times) of the request's last round in attempts; not observable (null, never 0) when the request " +
  "or that attempt was not streamed, when that attempt has ≤ 1 output token, or when its tokens all arrived at one " +
  "instant (last_token_ms = first_token_ms), and then the TPOT limit does not apply";

/** How streaming is known, per log version, stated in every disclosure. */
export const STREAMING_RULE =
  "streamed: the request's `streamed` (contract 1.1: the class was sent with stream: true), for TPOT also the " +
  "answering attempt's own; a 1.0 log does not record it, so a request is inferred not streamed when the final " +
  "answered attempt of its last round has first_token_ms = last_token_ms, no inter-token gap (itl_p50_ms null) and " +
  "≥ 2 output tokens — a whole body arriving at once, as the 1.0 runner logged a non-streamed answer (a stream that " +
  "delivered every token in one chunk looks the same) — and assumed streamed otherwise (the 1.0 rule)";
