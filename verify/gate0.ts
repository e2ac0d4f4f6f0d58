/**
 * Gate 0 (the ledger), offline against a temporary database, through the real path: event files in the inbox,
 * the drain, the ledger, and the process table for the crash.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { drainOnce } from "../lib/inbox/mod.ts";
import { asmIdOf, type HookEvent, isoAt, Ledger } from "../lib/ledger/mod.ts";
import { reapGoneRuns } from "../lib/liveness/mod.ts";
import { identityOf } from "../lib/procs/mod.ts";
import type { Check } from "./gate.ts";

interface Scratch {
  home: string;
  ledger: Ledger;
  put(event: Partial<HookEvent> & { event: string; agent_session_id: string; ts: string }): HookEvent;
  drain(): void;
  done(): void;
}

function scratch(): Scratch {
  const home = Deno.makeTempDirSync({ prefix: "asm-gate0-" });
  Deno.mkdirSync(join(home, "inbox"));
  const ledger = Ledger.open(join(home, "ledger.sqlite"), { harnessRoots: [join(home, "harness")] });
  const failures = new Map<string, number>();
  return {
    home,
    ledger,
    put(partial) {
      const agent = partial.agent ?? "claude";
      const event: HookEvent = {
        v: 1,
        event_id: crypto.randomUUID(),
        asm_id: asmIdOf(agent, partial.agent_session_id),
        agent,
        raw_event: partial.event,
        transcript_path: null,
        cwd: "/home/user/project",
        source: null,
        launch_token: null,
        session_name: null,
        agent_pid: 4242,
        agent_proc_start: 51082,
        boot_id: null,
        ancestors: [],
        nested: false,
        entrypoint: "cli",
        pid_shared: false,
        hook_ms: 10,
        payload: { session_id: partial.agent_session_id },
        ...partial,
      };
      Deno.writeTextFileSync(join(home, "inbox", `${event.event_id}.json.tmp`), JSON.stringify(event));
      Deno.renameSync(
        join(home, "inbox", `${event.event_id}.json.tmp`),
        join(home, "inbox", `${event.event_id}.json`),
      );
      return event;
    },
    drain() {
      drainOnce({ asmHome: home, ledger, log: () => {}, failures });
    },
    done() {
      ledger.close();
      Deno.removeSync(home, { recursive: true });
    },
  };
}

/** The checks of Gate 0. */
export function gate0Checks(): Check[] {
  return [
    {
      name: "one session resumed in a second process is one row with two runs",
      run() {
        const g = scratch();
        g.put({
          event: "SessionStart",
          agent_session_id: "s1",
          ts: "2026-11-29T22:00:00.000Z",
          source: "startup",
        });
        g.put({
          event: "SessionEnd",
          agent_session_id: "s1",
          ts: "2026-11-29T22:10:00.000Z",
          source: "other",
        });
        g.drain();
        const e = g.put({
          event: "SessionStart",
          agent_session_id: "s1",
          ts: "2026-11-29T23:00:00.000Z",
          source: "resume",
          agent_pid: 5151,
          agent_proc_start: 99999,
        });
        g.drain();
        assert.equal(g.ledger.counts().sessions, 1);
        assert.equal(g.ledger.runs(e.asm_id).length, 2);
        assert.equal(g.ledger.session(e.asm_id)?.status, "live");
        g.done();
      },
    },
    {
      name: "a cleared context makes a second row, linked to the first",
      run() {
        const g = scratch();
        const a = g.put({
          event: "SessionStart",
          agent_session_id: "before",
          ts: "2026-11-29T22:00:00.000Z",
        });
        g.put({ event: "UserPromptSubmit", agent_session_id: "before", ts: "2026-11-29T22:00:05.000Z" });
        g.put({
          event: "SessionEnd",
          agent_session_id: "before",
          ts: "2026-11-29T22:01:00.000Z",
          source: "clear",
        });
        const b = g.put({
          event: "SessionStart",
          agent_session_id: "after",
          ts: "2026-11-29T22:01:00.050Z",
          source: "clear",
        });
        g.drain();
        assert.equal(g.ledger.counts().sessions, 2);
        assert.equal(g.ledger.session(a.asm_id)?.status, "ended");
        assert.equal(g.ledger.session(b.asm_id)?.status, "live");
        assert.equal(g.ledger.session(b.asm_id)?.cleared_from_asm_id, a.asm_id);
        g.done();
      },
    },
    {
      name: "a crash (kill -9 of the real process) becomes lost on the next poll",
      async run() {
        const g = scratch();
        const child = new Deno.Command("sleep", { args: ["60"] }).spawn();
        const id = identityOf(child.pid)!;
        const e = g.put({
          event: "SessionStart",
          agent_session_id: "crashes",
          ts: isoAt(),
          agent_pid: id.pid,
          agent_proc_start: id.procStart,
          boot_id: id.bootId,
        });
        g.drain();
        assert.deepEqual(reapGoneRuns(g.ledger), [], "a live process keeps its session live");
        assert.equal(g.ledger.session(e.asm_id)?.status, "live");
        child.kill("SIGKILL");
        await child.status;
        assert.deepEqual(reapGoneRuns(g.ledger), [e.asm_id]);
        assert.equal(g.ledger.session(e.asm_id)?.status, "lost");
        g.done();
      },
    },
    {
      name: "a duplicate event is idempotent",
      run() {
        const g = scratch();
        const start = g.put({
          event: "SessionStart",
          agent_session_id: "dup",
          ts: "2026-11-29T22:00:00.000Z",
        });
        const prompt = g.put({
          event: "UserPromptSubmit",
          agent_session_id: "dup",
          ts: "2026-11-29T22:00:01.000Z",
        });
        g.drain();
        // the same event file arrives again (a crash before the move, or a copy)
        g.put({ ...prompt });
        g.drain();
        assert.equal(g.ledger.counts().events, 2);
        assert.equal(g.ledger.session(start.asm_id)?.prompts, 1);
        g.done();
      },
    },
    {
      name: "a stop arriving before its start still makes one row",
      run() {
        const g = scratch();
        const stop = g.put({ event: "Stop", agent_session_id: "early-stop", ts: "2026-11-29T22:00:05.000Z" });
        g.drain();
        g.put({ event: "SessionStart", agent_session_id: "early-stop", ts: "2026-11-29T22:00:00.000Z" });
        g.drain();
        assert.equal(g.ledger.counts().sessions, 1);
        assert.equal(g.ledger.runs(stop.asm_id).length, 1);
        assert.equal(g.ledger.session(stop.asm_id)?.started_at, "2026-11-29T22:00:00.000Z");
        g.done();
      },
    },
    {
      name: "a nested session is hidden, and shown with all",
      run() {
        const g = scratch();
        const top = g.put({
          event: "SessionStart",
          agent_session_id: "parent",
          ts: "2026-11-29T22:00:00.000Z",
        });
        const sub = g.put({
          event: "SessionStart",
          agent_session_id: "child",
          ts: "2026-11-29T22:00:01.000Z",
          nested: true,
          agent_pid: 4343,
        });
        g.drain();
        assert.deepEqual(g.ledger.listSessions().map((r) => r.asm_id), [top.asm_id]);
        const all = g.ledger.listSessions({ all: true });
        assert.equal(all.length, 2);
        assert.equal(all.find((r) => r.asm_id === sub.asm_id)?.hidden_reason, "sub-agent");
        g.done();
      },
    },
  ];
}
