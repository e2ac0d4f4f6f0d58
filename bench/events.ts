/**
 * Hook events as a bench writes them straight into a ledger (the ledger's own `applyEvent`): every field the hook
 * writes, with a bench's defaults.
 * @module
 */
import { asmIdOf, type HookEvent } from "../lib/ledger/mod.ts";

/** One hook event of `agent`'s session `sid`; `extra` replaces any field. */
export function benchEvent(
  agent: string,
  sid: string,
  kind: string,
  ts: string,
  extra: Partial<HookEvent> = {},
): HookEvent {
  return {
    v: 1,
    event_id: crypto.randomUUID(),
    asm_id: asmIdOf(agent, sid),
    agent,
    event: kind,
    raw_event: kind,
    ts,
    agent_session_id: sid,
    transcript_path: null,
    cwd: `/home/user/projects/project-${sid.length % 57}`,
    source: kind === "SessionEnd" ? "other" : "startup",
    launch_token: null,
    session_name: null,
    agent_pid: null,
    agent_proc_start: null,
    boot_id: null,
    ancestors: [],
    nested: false,
    entrypoint: "cli",
    pid_shared: false,
    rules_skipped: null,
    hook_ms: 1,
    payload: {},
    ...extra,
  };
}
