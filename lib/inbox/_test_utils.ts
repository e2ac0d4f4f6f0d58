/**
 * Test helpers for the drain: a scratch home with a ledger, event files, the special entries an inbox can hold (a
 * FIFO, a name that is not UTF-8), which Deno cannot make itself, and a folder no file can be moved into.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Ledger } from "../ledger/mod.ts";
import type { LogLine } from "../lang/mod.ts";
import { type DrainDeps, newDrainState } from "./drain.ts";

/** A scratch `$ASM_HOME` with an inbox and a ledger, and deps that collect the log lines. */
export function drainHome() {
  const home = Deno.makeTempDirSync({ prefix: "asm-drain-" });
  Deno.mkdirSync(join(home, "inbox"));
  const ledger = Ledger.open(join(home, "ledger.sqlite"));
  const lines: LogLine[] = [];
  const state = newDrainState();
  const deps: DrainDeps = {
    asmHome: home,
    ledger,
    log: (l) => lines.push(l),
    failures: new Map(),
    state,
  };
  return {
    home,
    inbox: join(home, "inbox"),
    ledger,
    lines,
    state,
    deps,
    cleanup: () => (ledger.close(), Deno.removeSync(home, { recursive: true })),
  };
}

/** Writes an event (or any text) into the inbox under `name`. */
export function putEvent(home: string, name: string, body: unknown): void {
  Deno.writeTextFileSync(join(home, "inbox", name), typeof body === "string" ? body : JSON.stringify(body));
}

/** Makes a FIFO at `path` (coreutils' mkfifo: Deno has no call for it). */
export function makeFifo(path: string): void {
  const out = new Deno.Command("mkfifo", { args: [path] }).outputSync();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

/**
 * Makes a file in `folder` whose name is `bad<0xff>.json`, not UTF-8 (Deno's paths are strings, so a shell
 * writes it). Returns the name as Deno lists it (U+FFFD for the bad byte).
 */
export function makeNonUtf8Name(folder: string): string {
  const out = new Deno.Command("sh", {
    args: ["-c", 'printf "{}" > "$1/$(printf "bad\\377.json")"', "sh", folder],
  }).outputSync();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return "bad\uFFFD.json";
}

/** The names in a folder (none when it does not exist), sorted. */
export function namesIn(folder: string): string[] {
  try {
    return [...Deno.readDirSync(folder)].map((e) => e.name).sort();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

/**
 * Makes `folder` a place nothing can be moved into, for this process: root ignores modes, so for root it is made
 * immutable (`chattr +i`, which binds root too); anyone else gets mode 0500. Returns the undo (safe to call twice).
 */
export function makeUnwritable(folder: string): () => void {
  if (Deno.uid() !== 0) {
    Deno.chmodSync(folder, 0o500);
    return () => Deno.chmodSync(folder, 0o700);
  }
  const set = new Deno.Command("chattr", { args: ["+i", folder] }).outputSync();
  assert.equal(
    set.code,
    0,
    `chattr +i failed (this test needs it as root): ${new TextDecoder().decode(set.stderr)}`,
  );
  return () => {
    new Deno.Command("chattr", { args: ["-i", folder] }).outputSync();
  };
}
