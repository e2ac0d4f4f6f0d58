/**
 * The island bundle: `islands/client.tsx` bundled for the browser with `deno bundle --platform=browser`, built
 * once per server process (about a second) and served from memory. The URL carries a hash of the bundle, so a
 * browser never runs yesterday's code after a restart. The one downloaded file (`lib/ship/build.ts`) carries both
 * scripts built already, under {@link PREBUILT_DIR}: its first run needs no bundler (Deno would download one).
 * @module
 */
import { createHash } from "node:crypto";
import { repoRoot } from "../config/mod.ts";

/** Where the one downloaded file keeps the scripts built when it was made (relative to the source root). */
export const PREBUILT_DIR = ".prebuilt";

/** The file name of a prebuilt script. */
export function prebuiltName(name: string): string {
  return `${name}.js`;
}

/** A built bundle. */
export interface IslandBundle {
  js: string;
  /** `/static/islands.<hash>.js` */
  url: string;
}

const building = new Map<string, Promise<IslandBundle>>();

/** Builds the bundle (once per process; later calls share the first build). */
export function islandBundle(): Promise<IslandBundle> {
  return bundleOf("islands/client.tsx", "islands");
}

/**
 * The terminal view's script (xterm.js and islands/terminal_client.ts), apart from the islands: only the pages
 * that show a window load it.
 */
export function terminalBundle(): Promise<IslandBundle> {
  return bundleOf("islands/terminal_client.ts", "terminal");
}

/** xterm.js's own style, which the terminal view's pages carry. */
export function terminalStyle(): string {
  return Deno.readTextFileSync(`${repoRoot()}/node_modules/@xterm/xterm/css/xterm.css`);
}

function bundleOf(entry: string, name: string): Promise<IslandBundle> {
  let built = building.get(entry);
  if (!built) {
    built = build(entry, name).catch((err) => {
      building.delete(entry);
      throw err;
    });
    building.set(entry, built);
  }
  return built;
}

async function build(entry: string, name: string): Promise<IslandBundle> {
  const root = repoRoot();
  const prebuilt = await Deno.readTextFile(`${root}/${PREBUILT_DIR}/${prebuiltName(name)}`).catch((err) => {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  });
  if (prebuilt !== null) return bundled(prebuilt, name);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--platform=browser", "--minify", "--quiet", `${root}/${entry}`],
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `building the page's script failed: ${new TextDecoder().decode(out.stderr).slice(-2000)}`,
    );
  }
  return bundled(new TextDecoder().decode(out.stdout), name);
}

function bundled(js: string, name: string): IslandBundle {
  const hash = createHash("sha256").update(js).digest("hex").slice(0, 12);
  return { js, url: `/static/${name}.${hash}.js` };
}
