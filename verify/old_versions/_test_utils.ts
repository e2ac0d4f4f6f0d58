/**
 * What the old versions' import tests share: a version's fixture tree laid out in a test's home, and a session's
 * turns per day as the ledger keeps them.
 * @module
 */
import { dirname, join } from "node:path";
import { asmIdOf, type Ledger } from "../../lib/ledger/mod.ts";
import { sessionDetail } from "../../lib/history/mod.ts";
import { NODE_FILES } from "../../lib/files/mod.ts";
import { OLD_FIXTURES } from "./mod.ts";
import { filesOf } from "./files.ts";

export { filesOf };

/** The fixture tree of one agent version (`verify/fixtures/old/<agent>/<version>/home`). */
export function versionHome(agent: string, version: string): string {
  return join(OLD_FIXTURES, agent, version, "home");
}

/** Lays a version's files out in a world's home, where the old agent left them; returns how many. */
export function placeVersion(
  w: { place(source: string, relToHome: string): string },
  agent: string,
  version: string,
): number {
  const home = versionHome(agent, version);
  const files = filesOf(home);
  for (const rel of files) w.place(join(home, rel), rel);
  return files.length;
}

/**
 * The project folder an old version ran in, put back on disk as a repository (a `.git` in it) for as long as the
 * test runs: the import counts a folder as a project only when it finds the marker there, and the fixtures name
 * the fixed folder the generator used (`/tmp/asm-old/<agent>-<version>/project`), which a fresh machine has not.
 * Only what this call made is removed at the end.
 */
export function projectOnDisk(folder: string): Disposable {
  const marker = join(folder, ".git");
  const made: string[] = [];
  for (let at = marker;; at = dirname(at)) {
    try {
      Deno.statSync(at);
      break;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      made.unshift(at);
    }
  }
  for (const path of made) Deno.mkdirSync(path);
  return {
    [Symbol.dispose]() {
      for (const path of made.toReversed()) Deno.removeSync(path);
    },
  };
}

/** What a session's page shows: each record as "kind: text", its prompts' texts, and the page's note. */
export async function pageOf(
  w: { ledger: Ledger; asmHome: string; env: Record<string, string> },
  agent: string,
  sessionId: string,
): Promise<{ said: string[]; prompts: string[]; note: string | null }> {
  const detail = await sessionDetail(
    { ledger: w.ledger, asmHome: w.asmHome, env: w.env, files: NODE_FILES },
    asmIdOf(agent, sessionId),
  );
  if (!detail) throw new Error(`no page for ${agent} ${sessionId}`);
  const records = detail.entries.flatMap((e) => e.records);
  const text = (r: (typeof records)[number]) => "text" in r ? r.text : "";
  return {
    said: records.map((r) => `${r.kind}: ${text(r)}`),
    prompts: records.filter((r) => r.kind === "prompt").map(text),
    note: detail.note,
  };
}

/** A session's typed turns per UTC day, from the ledger. */
export function daysOf(ledger: Ledger, asmId: string): Record<string, number> {
  return Object.fromEntries(
    ledger.query("SELECT day, day_turns FROM session_days WHERE asm_id = ? ORDER BY day", asmId)
      .map((d) => [String(d.day), Number(d.day_turns)]),
  );
}
