/**
 * Accepted goodput: the SLO policy (load, validate, resolve its window),
 * the classification of every request (accepted, or the first reason it
 * failed: shed, error, late, a failed gate), and the goodput table with its
 * disclosure (denominator, window, inclusion rules, n).
 *
 * Entry points: {@linkcode loadSloPolicy}, {@linkcode classify},
 * {@linkcode goodput} and its text form {@linkcode formatGoodput}. Degraded
 * service modes are in `service_modes.ts`; gate rules (`_gates.ts`),
 * streaming semantics (`_streaming.ts`), per-mode SLOs (`_mode_slo.ts`) and
 * the lazy classification (`_classify_lazy.ts`) are private to analysis/.
 *
 * @module
 */
export * from "./policy.ts";
export * from "./e2e_deadlines.ts";
export * from "./classify.ts";
export * from "./disclosure.ts";
export * from "./goodput.ts";
export * from "./format_goodput.ts";
export * from "./service_modes.ts";
export * from "./provider_quota.ts";
export * from "./format_provider_quota.ts";
