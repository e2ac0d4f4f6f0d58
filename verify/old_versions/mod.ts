/**
 * Regenerates the fixtures of older agent versions: installs each pinned older version into a scratch prefix,
 * drives it in its headless mode against the loopback fakes (verify/fakes), and copies the files it wrote into
 * `verify/fixtures/old/<agent>/<version>/home/` (paths relative to the scratch HOME, so a test copies the tree
 * into its own temporary home and imports it). Needs the npm registry; CI never runs this, it reads the
 * committed fixtures.
 *
 * ```sh
 * deno run -A verify/old_versions/mod.ts            # every agent, every pinned version
 * deno run -A verify/old_versions/mod.ts gemini     # one agent
 * ```
 *
 * Each agent's plan lives in its own file (claude.ts, codex.ts, gemini.ts) and exports an {@link OldVersions}.
 * @module
 */

import { join } from "node:path";

/** One older version to install and drive. */
export interface OldVersion {
  /** The npm version, exact. */
  version: string;
  /** Why this version: the format change it stands before. */
  why: string;
}

/** What a plan's `generate` is given. */
export interface GenerateOptions {
  /** The version being generated. */
  version: OldVersion;
  /** A scratch npm prefix with the version installed (`<prefix>/node_modules/.bin/<binary>`). */
  prefix: string;
  /**
   * An empty scratch HOME at a fixed neutral path (`/tmp/asm-old/<agent>-<version>/home`: the agents write it
   * into their files, so a regenerated fixture names the same paths); the agent's files are copied from here.
   */
  home: string;
  /** An empty working folder beside `home`, to run the agent in. */
  project: string;
  /** Where the fixture tree goes: `<out>/home/...` mirrors `home`. Emptied before. */
  out: string;
  /**
   * Installs another version of the same package into the scratch folder and returns its prefix (a session
   * begun in one version and resumed in the next, as a person who upgraded mid-session has).
   */
  install(version: string): Promise<string>;
}

/** One agent's older versions and how to drive them. */
export interface OldVersions {
  /** The adapter name (claude, codex, gemini). */
  agent: string;
  /** The npm package. */
  pkg: string;
  /** The versions, oldest first. */
  versions: OldVersion[];
  /** Drives the installed version in `home` and writes the fixture tree under `out`. */
  generate(options: GenerateOptions): Promise<void>;
}

/** Where the committed fixtures of older versions live. */
export const OLD_FIXTURES = new URL("../fixtures/old/", import.meta.url).pathname;

/** Where each version is driven: fixed, so the paths it writes into its files are the same on every run. */
const WORLDS = "/tmp/asm-old";

/** Installs `pkg@version` into a fresh prefix (no scripts other than the package's own) and returns it. */
export async function installVersion(pkg: string, version: string, scratch: string): Promise<string> {
  const prefix = join(scratch, `prefix-${version}`);
  await Deno.mkdir(prefix, { recursive: true });
  const out = await new Deno.Command("npm", {
    args: ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", `${pkg}@${version}`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `npm install ${pkg}@${version} failed: ${new TextDecoder().decode(out.stderr).slice(-2000)}`,
    );
  }
  return prefix;
}

async function plans(): Promise<OldVersions[]> {
  const found: OldVersions[] = [];
  for (const name of ["claude", "codex", "gemini"]) {
    try {
      const mod = await import(`./${name}.ts`) as { PLAN: OldVersions };
      found.push(mod.PLAN);
    } catch (err) {
      if (!(err instanceof Error && /Module not found/.test(err.message))) throw err;
    }
  }
  return found;
}

async function main(args: string[]): Promise<void> {
  const wanted = new Set(args);
  const scratch = await Deno.makeTempDir({ prefix: "asm-old-versions-" });
  try {
    for (const plan of await plans()) {
      if (wanted.size > 0 && !wanted.has(plan.agent)) continue;
      for (const version of plan.versions) {
        console.log(`${plan.agent} ${version.version}: installing`);
        const prefix = await installVersion(plan.pkg, version.version, scratch);
        const world = join(WORLDS, `${plan.agent}-${version.version}`);
        await Deno.remove(world, { recursive: true }).catch(() => {});
        const home = join(world, "home");
        const project = join(world, "project");
        await Deno.mkdir(home, { recursive: true });
        await Deno.mkdir(project, { recursive: true });
        const out = join(OLD_FIXTURES, plan.agent, version.version);
        await Deno.remove(out, { recursive: true }).catch(() => {});
        await Deno.mkdir(join(out, "home"), { recursive: true });
        console.log(`${plan.agent} ${version.version}: driving (${version.why})`);
        const install = (other: string) => installVersion(plan.pkg, other, scratch);
        await plan.generate({ version, prefix, home, project, out, install });
        console.log(`${plan.agent} ${version.version}: written to ${out}`);
      }
    }
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main(Deno.args);
