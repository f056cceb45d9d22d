/**
 * A user's clone needs nothing beside it: the notebooks, the examples, the claims and the import commands of the docs
 * read other tools' files from data/peers/ (copied with their origin, sha256 and licence), never from ../shared/, which
 * only the tests and CI have. The last case runs the documented commands in a copy of the clone with no shared/ beside.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PEERS = join(ROOT, "data/peers");

function walk(dir: string): string[] {
  return [...Deno.readDirSync(dir)].flatMap((e) =>
    e.isDirectory ? walk(join(dir, e.name)) : e.isFile ? [join(dir, e.name)] : []
  );
}
const sha256 = (file: string): string => createHash("sha256").update(Deno.readFileSync(file)).digest("hex");

/** The files a user runs or follows: notebooks, examples, claims, and the docs that give the import commands. */
const USER_FILES = [
  ...walk(join(ROOT, "notebooks")).filter((f) => f.endsWith(".ipynb")),
  ...walk(join(ROOT, "examples")),
  ...walk(join(ROOT, "data/claims")),
  ...walk(join(ROOT, "data/plans")),
  join(ROOT, "docs/notebooks.md"),
  join(ROOT, "docs/importing.md"),
  join(ROOT, "importers/cli.ts"),
];

/** Shell commands of a markdown file: lines of its code blocks (fenced or indented) that run a deno task, joined over `\`. */
function commands(markdown: string): string[] {
  const lines = markdown.split("\n").map((l) => l.trim());
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^npx deno task /.test(lines[i]!)) continue;
    let cmd = lines[i]!;
    while (cmd.endsWith("\\") && i + 1 < lines.length) cmd = cmd.slice(0, -1) + " " + lines[++i]!;
    out.push(cmd.replace(/\s+#.*$/, "").replace(/\s+/g, " ").trim());
  }
  return out;
}

Deno.test("data/peers/README.md names every file there with its byte count and the sha256 it has", () => {
  const readme = Deno.readTextFileSync(join(PEERS, "README.md"));
  const files = walk(PEERS).filter((f) => !f.endsWith("README.md"));
  assert.ok(files.length >= 8, `${files.length} peer files`);
  for (const file of files) {
    const rel = relative(PEERS, file);
    const row = readme.split("\n").find((l) => l.startsWith(`| \`${rel}\``));
    assert.ok(row, `${rel}: a row in data/peers/README.md`);
    assert.ok(row.includes(`| ${Deno.statSync(file).size} |`), `${rel}: its byte count ${Deno.statSync(file).size}`);
    assert.ok(row.includes(`\`${sha256(file)}\``), `${rel}: its sha256 ${sha256(file)}`);
    assert.match(row, /\| `[0-9a-f]{40}`/, `${rel}: the commit it was taken from`);
  }
  assert.match(readme, /Apache License 2\.0/, "the licence is stated");
});

Deno.test("no notebook, example, claim or import command reads ../shared (a user's clone has nothing beside it)", () => {
  for (const file of USER_FILES) {
    const text = Deno.readTextFileSync(file);
    const rel = relative(ROOT, file);
    if (rel.startsWith("docs/")) {
      // The docs may say what the tests read; their commands may not.
      for (const cmd of commands(text)) assert.ok(!cmd.includes("shared/"), `${rel}: ${cmd}`);
    } else {
      assert.ok(!/\.\.\/shared\b|shared\/data\//.test(text), `${rel} refers to ../shared`);
    }
  }
});

Deno.test("every data/peers path a claim, a doc command or a notebook names exists in the clone", () => {
  let seen = 0;
  for (const file of USER_FILES) {
    const text = Deno.readTextFileSync(file);
    for (const m of text.matchAll(/(?:\.\.\/)?data\/peers\/[\w.+\-/]+\.(?:jsonl?|csv|ya?ml)/g)) {
      // Notebooks run in notebooks/ (paths start with ../); everything else from the clone's root.
      const path = m[0].startsWith("../") ? join(dirname(file), m[0]) : join(ROOT, m[0]);
      assert.ok(Deno.statSync(path).isFile, `${relative(ROOT, file)}: ${m[0]}`);
      seen++;
    }
  }
  assert.ok(seen >= 10, `${seen} paths checked`);
});

Deno.test({
  name: "the import and audit commands of docs/importing.md run in a copy of the clone with no shared/ beside it",
  sanitizeResources: false,
  fn: async () => {
    const tmp = await Deno.makeTempDir({ prefix: "goodput-clone-" });
    try {
      // The clone's files as git lists them (committed and new, not ignored), copied; node_modules linked (installed).
      const ls = new Deno.Command("git", {
        args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd: ROOT,
        stdout: "piped",
      }).outputSync();
      assert.ok(ls.success, "git ls-files");
      const clone = join(tmp, "clone");
      for (const rel of new TextDecoder().decode(ls.stdout).split("\0").filter(Boolean)) {
        const from = join(ROOT, rel);
        try {
          if (!Deno.statSync(from).isFile) continue;
        } catch {
          continue; // listed by git but deleted in the working tree
        }
        Deno.mkdirSync(dirname(join(clone, rel)), { recursive: true });
        Deno.copyFileSync(from, join(clone, rel));
      }
      Deno.symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"));
      assert.throws(() => Deno.statSync(join(tmp, "shared")), "no shared/ beside the copy");

      const cmds = commands(Deno.readTextFileSync(join(ROOT, "docs/importing.md")))
        .filter((c) =>
          / --from (aiperf|llmperf) data\/peers\//.test(c) || / audit \/tmp\/\S+ --claim data\/claims\//.test(c)
        )
        .map((c) => c.replaceAll("/tmp/", `${tmp}/out/`));
      assert.ok(cmds.length >= 4, `${cmds.length} commands: ${cmds.join("\n")}`);
      for (const cmd of cmds) {
        const args = cmd.replace(/^npx deno task /, "").split(" ");
        const res = await new Deno.Command(join(clone, "node_modules/.bin/deno"), {
          args: ["task", "-q", ...args],
          cwd: clone,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const err = new TextDecoder().decode(res.stderr);
        assert.equal(res.code, 0, `${cmd}\n${err.slice(-2000)}`);
      }
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
