/**
 * `./asm test`: installs what is missing, runs every test (unit, gates, end-to-end) with `deno test` inside a
 * sandbox of temporary homes, and ends with one line `N passed, N failed, N skipped`.
 * @module
 */
import { join } from "node:path";
import { repoRoot } from "../lib/config/paths.ts";
import { agentsBinDir, ensurePrerequisites } from "./prerequisites.ts";
import { errorText } from "../lib/lang/mod.ts";

/** The test folders, in the order they run. */
const TEST_ROOTS = ["lib", "hooks", "routes", "islands", "verify", "bench"];

/**
 * Parses deno test's closing summary (`ok | 12 passed (3 steps) | 0 failed | 2 ignored`): a test `ignore`d is one
 * skipped.
 */
export function parseSummary(output: string): { passed: number; failed: number; skipped: number } | null {
  const lines = output.split("\n").reverse();
  for (const line of lines) {
    // deno colours its summary; strip escape codes before reading the numbers
    // deno-lint-ignore no-control-regex
    const plain = line.replace(/\x1b\[[0-9;]*m/g, "");
    const m = plain.match(
      /(\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed(?: \((?:\d+ steps?)\))?(?: \| (\d+) ignored)?/,
    );
    if (m) return { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3] ?? 0) };
  }
  return null;
}

/**
 * Sets up temporary homes so no test can touch the real ~/.claude, ~/.codex, ~/.gemini or ~/.asm, even by
 * mistake; Deno's own cache stays where it was, so nothing is downloaded again.
 */
function sandboxEnv(root: string): Record<string, string> {
  const env = Deno.env.toObject();
  const home = join(root, "home");
  Deno.mkdirSync(home, { recursive: true });
  const denoDir = env.DENO_DIR || join(env.HOME ?? home, ".cache", "deno");
  return {
    ...env,
    HOME: home,
    ASM_HOME: join(home, ".asm"),
    CODEX_HOME: join(home, ".codex"),
    GEMINI_CLI_HOME: home,
    DENO_DIR: denoDir,
    ASM_AGENTS_BIN: agentsBinDir(),
    // every server a test starts is a testing one (lib/server app.ts): it writes nothing shared
    ASM_MODE: "testing",
    NO_COLOR: "1",
  };
}

/** Options of {@link runAllTests}. */
export interface RunTestsOptions {
  /** Files or folders to test instead of every test folder. */
  paths?: string[];
  /** Handed to `deno test` unchanged, before the paths (`./asm test lib -- --filter "a name"`). */
  denoArgs?: string[];
}

/** Runs everything; returns the exit code (0 when nothing failed). */
export async function runAllTests(options: RunTestsOptions = {}): Promise<number> {
  const problems = await ensurePrerequisites();
  for (const p of problems) console.log(`asm test: ${p}`);
  const root = Deno.makeTempDirSync({ prefix: "asm-test-" });
  const paths = options.paths ?? [];
  const flags = options.denoArgs ?? [];
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--frozen", ...flags, ...(paths.length ? paths : TEST_ROOTS)],
    cwd: repoRoot(),
    env: sandboxEnv(root),
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let output = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    const text = decoder.decode(chunk, { stream: true });
    output += text;
    await Deno.stdout.write(chunk);
  }
  const status = await child.status;
  try {
    Deno.removeSync(root, { recursive: true });
  } catch (err) {
    console.log(`asm test: could not remove ${root}: ${errorText(err)}`);
  }
  const summary = parseSummary(output);
  const passed = summary?.passed ?? 0;
  let failed = (summary?.failed ?? 0) + problems.length;
  if (!summary) {
    console.log(
      `asm test: deno test ended (code ${status.code}) without a summary; counting that as a failure`,
    );
    failed++;
  } else if (!status.success && summary.failed === 0) {
    // e.g. a test leaked an op and deno failed the run after its summary
    console.log(`asm test: deno test exited with code ${status.code}; counting that as a failure`);
    failed++;
  }
  if (passed === 0 && failed === 0) failed = 1;
  console.log(`${passed} passed, ${failed} failed, ${summary?.skipped ?? 0} skipped`);
  return failed === 0 ? 0 : 1;
}
