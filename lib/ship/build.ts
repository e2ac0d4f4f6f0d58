/**
 * `asm build`: writes `dist/asm`, the one downloaded file. A POSIX sh header (`header.ts`) and a gzip'd tar of
 * the pinned Deno (the binary running this), the source tree a server needs (no tests, no verify/ or bench/), the
 * locked `node_modules`, and the page's two browser scripts built now (so a first run needs no bundler, which
 * Deno would download). No bundling of asm's own code: the tree runs as it does in a checkout.
 * @module
 */
import { createHash } from "node:crypto";
import { basename, dirname, join, relative } from "node:path";
import { ASM_VERSION } from "../config/version.ts";
import { repoRoot } from "../config/paths.ts";
import { renderHeader } from "./header.ts";
import { PREBUILT_DIR, prebuiltName } from "../ui/bundle.ts";

/** Options of {@link buildDist}. */
export interface BuildOptions {
  /** The checkout to build from (default: this one). */
  root?: string;
  /** The file to write (default: `<root>/dist/asm`). */
  out?: string;
  /** Progress lines (default: stderr). */
  say?: (line: string) => void;
}

/** What a build wrote. */
export interface BuildReport {
  path: string;
  bytes: number;
  version: string;
  commit: string;
  sha256: string;
}

/** The top-level entries of the source tree the file carries. */
/** (`verify/mod.ts` and its `gate.ts` name the gates for the command table; the gates themselves stay home.) */
const SOURCE_ROOTS = [
  "main.ts",
  "deno.json",
  "deno.lock",
  "README.md",
  "lib",
  "routes",
  "islands",
  "hooks",
  "verify/mod.ts",
  "verify/gate.ts",
];

/** Test files stay home: a server never loads them. */
function isTest(name: string): boolean {
  return /_test\.tsx?$/.test(name) || name === "_test_utils.ts";
}

function copyTree(from: string, to: string): number {
  let files = 0;
  const info = Deno.statSync(from);
  if (info.isFile) {
    Deno.mkdirSync(dirname(to), { recursive: true });
    Deno.copyFileSync(from, to);
    return 1;
  }
  Deno.mkdirSync(to, { recursive: true });
  for (const entry of Deno.readDirSync(from)) {
    if (isTest(entry.name)) continue;
    if (entry.isDirectory || entry.isFile) files += copyTree(join(from, entry.name), join(to, entry.name));
  }
  return files;
}

async function run(cmd: string, args: string[], cwd?: string): Promise<Uint8Array> {
  const out = await new Deno.Command(cmd, { args, cwd, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr).slice(-2000)}`);
  }
  return out.stdout;
}

/** The commit of the checkout (short), "unknown" outside git or without it. */
export async function commitOf(root: string): Promise<string> {
  try {
    const text = new TextDecoder().decode(await run("git", ["rev-parse", "--short=12", "HEAD"], root)).trim();
    return /^[0-9a-f]{7,40}$/.test(text) ? text : "unknown";
  } catch {
    return "unknown";
  }
}

/** POSIX `cksum` of a file, as it prints it without the name (`<crc> <bytes>`). */
async function cksumOf(path: string): Promise<string> {
  const text = new TextDecoder().decode(await run("sh", ["-c", 'cksum < "$1"', "sh", path])).trim();
  return text.replace(/\s+/g, " ");
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  using file = await Deno.open(path);
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}

/** Builds the one file. Throws with the step's error when a step fails; leaves nothing half-written at `out`. */
export async function buildDist(options: BuildOptions = {}): Promise<BuildReport> {
  const root = options.root ?? repoRoot();
  const out = options.out ?? join(root, "dist", "asm");
  const say = options.say ?? ((line: string) => console.error(line));
  const stage = await Deno.makeTempDir({ prefix: "asm-build-" });
  try {
    const src = join(stage, "src");
    let files = 0;
    for (const name of SOURCE_ROOTS) files += copyTree(join(root, name), join(src, name));
    say(`source: ${files} files`);
    await run("cp", ["-a", join(root, "node_modules"), join(src, "node_modules")]);
    say("node_modules: copied as locked");
    for (
      const [entry, name] of [["islands/client.tsx", "islands"], ["islands/terminal_client.ts", "terminal"]]
    ) {
      const js = await run(
        Deno.execPath(),
        ["bundle", "--platform=browser", "--minify", "--quiet", entry],
        root,
      );
      Deno.mkdirSync(join(src, PREBUILT_DIR), { recursive: true });
      Deno.writeFileSync(join(src, PREBUILT_DIR, prebuiltName(name)), js);
    }
    say("page scripts: built");
    Deno.copyFileSync(Deno.execPath(), join(stage, "deno"));
    Deno.chmodSync(join(stage, "deno"), 0o755);
    const payload = join(stage, "payload.tar.gz");
    say("packing (gzip) ...");
    await run("tar", ["-czf", payload, "-C", stage, "deno", "src"]);
    const [sha256, cksum, commit] = await Promise.all([sha256Of(payload), cksumOf(payload), commitOf(root)]);
    const header = new TextEncoder().encode(renderHeader({ version: ASM_VERSION, commit, sha256, cksum }));
    Deno.mkdirSync(dirname(out), { recursive: true });
    const partial = join(dirname(out), `.${basename(out)}.partial`);
    Deno.writeFileSync(partial, header, { mode: 0o755 });
    Deno.writeFileSync(partial, Deno.readFileSync(payload), { append: true });
    Deno.chmodSync(partial, 0o755);
    Deno.renameSync(partial, out);
    const bytes = Deno.statSync(out).size;
    say(
      `wrote ${relative(Deno.cwd(), out) || out}: ${
        (bytes / 1e6).toFixed(1)
      } MB, asm ${ASM_VERSION} (${commit})`,
    );
    return { path: out, bytes, version: ASM_VERSION, commit, sha256 };
  } finally {
    await Deno.remove(stage, { recursive: true }).catch(() => {});
  }
}
