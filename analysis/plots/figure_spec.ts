/**
 * The figure spec: what every plot function returns and every renderer
 * (HTML page, Jupyter output, PNG) reads. Types only, so the renderers and
 * {@linkcode makeFigure} can share them without importing each other.
 *
 * @module
 */

/** One plotly.js trace (JSON only: plain arrays, no typed arrays). */
export type Trace = { type: string; name?: string } & Record<string, unknown>;

/** What a plot function builds before `makeFigure` adds the common layout. */
export interface FigureSpec {
  /** Stable id: the element id in HTML and the figure's key in a report. */
  id: string;
  title: string;
  /** The disclosure in one line (denominator, window, n): the figure's subtitle. */
  disclosure: string;
  /** Longer notes (definitions, inclusion rules) shown under the figure in HTML. */
  notes: string[];
  data: Trace[];
  /** Layout beyond title, subtitle and margins. */
  layout: Record<string, unknown>;
}

/** A figure: its spec with the full plotly layout. Displays itself in Deno Jupyter. */
export interface Figure extends FigureSpec {
  /** Shapes, annotations and axes are plotly.js layout keys. */
  layout: Record<string, unknown> & { title: { text: string; subtitle: { text: string } } & Record<string, unknown> };
}
