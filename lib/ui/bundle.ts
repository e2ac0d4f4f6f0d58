/**
 * The island bundle: `islands/client.tsx` bundled for the browser with `deno bundle --platform=browser`, built
 * once per server process (about a second) and served from memory. The URL carries a hash of the bundle, so a
 * browser never runs yesterday's code after a restart.
 * @module
 */
import { createHash } from "node:crypto";
import { repoRoot } from "../config/mod.ts";

/** A built bundle. */
export interface IslandBundle {
  js: string;
  /** `/static/islands.<hash>.js` */
  url: string;
}

let building: Promise<IslandBundle> | null = null;

/** Builds the bundle (once per process; later calls share the first build). */
export function islandBundle(): Promise<IslandBundle> {
  building ??= build().catch((err) => {
    building = null;
    throw err;
  });
  return building;
}

async function build(): Promise<IslandBundle> {
  const root = repoRoot();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--platform=browser", "--minify", "--quiet", `${root}/islands/client.tsx`],
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
  const js = new TextDecoder().decode(out.stdout);
  const hash = createHash("sha256").update(js).digest("hex").slice(0, 12);
  return { js, url: `/static/islands.${hash}.js` };
}
