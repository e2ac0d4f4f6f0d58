/**
 * Test helpers of the import (private to tests: no module that ships imports this file): temporary agent homes
 * laid out the way each agent keeps its transcripts, a temporary ledger, a ledger digest, and a reader that fails
 * on purpose (permissions, a file that vanishes or shrinks mid-read). Never the real homes. A server over such a
 * world is `verify/server_world.ts`.
 * @module
 */
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import type { TranscriptIo } from "../derive/mod.ts";
import { type AgentConfig, loadAgents } from "../agents/mod.ts";
import { fixture } from "../agents/_test_utils.ts";
import { Ledger } from "../ledger/mod.ts";
import { importOnce, type ImportOptions, type ImportReport } from "./import.ts";
import { ImportRunner, type RunnerDeps } from "./runner.ts";

export { fixture };

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

/** A prompt the person typed, as a Claude transcript line (no newline); `cwd` only when given. */
export function claudePromptLine(o: { sessionId: string; text: string; ts: string; cwd?: string }): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    type: "user",
    message: { role: "user", content: o.text },
    promptSource: "typed",
    timestamp: o.ts,
    ...(o.cwd === undefined ? {} : { cwd: o.cwd }),
    sessionId: o.sessionId,
  });
}

/** Session ids of the shared fixtures, as {@link placeFixtures} lays them out. */
export const CLAUDE_PLAIN = "11111111-2222-4333-8444-555555555555";
export const CLAUDE_AGENT_PARENT = "357e623d-2687-473b-b7a1-aaf113475103";
export const CLAUDE_BEFORE_CLEAR = "9489399f-ac78-4316-81cd-2726c9579121";
export const CLAUDE_AFTER_CLEAR = "f826f6a9-ce37-4890-894d-d65e4845873a";
export const CODEX = {
  exec: "01a2295d-92ca-73a0-ac65-5a6372a1a905",
  execTool: "01a2295e-3e74-7b51-9630-f5ff1307a47f",
  execResumed: "01a2295e-6988-7d92-8f7d-1003fec4bca0",
  tui: "01a2295f-0ad6-7852-afe2-883c2e6eae7a",
  tuiKilled: "01a2295f-bf52-7960-be5b-3035993272f7",
  neverPrompted: "01a2295f-a367-78c3-a99f-aea70e6b0f45",
};
const ROLLOUTS: [string, string, string][] = [
  ["exec-plain-chat", CODEX.exec, "2026-11-29T22-12-08"],
  ["exec-tool-call", CODEX.execTool, "2026-11-29T22-12-51"],
  ["exec-tool-call-with-hooks-then-resumed-twice", CODEX.execResumed, "2026-11-29T22-13-02"],
  ["tui-chat-plus-tool-call", CODEX.tui, "2026-11-29T22-13-44"],
  ["tui-killed-by-sigterm-mid-turn", CODEX.tuiKilled, "2026-11-29T22-14-30"],
  ["tui-new-thread-never-prompted-materialized-at-daemon-stop", CODEX.neverPrompted, "2026-11-29T22-14-23"],
];

/** Lays the shared fixtures out the way each agent keeps them, in the world's temporary home. */
export function placeFixtures(w: ImportWorld): void {
  const claude = ".claude/projects";
  w.place(
    fixture(`claude/p-mode/transcripts/plain-then-resume-then-continue.${CLAUDE_PLAIN}.jsonl`),
    `${claude}/-tmp-cc-proj-3/${CLAUDE_PLAIN}.jsonl`,
  );
  w.place(
    fixture(`claude/p-mode/transcripts/${CLAUDE_AGENT_PARENT}.jsonl`),
    `${claude}/-tmp-cc-proj-3/${CLAUDE_AGENT_PARENT}.jsonl`,
  );
  w.place(
    fixture(`claude/p-mode/transcripts/${CLAUDE_AGENT_PARENT}/subagents/agent-ac5a87ca59462ada7.jsonl`),
    `${claude}/-tmp-cc-proj-3/${CLAUDE_AGENT_PARENT}/subagents/agent-ac5a87ca59462ada7.jsonl`,
  );
  w.place(
    fixture(
      `claude/interactive/transcripts/before-clear.chat-tool-skill-rename.${CLAUDE_BEFORE_CLEAR}.jsonl`,
    ),
    `${claude}/-tmp-cc-proj-5/${CLAUDE_BEFORE_CLEAR}.jsonl`,
  );
  w.place(
    fixture(`claude/interactive/transcripts/after-clear.${CLAUDE_AFTER_CLEAR}.jsonl`),
    `${claude}/-tmp-cc-proj-5/${CLAUDE_AFTER_CLEAR}.jsonl`,
  );
  w.place(fixture("claude/interactive/home-files/history.jsonl"), ".claude/history.jsonl");
  for (const [name, id, stamp] of ROLLOUTS) {
    w.place(
      fixture(`codex/rollouts/${name}.rollout.jsonl`),
      `.codex/sessions/2026/11/29/rollout-${stamp}-${id}.jsonl`,
    );
  }
  w.place(fixture("codex/state/home3-state_5.sqlite"), ".codex/state_5.sqlite");
  for (const f of ["session-2026-11-29T22-22-03265f03.jsonl", "session-2026-11-29T22-22-11111111.jsonl"]) {
    w.place(fixture(`gemini/headless/chats/${f}`), `.gemini/tmp/proj-a/chats/${f}`);
  }
  w.write(".gemini/tmp/proj-a/.project_root", "/tmp/gmfx/proj-a");
  for (const f of ["session-2026-11-29T22-22-c1da5980.jsonl", "session-2026-11-29T22-23-4966ac10.jsonl"]) {
    w.place(fixture(`gemini/interactive/chats/${f}`), `.gemini/tmp/proj-b/chats/${f}`);
  }
  w.write(".gemini/tmp/proj-b/.project_root", "/tmp/gmfx/proj-b");
  w.place(fixture("gemini/interactive/logs.json"), ".gemini/tmp/proj-b/logs.json");
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

/** The world's import runner, as a server makes one (its lines into `logged`); `deps` replace any of its parts. */
export function runnerOf(w: ImportWorld, deps: Partial<RunnerDeps> = {}): ImportRunner {
  return new ImportRunner({
    ledger: w.ledger,
    asmHome: w.asmHome,
    env: w.env,
    log: (l) => w.logged.push(l),
    harnessRoots: [],
    agents: () => w.agents,
    ...deps,
  });
}
