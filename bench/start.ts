/**
 * `./asm bench start`: how long a person waits from `asm serve` to the first answer of `/api/health`, for the one
 * downloaded file on its first run (an empty cache: it checks and unpacks its payload, then Deno compiles the
 * source into the cache's own folder), on later runs (the cache warm) and on the first run of a new boot (the
 * cache's tree checked whole and summed again before it is run), against the checkout's `./asm serve` measured in
 * the same run, interleaved round by round. The file is built first, copied alone into an empty
 * folder and run with a PATH that holds no deno, node or npm; every server gets fresh homes and stops on SIGTERM.
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDist } from "../lib/ship/build.ts";
import { barePath, copiedAlone } from "../verify/one_file.ts";
import { p50, ratio, round } from "./figures.ts";

const REPO = fileURLToPath(new URL("../", import.meta.url));

/** The figures `./asm bench start` prints. */
export interface StartFigures {
  /** rounds of each measure */
  runs: number;
  /** the file's first run (empty cache) until `/api/health` answers, p50 */
  first_run_ms: number;
  /** a later run (the cache as the first run left it), p50 */
  warm_ms: number;
  /** a later run on a new boot: the header checks the cache's tree whole and sums it again first, p50 */
  new_boot_ms: number;
  /** the baseline: the checkout's `./asm serve` (its Deno and caches in place), p50 */
  checkout_ms: number;
  first_run_vs_checkout: number;
  warm_vs_checkout: number;
  new_boot_vs_checkout: number;
  /** the downloaded file's size and what its first run unpacked (with Deno's compile cache) */
  file_mb: number;
  cache_mb: number;
}

/** Options of {@link benchStart}. */
export interface StartOptions {
  /** rounds of each measure (default 3) */
  runs?: number;
  /** progress lines (default: stderr) */
  say?: (line: string) => void;
}

function folderBytes(path: string): number {
  let bytes = 0;
  for (const entry of Deno.readDirSync(path)) {
    const at = join(path, entry.name);
    if (entry.isDirectory) bytes += folderBytes(at);
    else if (entry.isFile) bytes += Deno.statSync(at).size;
  }
  return bytes;
}

/**
 * Spawns `cmd serve --port 0` with `env` alone and times it from the spawn until `/api/health` answers 200 on the
 * URL it prints; then stops it (SIGTERM) and waits for it.
 */
async function timeToHealth(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command(cmd, {
    args,
    env,
    clearEnv: true,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  })
    .spawn();
  const stderr = new Response(child.stderr).text();
  try {
    const decoder = new TextDecoder();
    let seen = "";
    let url: string | null = null;
    for await (const chunk of child.stdout) {
      seen += decoder.decode(chunk, { stream: true });
      url = seen.match(/is serving on (http:\/\/127\.0\.0\.1:\d+)/)?.[1] ?? null;
      if (url !== null) break;
    }
    if (url === null) throw new Error(`${cmd} ${args.join(" ")} printed no URL: ${seen}${await stderr}`);
    for (;;) {
      try {
        const res = await fetch(`${url}/api/health`);
        await res.body?.cancel();
        if (res.status === 200) return performance.now() - started;
      } catch { /* not answering yet */ }
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
    await child.stdout.cancel().catch(() => {});
    await stderr;
  }
}

/** What a new boot's record says: no boot id ever looks like it. */
const ANOTHER_BOOT = "another boot\n";

/**
 * Makes the cache's next run the first of a new boot: the record of the boot it was last checked on (the header's
 * `.checked` in the version folder) names another one. Returns the records it changed.
 */
function forgetBoot(cache: string): string[] {
  const records: string[] = [];
  const base = join(cache, "asm");
  for (const entry of Deno.readDirSync(base)) {
    if (entry.isDirectory && !entry.name.startsWith(".")) {
      records.push(join(base, entry.name, ".checked"));
      Deno.writeTextFileSync(records.at(-1)!, ANOTHER_BOOT);
    }
  }
  return records;
}

/** Runs the bench: builds the file, then `runs` rounds of first run, warm run, new boot and checkout. */
export async function benchStart(options: StartOptions = {}): Promise<StartFigures> {
  const runs = options.runs ?? 3;
  const say = options.say ?? ((line: string) => console.error(line));
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-bench-start-" }));
  try {
    say("bench start: building the one file ...");
    const built = await buildDist({ out: join(root, "build", "asm"), say: () => {} });
    const file = copiedAlone(built.path, root);
    const alone = dirname(file);
    const bare = barePath(root);
    // the checkout's own run: its Deno, its DENO_DIR, a PATH as the person's shell has it
    const checkoutEnv = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    };
    const first: number[] = [];
    const warm: number[] = [];
    const newBoot: number[] = [];
    const checkout: number[] = [];
    let cacheBytes = 0;
    for (let round = 0; round < runs; round++) {
      const home = (name: string) => {
        const path = join(root, `r${round}-${name}`);
        Deno.mkdirSync(path);
        return path;
      };
      const cache = home("cache");
      const fileEnv = (h: string) => ({ HOME: h, PATH: bare, XDG_CACHE_HOME: cache });
      first.push(await timeToHealth(file, ["serve", "--port", "0"], fileEnv(home("first")), alone));
      if (round === 0) cacheBytes = folderBytes(cache);
      warm.push(await timeToHealth(file, ["serve", "--port", "0"], fileEnv(home("warm")), alone));
      const records = forgetBoot(cache);
      newBoot.push(await timeToHealth(file, ["serve", "--port", "0"], fileEnv(home("boot")), alone));
      // the figure is the check's only when the header did check (and rewrote the record with this boot)
      if (records.length !== 1 || Deno.readTextFileSync(records[0]) === ANOTHER_BOOT) {
        throw new Error(
          `the new-boot run did not check the cache (records: ${records.join(", ") || "none"})`,
        );
      }
      checkout.push(
        await timeToHealth(join(REPO, "asm"), ["serve", "--port", "0"], {
          ...checkoutEnv,
          HOME: home("checkout"),
        }, REPO),
      );
      say(
        `bench start: round ${round + 1}/${runs}: first run ${Math.round(first[round])} ms, warm ${
          Math.round(warm[round])
        } ms, new boot ${Math.round(newBoot[round])} ms, checkout ${Math.round(checkout[round])} ms`,
      );
      await Deno.remove(cache, { recursive: true });
    }
    return {
      runs,
      first_run_ms: round(p50(first), 0),
      warm_ms: round(p50(warm), 0),
      new_boot_ms: round(p50(newBoot), 0),
      checkout_ms: round(p50(checkout), 0),
      first_run_vs_checkout: ratio(p50(first), p50(checkout)),
      warm_vs_checkout: ratio(p50(warm), p50(checkout)),
      new_boot_vs_checkout: ratio(p50(newBoot), p50(checkout)),
      file_mb: round(built.bytes / 1e6, 1),
      cache_mb: round(cacheBytes / 1e6, 1),
    };
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}
