/**
 * Test helpers: hook events as the hook writes them, with sensible defaults; plain SQL written through a ledger's
 * own connection (for a state no event or import makes on its own).
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import type { HookEvent } from "./event.ts";
import { asmIdOf } from "./identity.ts";
import { DB, type Ledger } from "./ledger.ts";

/**
 * Runs one write statement through the ledger's own connection, in its own transaction (so the ledger counts it
 * as a write: a server's cached list is built again). Tests only: code elsewhere writes through lib/ledger.
 */
export function writeSql(ledger: Ledger, sql: string, ...params: SQLInputValue[]): number {
  return ledger[DB].write((db) => Number(db.prepare(sql).run(...params).changes));
}

let counter = 0;

/** A valid hook event; `overrides` replace any field (asm_id follows agent + agent_session_id). */
export function hookEvent(overrides: Partial<HookEvent> = {}): HookEvent {
  counter++;
  const agent = overrides.agent ?? "claude";
  const sid = overrides.agent_session_id ?? "11111111-2222-4333-8444-555555555555";
  return {
    v: 1,
    event_id: `00000000-0000-4000-8000-${String(counter).padStart(12, "0")}`,
    agent,
    agent_session_id: sid,
    asm_id: asmIdOf(agent, sid),
    event: "SessionStart",
    raw_event: null,
    ts: "2026-11-29T22:00:00.000Z",
    transcript_path: null,
    cwd: "/home/user/project",
    source: "startup",
    launch_token: null,
    session_name: null,
    agent_pid: 4242,
    agent_proc_start: 51082,
    boot_id: "boot-1",
    ancestors: [],
    nested: false,
    entrypoint: "cli",
    pid_shared: false,
    rules_skipped: null,
    hook_ms: 12,
    payload: {},
    ...overrides,
  };
}
