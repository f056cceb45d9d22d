/**
 * A Python dict literal of numbers, read without evaluating it: LLMPerf writes `results_error_code_frequency` as
 * `str(dict(value_counts()))`, e.g. `{-100.0: 49}`, `{}`, or with NumPy 2 `{np.float64(429.0): np.int64(3)}`.
 *
 * @module
 */

/** One entry: the key as written (`-100.0`) and its count. */
export interface PyDictEntry {
  key: string;
  value: number;
}

const NUMBER = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|nan|inf)/;
const WRAPPED = /^(?:np|numpy)\.[A-Za-z_][A-Za-z0-9_]*\(/;

/**
 * Parses `{key: value, ...}` where each key and value is a number literal, optionally wrapped as `np.int64(…)` /
 * `numpy.float64(…)`, or a quoted string key. Anything else throws a `SyntaxError` naming the character offset.
 */
export function parsePyNumberDict(text: string): PyDictEntry[] {
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at character ${i + 1} of ${JSON.stringify(text)}`);
  };
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const scalar = (allowString: boolean): { raw: string; value: number } => {
    ws();
    const wrapped = WRAPPED.exec(text.slice(i));
    if (wrapped) {
      i += wrapped[0].length;
      const inner = scalar(false);
      ws();
      if (text[i] !== ")") fail("expected ')'");
      i++;
      return inner;
    }
    const q = text[i];
    if (allowString && (q === "'" || q === '"')) {
      const end = text.indexOf(q, i + 1);
      if (end < 0) fail("unterminated string");
      const raw = text.slice(i + 1, end);
      i = end + 1;
      return { raw, value: Number.NaN };
    }
    const m = NUMBER.exec(text.slice(i));
    if (!m) fail("expected a number");
    i += m![0].length;
    const raw = m![0];
    const value = /nan$/.test(raw)
      ? Number.NaN
      : /inf$/.test(raw)
      ? (raw[0] === "-" ? -Infinity : Infinity)
      : Number(raw);
    return { raw, value };
  };
  ws();
  if (text[i] !== "{") fail("expected '{'");
  i++;
  const out: PyDictEntry[] = [];
  ws();
  while (text[i] !== "}") {
    const key = scalar(true);
    ws();
    if (text[i] !== ":") fail("expected ':'");
    i++;
    const value = scalar(false);
    out.push({ key: key.raw, value: value.value });
    ws();
    if (text[i] === ",") {
      i++;
      ws();
    } else if (text[i] !== "}") fail("expected ',' or '}'");
  }
  i++;
  ws();
  if (i !== text.length) fail("unexpected text after '}'");
  return out;
}
