/**
 * The bound on the text the runner's tokenizer counts: at most 1,048,576 characters and BPE work Σ (pre-token piece
 * length in UTF-8 bytes)² ≤ 2,048²; the definition and its measurements live in schema/tokenizer_bound.ts, shared
 * with the simulator.
 *
 * @module
 */
export { MAX_TOKENIZED_CHARS, MAX_TOKENIZER_WORK, tokenizerRefusal } from "../schema/tokenizer_bound.ts";
