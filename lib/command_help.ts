/**
 * The help of a command, rendered from its declaration (lib/command.ts): the
 * terminal text `--help` prints and the markdown section of docs/commands.md.
 * Both show every flag with its default, its allowed values and its meaning.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { helpText } from "./command_help.ts";
 * const text = helpText({
 *   name: "demo",
 *   invocation: "npx deno task demo",
 *   summary: "a demonstration",
 *   flags: { out: { type: "string", arg: "DIR", default: "out", description: "where the runs go" } },
 *   examples: ["npx deno task demo --out /tmp/demo"],
 * });
 * assert.ok(text.startsWith("npx deno task demo: a demonstration\n\nusage: npx deno task demo [flags]"));
 * assert.match(text, /--out DIR +where the runs go\n +default: out\n/);
 * ```
 * @module
 */
import { describeRule } from "./cli.ts";
import type { CommandSpec, FlagSpec, PositionalSpec } from "./command.ts";

/** Width the terminal help is wrapped to. */
const WIDTH = 100;
/** Widest flag column of the terminal help; a longer flag puts its meaning on the next line. */
const FLAG_COLUMN = 26;

/** The help flag every command has. */
export const HELP_FLAG = { cell: "-h, --help", meaning: "print this help and exit (exit code 0)" } as const;

/** Exit codes every command shares. */
export const COMMON_EXITS: Readonly<Record<string, string>> = {
  0: "done",
  1: "an unexpected error (`error: …` on stderr)",
  2: "bad input, found before any work starts: `error: …` naming every bad flag and file on stderr, then a " +
    "pointer to `--help`",
};

/** Markdown as plain text: no backticks, no bold. */
export function plain(s: string): string {
  return s.replaceAll("**", "").replaceAll("`", "");
}

/** `--name ARG`. */
export function flagCell(name: string, f: FlagSpec): string {
  return f.type === "boolean" ? `--${name}` : `--${name} ${f.arg}`;
}

/** The default in words (markdown). */
export function defaultText(f: FlagSpec): string {
  if (f.defaultText !== undefined) return f.defaultText;
  if (f.type === "boolean") return "off";
  if (f.type === "string" && f.multiple) return "none";
  if (f.default !== undefined) return typeof f.default === "string" ? `\`${f.default}\`` : String(f.default);
  return f.required ? "required" : "none";
}

/** The allowed values in words (markdown); empty for a switch. */
export function valuesText(f: FlagSpec): string {
  if (f.type === "boolean") return "";
  if (f.type === "number") return describeRule(f.rule);
  const v = f.choices ? f.choices.map((c) => `\`${c}\``).join(", ") : f.values ?? "";
  return f.multiple ? (v ? `${v}; repeatable` : "repeatable") : v;
}

/** One argument group as the usage line writes it: `RUN`, `RUN...`, `RUN RUN...`, `[OUT.png]`, `[ARG...]`. */
function positionalSynopsis(p: PositionalSpec): string {
  if (p.min === 0) return p.max === 1 ? `[${p.name}]` : `[${p.name}...]`;
  const words = Array.from({ length: p.min }, () => p.name);
  if (p.max === undefined || p.max > p.min) words[words.length - 1] += "...";
  return words.join(" ");
}

/** The usage line: the invocation, the arguments, the required flags, then `[flags]`. */
export function synopsis(spec: CommandSpec): string {
  const required = Object.entries(spec.flags).filter(([, f]) => f.type !== "boolean" && f.required);
  return [
    spec.invocation,
    ...(spec.positionals ?? []).map(positionalSynopsis),
    ...required.map(([name, f]) => flagCell(name, f)),
    Object.keys(spec.flags).length > required.length ? "[flags]" : "",
    spec.passthrough ? "[ARG...]" : "",
  ].filter(Boolean).join(" ");
}

/** Every exit code, the shared ones first (the command's own text replaces a shared one). */
export function exitCodes(spec: CommandSpec): [string, string][] {
  // A pass-through command refuses no input of its own: no exit code 2.
  const common = Object.entries(COMMON_EXITS).filter(([k]) => !(spec.passthrough && k === "2"));
  return Object.entries({ ...Object.fromEntries(common), ...spec.exits }).sort((a, b) =>
    parseInt(a[0]) - parseInt(b[0])
  );
}

/** Words wrapped to lines of `width` (the first: `first`), each line after the first indented by `indent`. */
function wrap(text: string, width: number, indent: number, first = width): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const room = lines.length ? width : first;
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${" ".repeat(indent)}`);
}

/** Rows of a two-column block: the left cell padded, the right wrapped beside it. */
function block(rows: [string, string][], column: number): string[] {
  const out: string[] = [];
  for (const [left, right] of rows) {
    const indent = 2 + column + 2;
    if (left.length > column) {
      out.push(`  ${left}`);
      out.push(" ".repeat(indent) + wrap(right, WIDTH - indent, indent));
    } else out.push(`  ${left.padEnd(column)}  ${wrap(right, WIDTH - indent, indent)}`);
  }
  return out;
}

/** The terminal help of a command: summary, usage, arguments, every flag with its default, examples, exit codes. */
export function helpText(spec: CommandSpec): string {
  const flagRows: [string, string][] = Object.entries(spec.flags).map(([name, f]) => {
    const values = valuesText(f);
    const required = f.type !== "boolean" && f.required && f.defaultText === undefined;
    const facts = `${values ? `values: ${values}; ` : ""}${required ? "required" : `default: ${defaultText(f)}`}`;
    return [flagCell(name, f), `${f.description}\n${facts}`];
  });
  flagRows.push([HELP_FLAG.cell, HELP_FLAG.meaning]);
  const column = Math.min(FLAG_COLUMN, Math.max(...flagRows.map(([l]) => l.length)));
  const flagLines = flagRows.flatMap(([left, right]) => {
    const [meaning, facts] = right.split("\n");
    const lines = block([[left, plain(meaning!)]], column);
    if (facts) lines.push(" ".repeat(column + 4) + wrap(plain(facts), WIDTH - column - 4, column + 4));
    return lines;
  });
  const positionals = spec.positionals ?? [];
  const out = [
    wrap(`${spec.invocation}: ${plain(spec.summary)}`, WIDTH - 2, 2, WIDTH),
    "",
    `usage: ${synopsis(spec)}`,
    ...(spec.details ?? []).flatMap((d) => ["", wrap(plain(d), WIDTH, 0)]),
  ];
  if (positionals.length) {
    const column = Math.max(...positionals.map((p) => p.name.length));
    out.push("", "arguments:", ...block(positionals.map((p) => [p.name, plain(p.description)]), column));
  }
  if (spec.passthrough) out.push("", `arguments: passed to ${spec.passthrough}`);
  out.push("", "flags:", ...flagLines);
  out.push("", spec.examples.length === 1 ? "example:" : "examples:", ...spec.examples.map((e) => `  ${e}`));
  out.push(
    "",
    "exit codes:",
    ...block(exitCodes(spec).map(([k, v]) => [k, plain(v)]), Math.max(...exitCodes(spec).map(([k]) => k.length))),
  );
  return out.join("\n");
}

/** A markdown table, cells padded to their column as `deno fmt` pads them, `|` inside a cell escaped. */
export function markdownTable(header: string[], rows: string[][]): string {
  const cells = [header, ...rows].map((r) => r.map((c) => c.replaceAll("|", "\\|")));
  const widths = header.map((_, i) => Math.max(3, ...cells.map((r) => [...r[i]!].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c + " ".repeat(widths[i]! - [...c].length)).join(" | ")} |`;
  return [line(cells[0]!), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...cells.slice(1).map(line)]
    .join("\n");
}

/** The flag table of a command (markdown): flag, default, values, meaning; `--help` last. */
export function flagTable(spec: CommandSpec): string {
  const rows = Object.entries(spec.flags).map(([name, f]) => [
    `\`${flagCell(name, f)}\``,
    defaultText(f),
    valuesText(f),
    f.description,
  ]);
  rows.push([`\`${HELP_FLAG.cell}\``, "", "", HELP_FLAG.meaning]);
  return markdownTable(["flag", "default", "values", "meaning"], rows);
}

/** A command's section of docs/commands.md. */
export function commandMarkdown(spec: CommandSpec): string {
  const positionals = spec.positionals ?? [];
  return [
    `## ${spec.name}`,
    "",
    `${spec.summary.charAt(0).toUpperCase()}${spec.summary.slice(1)}.`,
    ...(spec.details ?? []).flatMap((d) => ["", d]),
    "",
    "```sh",
    synopsis(spec),
    "```",
    ...(positionals.length
      ? ["", markdownTable(["argument", "meaning"], positionals.map((p) => [`\`${p.name}\``, p.description]))]
      : []),
    ...(spec.passthrough ? ["", `Other arguments are passed to \`${spec.passthrough}\`.`] : []),
    "",
    flagTable(spec),
    "",
    spec.examples.length === 1 ? "Example:" : "Examples:",
    "",
    "```sh",
    ...spec.examples,
    "```",
    "",
    `Exit codes: ${exitCodes(spec).map(([k, v]) => `\`${k}\` ${v}`).join("; ")}.`,
    "",
  ].join("\n");
}
