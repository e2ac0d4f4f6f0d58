/**
 * Test helpers for lib/reconcile: a board world (the memory outliner, a ledger, two stand-in agents whose
 * "sessions" are `sleep` processes, a fake terminal host that opens nothing) and a trace that records, in order,
 * every outliner call, every change to the links and to the sessions' statuses, every window opened and every
 * signal sent: the write orders are asserted on it.
 * @module
 */
import { join } from "node:path";
import { loadAgents } from "../agents/mod.ts";
import {
  type Card,
  type ListRole,
  type MemoryOutliner,
  memoryOutliner,
  type Outliner,
} from "../board/mod.ts";
import { asmIdOf, boardLinks, Ledger } from "../ledger/mod.ts";
import { hookEvent } from "../ledger/_test_utils.ts";
import type { ActionDeps, TerminalHost } from "../launch/mod.ts";
import { bootId, identityOf } from "../procs/mod.ts";
import type { LogLine } from "../lang/mod.ts";
import { type CardClaim, type ClaimKind, Claims } from "./claims.ts";
import { BoardLock, BoardMemo } from "./deps.ts";
import type { ButtonDeps } from "./buttons.ts";

/**
 * Two stand-in agents for `$ASM_HOME/agents.toml`, `typist` and `scribe` (each its own tag): their command
 * `typist` must be on PATH, and their sessions' processes are `sleep`, so END proves and stops them like any
 * agent's.
 */
export const STAND_IN_AGENTS_TOML = ["typist", "scribe"].map((name) => `
[${name}]
display = "${name[0].toUpperCase()}${name.slice(1)}"
tag = "${name}"
adapter = "claude"
tested = false
exe = ["**/bin/sleep"]
script = []
shared = false
session_env = ""
pid_env = ""
entrypoint_env = ""
inject = "none"
keep_copies = false
command = "typist"
one_shot = ["{prompt}"]
launch_argv = []
resume_argv = ["--resume", "{session_id}"]
model_argv = ["--model={model}"]
prompt_argv = ["--", "{prompt}"]
[${name}.events]
SessionStart = "SessionStart"
`).join("");

/** A card for the memory outliner. */
export function card(id: string | null, name: string, children: string[] = []): Card {
  return { id, name, children };
}

/** The board world of a test. */
export interface BoardWorld extends AsyncDisposable {
  root: string;
  asmHome: string;
  /** The project folder (`webapp`): a card tagged #webapp starts here. */
  folder: string;
  ledger: Ledger;
  outliner: MemoryOutliner;
  /** Everything that happened, in order: outliner calls, then changes to links, statuses and claims as seen. */
  trace: string[];
  /** Traces what changed since the last event (call it at the end of what a test drives). */
  settle(): void;
  logs: LogLine[];
  deps: ButtonDeps;
  /** A live session of `agent` on a fresh `sleep` process (killed at the end), named `name`; its asm id. */
  session(agent: string, name: string | null): string;
  /** The session ends by itself (its SessionEnd hook). */
  ended(asmId: string): void;
  /** The session a launch's window would start: its SessionStart hook carrying the launch's token. */
  registered(token: string, agent: string, name: string | null): string;
}

/** Options of {@link boardWorld}. */
export interface BoardWorldOptions {
  /** A window that cannot be opened (the launch fails). */
  hostFails?: boolean;
  /** Another outliner than the memory one (its calls are not traced). */
  outliner?: Outliner;
}

/** A scratch home for the stand-in agents: a data folder with their agents.toml, `typist` on PATH, a #webapp folder. */
export function standInHome(prefix: string): {
  root: string;
  asmHome: string;
  folder: string;
  env: { PATH: string; HOME: string; ASM_HOME: string };
} {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix }));
  const asmHome = join(root, "asm");
  const bin = join(root, "bin");
  const folder = join(root, "webapp");
  for (const d of [asmHome, bin, folder, join(root, "home")]) Deno.mkdirSync(d, { recursive: true });
  Deno.writeTextFileSync(join(asmHome, "agents.toml"), STAND_IN_AGENTS_TOML);
  Deno.writeTextFileSync(join(bin, "typist"), "#!/bin/sh\nexec sleep 60\n");
  Deno.chmodSync(join(bin, "typist"), 0o755);
  return {
    root,
    asmHome,
    folder,
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: join(root, "home"), ASM_HOME: asmHome },
  };
}

/** A world holding `lists` on the memory outliner. */
export function boardWorld(
  lists: Partial<Record<ListRole, Card[]>> = {},
  options: BoardWorldOptions = {},
): BoardWorld {
  const { root, asmHome, folder, env } = standInHome("asm-board-test-");
  const ledger = Ledger.open(join(asmHome, "ledger.sqlite"));
  const trace: string[] = [];
  const logs: LogLine[] = [];
  const processes: Deno.ChildProcess[] = [];

  // the links, statuses and claims as they were at the last traced event: a change since is traced before the
  // next one
  let links = "";
  let statuses = "";
  let claimed = "";
  // a claim taken or let go is traced at that moment (an END's claim and its `killed` land between two events)
  class TracedClaims extends Claims {
    override claim(cardId: string, kind: ClaimKind): CardClaim {
      look();
      const held = super.claim(cardId, kind);
      look();
      const after = <A extends unknown[]>(fn: (...a: A) => void) => (...a: A) => (fn(...a), look());
      return {
        ...held,
        release: after(held.release),
        holdUntilGone: after(held.holdUntilGone),
        holdUntilLive: after(held.holdUntilLive),
      };
    }
  }
  const claims = new TracedClaims();
  const claimWords = () => {
    const view = claims.view();
    return [...view.claimed].sort().map((c) => view.ending.has(c) ? `${c} (END)` : c).join(", ");
  };
  const linkWords = () =>
    boardLinks(ledger).map((l) =>
      `${l.cardId}->${l.asmId ?? "(launch)"} ${l.origin}${l.dropped ? " dropped" : ""}${
        l.completed ? " completed" : ""
      }`
    ).sort().join("; ");
  const statusWords = () =>
    ledger.listSessions({ all: true }).map((s) => `${s.asm_id.slice(0, 8)} ${s.status}`).sort().join("; ");
  const look = () => {
    const nowLinks = linkWords();
    if (nowLinks !== links) trace.push(`links: ${nowLinks || "(none)"}`);
    links = nowLinks;
    const nowStatuses = statusWords();
    if (nowStatuses !== statuses && statuses !== "") trace.push(`sessions: ${nowStatuses}`);
    statuses = nowStatuses;
    const nowClaimed = claimWords();
    if (nowClaimed !== claimed) trace.push(`claims: ${nowClaimed || "(none)"}`);
    claimed = nowClaimed;
  };

  const inner = memoryOutliner(lists);
  const outliner: MemoryOutliner = Object.assign(Object.create(inner) as MemoryOutliner, {
    read: (o?: { fresh?: boolean }) => (look(), trace.push(`read${o?.fresh ? " fresh" : ""}`), inner.read(o)),
    create: (list: ListRole, c: { name: string; children: string[] }, p: "top" | "bottom", s: string) => (
      look(), trace.push(`create ${list} "${c.name}"`), inner.create(list, c, p, s)
    ),
    rename: (
      id: string,
      name: string,
      s: string,
    ) => (look(), trace.push(`rename ${id} "${name}"`), inner.rename(id, name, s)),
    move: (id: string, list: ListRole, p: "top" | "bottom", s: string) => (
      look(), trace.push(`move ${id} ${list}`), inner.move(id, list, p, s)
    ),
    identify: (s: string) => (look(), trace.push("identify"), inner.identify(s)),
  });

  let windows = 0;
  const host: TerminalHost = {
    name: "fake",
    open: () => {
      look();
      trace.push("launch");
      if (options.hostFails) return Promise.reject(new Error("no window"));
      windows++;
      return Promise.resolve({ windowId: `@${windows}`, paneId: `%${windows}`, panePid: Deno.pid });
    },
    panes: () => Promise.resolve([]),
    windowCount: () => Promise.resolve(0),
    type: () => Promise.resolve(),
    focus: () => Promise.resolve(),
    attach: () => Promise.reject(new Error("the fake host has no view")),
    attachCommand: () => "",
  };
  const actions: ActionDeps = {
    ledger,
    asmHome,
    env,
    host,
    agents: loadAgents({ asmHome, env }),
    endWaitMs: 3000,
    kill: (pid, signal) => {
      look();
      trace.push(`signal ${signal}`);
      Deno.kill(pid, signal);
    },
  };
  const log = (line: LogLine) => logs.push(line);
  const deps: ButtonDeps = {
    outliner: options.outliner ?? outliner,
    ledger,
    claims,
    agents: actions.agents.map((a) => ({ name: a.name, tag: a.tag })),
    lock: new BoardLock(),
    memo: new BoardMemo(),
    log,
    actions,
    folderOf: (tag) => tag === "webapp" ? folder : null,
    wake: () => (look(), trace.push("wake")),
  };
  let n = 0;
  // each session's process, for its own SessionEnd
  const carriers = new Map<string, { agent_pid: number; agent_proc_start: number; boot_id: string | null }>();
  const sessionOn = (agent: string, name: string | null, token: string | null): string => {
    const child = new Deno.Command("sleep", { args: ["60"], stdout: "null", stderr: "null" }).spawn();
    processes.push(child);
    const sid = `session-${++n}`;
    const carrier = {
      agent_pid: child.pid,
      agent_proc_start: identityOf(child.pid)!.procStart,
      boot_id: bootId(),
    };
    ledger.applyEvent(hookEvent({
      agent,
      agent_session_id: sid,
      cwd: folder,
      ...carrier,
      session_name: name,
      launch_token: token,
      ts: new Date().toISOString(),
    }));
    statuses = statusWords();
    carriers.set(asmIdOf(agent, sid), carrier);
    return asmIdOf(agent, sid);
  };
  return {
    root,
    asmHome,
    folder,
    ledger,
    outliner,
    trace,
    logs,
    deps,
    settle: look,
    session: (agent, name) => sessionOn(agent, name, null),
    registered: (token, agent, name) => sessionOn(agent, name, token),
    ended(asmId) {
      const row = ledger.session(asmId)!;
      ledger.applyEvent(hookEvent({
        agent: row.agent,
        agent_session_id: row.agent_session_id,
        event: "SessionEnd",
        source: "other",
        cwd: folder,
        ...carriers.get(asmId),
        ts: new Date().toISOString(),
      }));
      statuses = statusWords();
    },
    async [Symbol.asyncDispose]() {
      for (const p of processes) {
        try {
          p.kill("SIGKILL");
        } catch { /* gone already */ }
        await p.status;
      }
      ledger.close();
      Deno.removeSync(root, { recursive: true });
    },
  };
}

/** Rejects with a refusal matching `why` (and of `kind`, when given). */
export async function refusedWith(promise: Promise<unknown>, why: RegExp, kind?: string): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    if (!(err instanceof Error) || !why.test(err.message)) throw err;
    if (kind !== undefined && (err as { kind?: string }).kind !== kind) {
      throw new Error(`refused as ${(err as { kind?: string }).kind}, not ${kind}: ${err.message}`);
    }
    return err;
  }
  throw new Error(`not refused (wanted ${why})`);
}
