/** Why a request left the queue without being served. */
export type ShedReason = "queue_full" | "queue_age";

/**
 * One request as the capacity model sees it: token counts and callbacks.
 * The engine calls them from its step loop; they must not throw.
 */
export interface SimSequence {
  readonly id: number;
  /** Prompt tokens to prefill (cached prefix excluded). */
  readonly prefillTokens: number;
  /** KV tokens reserved while it runs: whole prompt + output cap. */
  readonly kvTokens: number;
  /** Output tokens it will generate (the answer, cut at the cap). */
  readonly outputTokens: number;
  /**
   * Set when the client went away (`Engine.cancel`): the engine drops it at its next step, or at once when the client
   * left inside `onToken`, and frees its slot and KV.
   */
  cancelled: boolean;
  /** It entered a replica's batch. */
  onAdmit(): void;
  /** Token `index` (0-based) was produced at the end of a step. */
  onToken(index: number): void;
  /** Its last token was produced (or, with no output, its prefill ended). */
  onFinish(): void;
  /** It was dropped from the queue (429). */
  onShed(reason: ShedReason): void;
}
