/**
 * The review page: one self-contained HTML file that works from disk (file://) with no server and no network — its
 * style and script inline, its packet embedded as JSON, and a Content-Security-Policy that lets it load nothing.
 *
 * @module
 */
import { escapeHtml, scriptJson } from "../../plots/html.ts";
import { PAGE_SCRIPT } from "./_page_script.ts";
import type { PacketData } from "./packet.ts";

const STYLE = `
:root { color-scheme: light; --ink: #1b1b1b; --muted: #555; --line: #c9c9c9; --accent: #1a5fb4; --pass: #26734d;
  --fail: #a51d2d; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--ink); background: #fafafa; }
header { padding: 8px 16px; border-bottom: 1px solid var(--line); background: #fff; display: flex; gap: 16px;
  align-items: center; flex-wrap: wrap; }
header h1 { font-size: 18px; margin: 0; }
.muted { color: var(--muted); }
#pick { max-width: 640px; margin: 48px auto; padding: 24px; background: #fff; border: 1px solid var(--line); }
nav { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; padding: 8px 16px; background: #fff;
  border-bottom: 1px solid var(--line); }
nav .spacer { flex: 1; }
button { font: inherit; padding: 4px 10px; border: 1px solid #888; background: #fff; border-radius: 4px; cursor: pointer; }
button:disabled { opacity: 0.4; cursor: default; }
:focus-visible, .criterion:focus { outline: 3px solid var(--accent); outline-offset: 2px; }
.cols { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 16px; padding: 16px;
  height: calc(100vh - 110px); }
.prompt, .rubric { background: #fff; border: 1px solid var(--line); }
.rubric { overflow: auto; padding: 12px 16px; }
.prompt { display: flex; flex-direction: column; overflow: hidden; }
.pane { overflow: auto; padding: 4px 16px 12px; }
#prompt-pane { flex: 1 1 55%; }
#answer-pane { flex: 1 1 45%; border-top: 2px solid var(--accent); }
h2 { font-size: 16px; margin: 12px 0 6px; }
h3 { font-size: 13px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); margin: 8px 0 2px; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.message { border-left: 3px solid var(--line); padding-left: 8px; margin-bottom: 8px; }
#answer { border-left: 3px solid var(--accent); padding: 4px 8px; background: #f3f7fc; }
.criterion { border: 1px solid var(--line); border-radius: 6px; padding: 8px; margin: 8px 0; }
.criterion.scored { border-color: var(--accent); }
.criterion-name { font-weight: 600; margin-right: 6px; }
.criterion p { margin: 4px 0; }
.scores { display: flex; gap: 6px; flex-wrap: wrap; }
.scores button[aria-checked="true"] { background: var(--accent); color: #fff; border-color: var(--accent); }
.verdict.pass { color: var(--pass); } .verdict.fail { color: var(--fail); } .verdict.open { color: var(--muted); }
textarea { width: 100%; min-height: 4em; font: inherit; }
.example { border-left: 3px solid var(--line); padding-left: 8px; margin: 6px 0; }
#help { position: fixed; top: 10%; left: 20%; right: 20%; max-height: 80%; background: #fff; border: 2px solid var(--ink); padding: 16px 24px;
  overflow: auto; box-shadow: 0 4px 24px rgba(0,0,0,0.3); }
#help dt { font-weight: 600; } #help dd { margin: 0 0 6px 0; }
kbd { border: 1px solid #999; border-radius: 3px; padding: 0 4px; font-family: ui-monospace, monospace; }
#status { padding: 0 16px; min-height: 1.5em; }
[hidden] { display: none !important; }
`;

const KEYS: [string, string][] = [
  ["0 – 9", "score the focused criterion (then the next criterion takes the focus)"],
  ["Tab, ↓ / ↑", "the next / previous criterion"],
  ["→ / ←", "raise / lower the focused criterion's score by one"],
  ["n or Enter", "the next item"],
  ["p or Shift+Enter", "the previous item"],
  ["Esc", "leave the notes field (back to the criteria); close this help"],
  ["?", "this help"],
];

/**
 * The page of a packet. It names no run, request, route, stage, model or time: only the packet id, the prompts,
 * answers and rubrics under opaque ids, and each rater's list.
 *
 * @example The page carries its packet and loads nothing from elsewhere
 * ```ts
 * import assert from "node:assert/strict";
 * import { packetHtml } from "./packet_html.ts";
 * const html = packetHtml({
 *   format: "review-packet", version: 1, packet_id: "rv-000000000000", packet_sha256: "0".repeat(64),
 *   rubrics: {}, items: {}, raters: { ana: [] },
 * });
 * assert.match(html, /default-src 'none'/);
 * assert.ok(html.includes('"packet_id":"rv-000000000000"'));
 * assert.doesNotMatch(html, /src="http|href="http/);
 * ```
 */
export function packetHtml(data: PacketData): string {
  const id = escapeHtml(data.packet_id);
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; ` +
    `script-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Blinded review ${id}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<header><h1>Blinded review</h1><span class="muted">packet <code>${id}</code></span>`,
    '<span class="muted">rater: <b id="rater-name">none yet</b></span>',
    '<span id="position" aria-live="polite"></span>',
    '<label class="muted">progress <progress id="progress" max="1" value="0"></progress></label>',
    '<span id="progress-text"></span></header>',
    '<p id="status" role="status" aria-live="polite"></p>',
    '<section id="pick" aria-labelledby="pick-title"><h2 id="pick-title">Who is rating?</h2>',
    '<p><label for="rater-select">Your name</label> <select id="rater-select"><option value="">choose…</option>',
    '</select> <button id="start" type="button">Start</button></p>',
    "<p>You see one answer at a time with its prompt and the rubric. Where it came from, how fast it was and where it " +
    "sits in the sample are hidden, and your list is in an order of its own. Score every criterion, add notes if you " +
    "want, and use <b>Export ratings</b> when you are done: send the file it downloads back. Your work is kept in " +
    "this browser, so closing the page and opening it again resumes.</p></section>",
    '<main id="work" hidden>',
    '<nav aria-label="Items"><button id="prev" type="button" aria-keyshortcuts="p">← Previous</button>',
    '<button id="next" type="button" aria-keyshortcuts="n Enter">Next →</button><span class="spacer"></span>',
    '<button id="help-button" type="button" aria-keyshortcuts="?">Keys (?)</button>',
    '<button id="switch-rater" type="button">Change rater</button>',
    '<button id="export" type="button">Export ratings</button></nav>',
    '<div class="cols"><section class="prompt" aria-label="Prompt and answer">',
    '<div class="pane" id="prompt-pane"><h2 id="prompt-title">Prompt</h2><div id="messages"></div></div>',
    '<div class="pane" id="answer-pane"><h2 id="answer-title">Answer</h2>',
    '<div id="answer" class="text" tabindex="-1" aria-labelledby="answer-title"></div>',
    '<div id="tool-calls" hidden><h2>Tool calls</h2><pre id="tool-calls-text" class="text"></pre></div></div></section>',
    '<section class="rubric" aria-labelledby="rubric-title"><h2 id="rubric-title">Rubric <span id="rubric-name">',
    '</span></h2><p id="instructions"></p><div id="criteria"></div>',
    '<p id="verdict" class="verdict" aria-live="polite"></p>',
    '<label for="notes"><b>Notes</b> (optional: why, doubts)</label><textarea id="notes"></textarea>',
    '<details><summary>Examples of answers that pass and fail</summary><div id="examples-list"></div></details>',
    "</section></div></main>",
    '<div id="help" role="dialog" aria-modal="true" aria-labelledby="help-title" hidden>',
    '<h2 id="help-title">Keys</h2><dl>',
    ...KEYS.map(([k, what]) => `<dt><kbd>${escapeHtml(k)}</kbd></dt><dd>${escapeHtml(what)}</dd>`),
    "</dl><p>Time on an item is counted while this page is in front and you have used the mouse or keys in the " +
    "last two minutes.</p>",
    '<button id="help-close" type="button">Close</button></div>',
    `<script type="application/json" id="review-data">${scriptJson(data)}</script>`,
    `<script>${PAGE_SCRIPT}</script>`,
    "</body></html>",
    "",
  ].join("\n");
}
