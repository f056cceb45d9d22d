import type { Gate, WorkloadCase } from "../../schema/mod.ts";

/** A tool call the model made. */
export interface ObservedToolCall {
  name: string;
  /** Parsed JSON arguments, or undefined when `raw_arguments` did not parse. */
  arguments: Record<string, unknown> | undefined;
  raw_arguments: string;
}

/** What a check sees of one finished request. */
export interface CheckInput {
  case: WorkloadCase;
  /** Final assistant text (the last round's content). */
  text: string;
  /** Finish reason of the last round (`stop`, `length`, `tool_calls`, ...). */
  finish_reason: string | null;
  /** Every tool call across rounds, in order. */
  tool_calls: ObservedToolCall[];
  /** The output-token cap the last round was sent with. */
  max_tokens: number;
  /** Output tokens of the last round. */
  output_tokens: number;
}

/** A gate's verdict: null = not evaluated (never silently true). */
export interface CheckResult {
  value: boolean | null;
  detail: string | null;
}

/** One inline check; each lives in its own file. */
export interface Check {
  readonly gate: Gate;
  /**
   * Whether the case defines this check. When it does not, the gate is not
   * applicable to the case's requests (unless the check judged a request
   * anyway): the log's `applicable_gates` leaves it out.
   */
  applies(c: WorkloadCase): boolean;
  evaluate(input: CheckInput): CheckResult;
  /**
   * Compiles what the check needs from the workload before the run (JSON
   * Schemas, regular expressions) and returns one problem per bad case,
   * naming the case and field, so a broken workload fails at start, not mid-run.
   */
  prepare?(cases: readonly WorkloadCase[]): string[];
}
