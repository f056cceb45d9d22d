/**
 * Accepted goodput: LLM service capacity measured as accepted tasks per
 * second. This module is the public API for notebooks and scripts — the only
 * module a notebook imports. It lists, by concern:
 *
 * - **Run** — `loadRun` (a run folder, CSV or Parquet, shards concatenated,
 *   sha256 verified) and `scanRun` (lazy, for large runs).
 * - **Goodput and policy** — `loadSloPolicy`, `resolveWindow`, `goodput` with its
 *   disclosure (denominator, window, inclusion rules, n), `classify`, `formatGoodput`.
 * - **Latency** — `latencyInWindow`, `latencyTable`, percentiles with confidence
 *   intervals, the SLO sweep, early stopping.
 * - **Knee, limit and recovery** — `knee`, `productionLimit`, `clientLimit`,
 *   `recovery`, outages, autoscaling, retries, cold start, intake drills.
 * - **Cost** — `ledger` against a price sheet, `loadPriceSheet`, `importLitellm`.
 * - **Compare** — `compare`, `compareRouteCosts`; the routes ranked with their
 *   intervals (`decision`, `formatDecision`), the cost at a planned volume
 *   (`parseVolumeFlags`, `volumeCosts`, `formatVolume`), what would change the
 *   answer (`sensitivity`, `formatSensitivity`); `productionVsTest`: a production
 *   recording beside a load test of the same workload.
 * - **Audit** — `audit` of a published claim, `alternatives`, `claimMoves`.
 * - **Quality** — a run's quality table (`loadRunQuality`: judge and human verdicts by rubric), what people said
 *   (`humanConsensus`), the raters' agreement (`raterAgreementByClass`, `cohenKappa`, `krippendorffAlpha`) and the
 *   disagreement record (`raterDisagreements`), a judge against the people (`judgeCalibration`), goodput with each
 *   class's quality from its source (`qualityGoodput`) and acceptance by quality source (`acceptanceBySource`).
 * - **Import** — `importPeer`: another tool's result files (vLLM bench, GuideLLM,
 *   AIPerf, inference-perf, LLMPerf, MLPerf LoadGen, generic) as a run folder of
 *   kind `imported`, or a summary as audit claims; `formatImportSummary`.
 * - **Report** — `buildReport`, one self-contained HTML page; `buildComparePage`,
 *   the route comparison as one page to share.
 * - **Figures** — one `*Figure(result, options)` per chart, taking the result it
 *   draws, and `show`, `figureHtml`, `pageHtml`, `exportPng` to render them.
 * - **Contract** — the event-log and input-file schemas (zod, with their
 *   inferred types), `COLUMNS`, `OUTCOMES`, `SCHEMA_VERSION`, `InputError`.
 *
 * Lower-level pieces stay in their files under `analysis/` and `schema/`; tests
 * import those files directly.
 *
 * @example Accepted goodput of the committed sample run under the design-v1 SLO policy
 * ```ts
 * import { formatGoodput, goodput, loadRun, loadSloPolicy } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const run = await loadRun("data/runs/explore");
 * const result = goodput(run, await loadSloPolicy("data/slo/design-v1.json"));
 * assert.ok(result.overall.offered > 0);
 * assert.ok(result.overall.accepted <= result.overall.offered);
 * assert.equal(result.disclosure.denominator, "offered");
 * assert.ok(formatGoodput(result).includes("offered"));
 * ```
 *
 * @example The contract names every column of the requests table
 * ```ts
 * import { COLUMNS, OUTCOMES } from "./mod.ts";
 * import assert from "node:assert/strict";
 * assert.ok(COLUMNS.requests.includes("scheduled_ms"));
 * assert.ok(OUTCOMES.includes("client_shed"));
 * ```
 * @example Another tool's per-request file imported into a temporary folder, then read like any run
 * ```ts
 * import { importPeer, isImported, loadRun } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const out = await Deno.makeTempDir();
 * const files = ["data/import-examples/generic_requests.csv", "data/import-examples/generic_mapping.json"];
 * const done = await importPeer("generic", files, out, { slo: "data/slo/imported-e2e-10s.json" });
 * assert.equal(done.kind, "run");
 * const run = await loadRun(out);
 * assert.ok(isImported(run.manifest));
 * assert.equal(run.requests.height, 6); // the CSV's 7 lines: a header and 6 requests
 * await Deno.remove(out, { recursive: true });
 * ```
 * @module
 */

// Run: load or scan a run folder (a runner's run, or one imported from another tool's file).
export {
  decideStopped,
  type E2eDeadlines,
  importCaveats,
  isImported,
  isProduction,
  type LoadedRun,
  loadRun,
  type LoadRunOptions,
  type PartRead,
  PRODUCTION_CLIENT_RULE,
  PRODUCTION_OFFERED_RULE,
  PRODUCTION_OPEN_RULE,
  PRODUCTION_SECONDS_RULE,
  productionCaveats,
  RUN_END_RULE,
  type RunEnd,
  runKind,
  type ScannedRun,
  type ScannedShard,
  scanRun,
  type ScanRunOptions,
  withQuality,
} from "./analysis/run/mod.ts";

// Goodput and policy: the SLO policy, the window, accepted goodput with its disclosure.
export {
  classify,
  type Disclosure,
  e2eDeadlines,
  ERROR_OUTCOMES,
  FAILURE_ORDER,
  type FailureReason,
  formatGoodput,
  type FormatGoodputOptions,
  goodput,
  type GoodputResult,
  type GoodputRow,
  loadSloPolicy,
  parseSloPolicy,
  policyForRun,
  policyForRuns,
  type ProductionDisclosure,
  type ProductionWindow,
  type ResolvedWindow,
  resolveWindow,
  type ResolveWindowOptions,
  TPOT_DEFINITION,
  TTFT_DEFINITION,
  type WorkloadClasses,
  workloadClasses,
} from "./analysis/goodput/mod.ts";

// Latency: percentiles with n and confidence intervals, tables, the SLO sweep, early stopping.
export {
  earlyStopping,
  earlyStoppingMinSamples,
  type EarlyStoppingOptions,
  earlyStoppingTable,
  type EarlyStoppingTest,
  formatWaitBreakdown,
  LATENCY_INCLUSION,
  LATENCY_METRICS,
  latencyInWindow,
  type LatencyMetric,
  type LatencyOptions,
  type LatencyRow,
  latencyTable,
  type LimitsOptions,
  type MinSamplesRow,
  type MsWindow,
  percentile,
  type PercentileCI,
  percentileClaim,
  type PercentileClaimCheck,
  type PercentileOptions,
  percentileWithCI,
  sloSweep,
  type SweepCurve,
  sweepLimits,
  type SweepOptions,
  WAIT_RULES,
  WAIT_SEGMENTS,
  waitBreakdown,
  type WaitBreakdownResult,
  type WaitBreakdownRow,
  type WaitDisclosure,
  type WaitSegment,
  type WaitSegmentStats,
} from "./analysis/latency/mod.ts";
export { formatLatency, type FormatLatencyOptions } from "./analysis/notebook/mod.ts";

// Knee and limit: where goodput stops rising, the production limit, the verdicts on a run.
export {
  checkRepeatRuns,
  type ClientLimit,
  clientLimit,
  DEFAULT_TOLERANCES,
  formatKnee,
  knee,
  KNEE_VERDICT_RULES,
  kneedle,
  type KneedleOptions,
  type KneedleResult,
  type KneeOptions,
  type KneeResult,
  kneeVerdicts,
  type Level,
  limitFromKnee,
  type ProductionLimit,
  productionLimit,
  type RepeatCheck,
  type RunVerdicts,
  runVerdicts,
  type Tolerance,
} from "./analysis/knee/mod.ts";

// Recovery: bursts and outages, autoscaling, retries, cold start, intake drills.
export {
  autoscaling,
  type AutoscalingResult,
  coldStart,
  type ColdStartOptions,
  type ColdStartResult,
  type DetectedOutage,
  detectOutages,
  formatIntakeDrills,
  formatRecovery,
  INTAKE_DRILL_RULES,
  type IntakeDrillReport,
  type IntakeDrillResult,
  intakeDrills,
  type OutageDetection,
  type OutageOptions,
  outagePeriods,
  type PlannedOutage,
  recovery,
  type RecoveryOptions,
  type RecoveryResult,
  retries,
  RETRY_DEFINITION,
  type RetryResult,
} from "./analysis/recovery/mod.ts";

// Cost: the cost ledger against a price sheet, price sheets, the LiteLLM import.
export {
  type CostRow,
  formatLedger,
  type GpuTimeSummary,
  importLitellm,
  ledger,
  LEDGER_ITEMS,
  type LedgerItem,
  type LedgerLine,
  type LedgerOptions,
  type LedgerResult,
  type LitellmImportOptions,
  loadOverheadSheet,
  loadPriceSheet,
  type NaiveFigures,
} from "./analysis/cost/mod.ts";

// Compare: two runs or routes, class by class; route costs side by side; a production recording beside its load test.
export {
  type AcceptanceComparison,
  type ClassComparison,
  compare,
  type CompareOptions,
  type CompareResult,
  compareRouteCosts,
  type CrowdingRow,
  decision,
  type DecisionOptions,
  type DecisionResult,
  type Difference,
  formatCompare,
  formatDecision,
  formatProductionVsTest,
  formatSensitivity,
  formatVolume,
  type LatencyComparison,
  type OutsideModelComparison,
  parseVolumeFlags,
  type PlannedDemand,
  PRODUCTION_VS_TEST_RULES,
  productionVsTest,
  productionVsTestFindings,
  type ProductionVsTestOptions,
  type ProductionVsTestResult,
  type RouteComparison,
  type RouteCost,
  type RouteCostOptions,
  type RouteCostResult,
  sensitivity,
  type SensitivityOptions,
  type SensitivityResult,
  type UnseenSegment,
  volumeCosts,
  type VolumeResult,
} from "./analysis/compare/mod.ts";

// Audit: a published claim against the raw log, the same number under other rules.
export {
  type AlternativeRow,
  alternatives,
  type AlternativesOptions,
  type AlternativesResult,
  audit,
  AUDIT_SLO_VARIANTS,
  type AuditOptions,
  type AuditResult,
  Claim,
  type ClaimMove,
  claimMoves,
  DEFAULT_TOLERANCE,
  type Denominator,
  DENOMINATORS,
  formatAlternatives,
  loadClaim,
  type ResolvedClaim,
  type SloVariant,
  WINDOW_VARIANTS,
  type WindowVariant,
} from "./analysis/audit/mod.ts";
export { formatAudit, formatClaimMoves } from "./analysis/notebook/mod.ts";

// Quality: a run's quality table (judge and human verdicts by rubric), the raters' agreement and disagreements, a judge
// calibrated against people, goodput with measured quality, acceptance by quality source (docs/quality.md).
export {
  acceptanceBySource,
  type AlphaMetric,
  type CalibrationCell,
  type ClassRaterAgreement,
  cohenKappa,
  type CohenKappaOptions,
  type CohenKappaResult,
  type Consensus,
  formatAcceptanceBySource,
  formatJudgeCalibration,
  formatRaterAgreement,
  formatRaterDisagreements,
  humanConsensus,
  type JudgeCalibration,
  judgeCalibration,
  type JudgeCalibrationOptions,
  krippendorffAlpha,
  type KrippendorffAlphaOptions,
  type KrippendorffAlphaResult,
  loadRunQuality,
  type QualityClassDisclosure,
  type QualityDisclosure,
  qualityGoodput,
  type QualityGoodputResult,
  qualityLines,
  type RaterAgreement,
  raterAgreementByClass,
  type RaterDisagreement,
  type RaterDisagreementRecord,
  raterDisagreements,
  type RunQuality,
  type SourceAcceptanceRow,
} from "./analysis/quality/mod.ts";

// Import: another tool's result files as a run folder of kind `imported` (what the source lacks in run.json), or a
// summary-only source as claims for `audit` (docs/importing.md).
export { importPeer, type ImportPeerOptions, type PeerImport } from "./importers/import_peer.ts";
export { formatImportSummary } from "./importers/import_summary.ts";

// Report: one self-contained HTML page for a run; the route comparison as one page.
export {
  type AbsentFigure,
  buildComparePage,
  buildReport,
  type ComparePage,
  type ComparePageInput,
  type ComparePricing,
  type Report,
  type ReportOptions,
  type RunExtrasOptions,
  runReportExtras,
} from "./analysis/report/mod.ts";

// Figures: one function per chart, each `xFigure(result, options)` taking what the analysis returned (a run, a
// goodput, latency, alternatives or ledger result, a route-cost comparison, a judge's calibration, acceptance by
// quality source), and the renderers (notebook, HTML, PNG).
export {
  acceptanceBySourceFigure,
  type AcceptanceBySourceOptions,
  alternativesFigure,
  costVsDemandFigure,
  costWaterfallFigure,
  exportPng,
  failuresFigure,
  type FailuresOptions,
  type Figure,
  figureHtml,
  type FigureHtmlOptions,
  type FigureSpec,
  goodputVsLoadFigure,
  type GoodputVsLoadOptions,
  judgeConfusionFigure,
  latencyCdfFigure,
  type LatencyCdfFigureOptions,
  type LatencyCdfOptions,
  latencyPercentilesFigure,
  type LatencyPercentilesOptions,
  type LoadCurveInput,
  loadReportExtras,
  makeFigure,
  pageHtml,
  type PageHtmlOptions,
  type PngOptions,
  productionVsTestFigure,
  productionVsTestWaitFigure,
  ReportExtras,
  routeComparisonFigure,
  type RouteComparisonInput,
  type ShadedPeriod,
  show,
  type ShowOptions,
  type SloMetric,
  sloSweepFigure,
  type SloSweepFigureOptions,
  timelineFigure,
  type TimelineFigureOptions,
  tornadoFigure,
  type Trace,
  waitBreakdownFigure,
  type WaitBreakdownFigureOptions,
} from "./analysis/plots/mod.ts";
export { type DanfoDataFrame, toDanfo } from "./analysis/notebook/mod.ts";

// Contract: errors and the schema version.
export {
  assertSchemaVersion,
  EXIT_BAD_INPUT,
  InputError,
  loadJsonFile,
  parseWith,
  SCHEMA_MINOR,
  SCHEMA_VERSION,
} from "./schema/mod.ts";

// Contract: the event log (tables, columns, outcomes, rows) and the run manifest.
export {
  type AnyManifest,
  AttemptRow,
  COLUMNS,
  ImportedManifest,
  Outcome,
  OUTCOMES,
  PhaseRow,
  ProductionManifest,
  RequestRow,
  RunConditions,
  RunManifest,
  ServerRow,
  SimTimelineRow,
  StopSignal,
  type TableName,
  TABLES,
  ToolRow,
} from "./schema/mod.ts";

// Contract: the input files (workload, plan, SLO policy, prices, routes, drills, simulator profile).
export {
  ArrivalProcess,
  ClassSlo,
  DrillRecord,
  Gate,
  HostedPrice,
  IntakeDrill,
  type LoadedWorkload,
  loadRoutesFile,
  loadSimProfile,
  loadWorkload,
  ModeSlo,
  OverheadSheet,
  PlanSpec,
  PriceSheet,
  RetryPolicy,
  RoutePrice,
  RoutesFile,
  RouteSpec,
  ScheduledRequest,
  SelfHostedPrice,
  SERVICE_MODE_HEADER,
  ServiceModeName,
  SimProfile,
  SloPolicy,
  SloWindow,
  Stage,
  Target,
  Timeouts,
  UNRELAXABLE_GATES,
  Workload,
  WorkloadCase,
} from "./schema/mod.ts";
