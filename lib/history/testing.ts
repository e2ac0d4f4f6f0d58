/**
 * Test helpers for the import: the shared fixtures (real files the agents wrote), temporary agent homes laid out
 * the way each agent keeps its transcripts, a temporary ledger, a ledger digest, and a reader that fails on
 * purpose (permissions, a file that vanishes or shrinks mid-read). Never the real homes.
 * @module
 */
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { repoRoot } from "../config/paths.ts";
import type { TranscriptIo } from "../agents/transcript_types.ts";
import { loadAgents } from "../agents/registry.ts";
import type { AgentConfig } from "../agents/protocol.ts";
import { Ledger } from "../ledger/mod.ts";
import { importOnce, type ImportOptions, type ImportReport } from "./import.ts";

/** The shared fixtures (../shared/fixtures beside the repository). */
export const FIXTURES = join(repoRoot(), "..", "shared", "fixtures");

/** A fixture file's path. */
export function fixture(rel: string): string {
  return join(FIXTURES, rel);
}

/** A temporary world: agent homes, asm's data folder, a ledger; removed on dispose. */
export interface ImportWorld {
  root: string;
  home: string;
  asmHome: string;
  env: Record<string, string>;
  ledger: Ledger;
  /** lines the import logged */
  logged: Record<string, unknown>[];
  agents: AgentConfig[];
  /** copies a fixture (or any file) to a path under `home` */
  place(source: string, relToHome: string): string;
  /** writes text to a path under `home` */
  write(relToHome: string, text: string | Uint8Array): string;
  /** runs one import on this world */
  run(extra?: Partial<ImportOptions>): Promise<ImportReport>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Makes a temporary world (`await using world = importWorld()`). */
export function importWorld(): ImportWorld {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-import-" }));
  const home = join(root, "home");
  const asmHome = join(root, "asm");
  Deno.mkdirSync(home);
  Deno.mkdirSync(asmHome);
  const env = {
    HOME: home,
    CODEX_HOME: join(home, ".codex"),
    GEMINI_CLI_HOME: home,
    ASM_HOME: asmHome,
  };
  const ledger = Ledger.open(join(asmHome, "ledger.sqlite"));
  const logged: Record<string, unknown>[] = [];
  const agents = loadAgents({ asmHome, env });
  const put = (rel: string, data: Uint8Array) => {
    const path = join(home, rel);
    Deno.mkdirSync(dirname(path), { recursive: true });
    Deno.writeFileSync(path, data);
    return path;
  };
  return {
    root,
    home,
    asmHome,
    env,
    ledger,
    logged,
    agents,
    place: (source, rel) => put(rel, Deno.readFileSync(source)),
    write: (rel, text) => put(rel, typeof text === "string" ? new TextEncoder().encode(text) : text),
    run: (extra = {}) =>
      importOnce({
        ledger,
        agents,
        env,
        asmHome,
        // the fixtures' folders are under /tmp; no harness roots, so the hidden rule shows the other reasons
        harnessRoots: [],
        log: (line) => logged.push(line),
        ...extra,
      }),
    async [Symbol.asyncDispose]() {
      ledger.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** A digest of everything the import writes: equal digests mean nothing was written. */
export function ledgerDigest(ledger: Ledger): string {
  const hash = createHash("sha256");
  for (const table of ["sessions", "session_days", "session_folders", "session_skills", "import_state"]) {
    hash.update(`${table}\n`);
    for (const row of ledger.query(`SELECT * FROM ${table} ORDER BY 1, 2`)) hash.update(JSON.stringify(row));
  }
  return hash.digest("hex");
}

/** Faults a test can inject into the reads. */
export interface Faults {
  /** opening these paths throws (permissions; tests run as root, so chmod 000 cannot do it) */
  unreadable?: Set<string>;
  /** reading these paths returns 0 from this byte on (the file shrank or vanished mid-read) */
  endsAt?: Map<string, number>;
  /** listing these folders throws */
  unlistable?: Set<string>;
}

/** A reader that behaves like `base` except for the faults. */
export function faultyIo(base: TranscriptIo, faults: Faults): TranscriptIo {
  return {
    readDir(path) {
      if (faults.unlistable?.has(path)) throw new Deno.errors.PermissionDenied(`permission denied: ${path}`);
      return base.readDir(path);
    },
    stat: (path) => base.stat(path),
    readText: (path, max) => base.readText(path, max),
    open(path) {
      if (faults.unreadable?.has(path)) throw new Deno.errors.PermissionDenied(`permission denied: ${path}`);
      const handle = base.open(path);
      const end = faults.endsAt?.get(path);
      if (end === undefined) return handle;
      return {
        read(into, position) {
          if (position >= end) return 0;
          return handle.read(into.subarray(0, Math.min(into.length, end - position)), position);
        },
        close: () => handle.close(),
      };
    },
  };
}

/** A running server (no background services) over a world's homes, with the fixtures placed by `setup`. */
export async function serverWorld(setup: (w: ImportWorld) => void): Promise<{
  world: ImportWorld;
  server: import("../server/app.ts").RunningServer;
  get(path: string): Promise<Record<string, unknown>>;
  post(path: string, token?: string): Promise<Response>;
  [Symbol.asyncDispose](): Promise<void>;
}> {
  const { startServer } = await import("../server/app.ts");
  const w = importWorld();
  setup(w);
  // the server opens its own connection to the same ledger file
  const server = await startServer({ asmHome: w.asmHome, port: 0, env: w.env, services: [] });
  return {
    world: w,
    server,
    get: async (path) => await (await fetch(`${server.url}${path}`)).json(),
    post: (path, token = server.token) =>
      fetch(`${server.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}` } }),
    async [Symbol.asyncDispose]() {
      await server.close();
      await w[Symbol.asyncDispose]();
    },
  };
}

/** Waits until the server's import is done; returns its status. */
export async function importDone(
  get: (path: string) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const status = await get("/api/import");
    if (!status.running) return status;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the import did not finish within 5 s");
}
