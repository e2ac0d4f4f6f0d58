import assert from "node:assert/strict";
import { join } from "node:path";
import { loadAgents } from "../agents/mod.ts";
import { bootId, identityOf, isSameProcess } from "../procs/mod.ts";
import {
  asmIdOf,
  type DerivedSession,
  launchRow,
  Ledger,
  recordActivity,
  recordUnsure,
  UNSEEN_END_REASON,
  writeDerived,
} from "../ledger/mod.ts";
import { UNSURE_NO_PROCESS } from "../liveness/mod.ts";
import { hookEvent } from "../ledger/_test_utils.ts";
import { NASTY_PROMPT } from "./builder_test.ts";
import { endSession, focusSession, provenPanes, sendCommand } from "./control.ts";
import { type ActionDeps, ActionRefused, type RefusalKind } from "./deps.ts";
import { isPureAscii } from "./script.ts";
import { continueWith, launchSession, resumeSession } from "./start.ts";
import { closeoutLive, closeoutSession } from "./closeout.ts";
import { type TerminalHost, TerminalHostError } from "./terminal_host.ts";
import { testTmux, waitFor } from "./_test_utils.ts";

/**
 * "typist": a stand-in agent for the actions. Its program records its argv, then becomes `head -n 1`, which
 * writes the first line typed into its pane to a file and exits. agents.toml (the test's override) says its
 * executable is head, so asm proves it like any agent.
 */
const AGENTS_TOML = (shared: string) => `
[typist]
display = "Typist"
tag = "typist"
adapter = "claude"
tested = false
exe = ["**/bin/head"]
script = []
shared = false
session_env = ""
pid_env = ""
entrypoint_env = ""
inject = "none"
keep_copies = false
command = "typist"
one_shot = ["{prompt}"]
launch_argv = ["--typed"]
resume_argv = ["--resume", "{session_id}"]
model_argv = ["--model={model}"]
prompt_argv = ["--", "{prompt}"]
closeout_skill = "wrap-up"
skill_command = "/{skill} now"
[typist.events]
SessionStart = "SessionStart"

[${shared}]
display = "Shared Typist"
tag = "shared"
adapter = "claude"
tested = false
exe = ["**/bin/head"]
script = []
shared = true
session_env = ""
pid_env = ""
entrypoint_env = ""
inject = "none"
keep_copies = false
command = "typist"
one_shot = ["{prompt}"]
[${shared}.events]
SessionStart = "SessionStart"
`;

function world() {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-actions-test-" }));
  const asmHome = join(root, "asm");
  const bin = join(root, "bin");
  const folder = join(root, "proj");
  for (const d of [asmHome, bin, folder, join(root, "home")]) Deno.mkdirSync(d, { recursive: true });
  // the typist reads skills where its adapter's agent keeps them: its closeout skill is there
  Deno.mkdirSync(join(root, "home", ".claude", "skills", "wrap-up"), { recursive: true });
  Deno.writeTextFileSync(join(root, "home", ".claude", "skills", "wrap-up", "SKILL.md"), "wrap it up\n");
  Deno.writeTextFileSync(join(asmHome, "agents.toml"), AGENTS_TOML("typist-shared"));
  // the typist's own variable is no agent's: the person lists it, as they would a proxy
  Deno.writeTextFileSync(join(asmHome, "config.toml"), '[launch]\nenv = ["TYPIST_DIR"]\n');
  Deno.writeTextFileSync(
    join(bin, "typist"),
    `#!/bin/sh\nenv > "$TYPIST_DIR/env.$$"\nprintf '%s\\0' "$@" > "$TYPIST_DIR/args.$$"\nexec head -n 1 > "$TYPIST_DIR/typed.$$"\n`,
  );
  Deno.chmodSync(join(bin, "typist"), 0o755);
  const env = {
    PATH: `${bin}:/usr/bin:/bin`,
    HOME: join(root, "home"),
    ASM_HOME: asmHome,
    TYPIST_DIR: root,
    TYPIST_SECRET: "not on any list",
  };
  const tmux = testTmux();
  const ledger = Ledger.open(join(asmHome, "ledger.sqlite"));
  const deps: ActionDeps = {
    ledger,
    asmHome,
    env,
    host: tmux.host,
    agents: loadAgents({ asmHome, env }),
    endWaitMs: 3000,
  };
  let n = 0;
  return {
    root,
    folder,
    deps,
    ledger,
    tmux,
    /** The args and the pid of the typist a window started, once it recorded them. */
    async started(): Promise<{ pid: number; args: string[] }> {
      const file = await waitFor(
        () =>
          [...Deno.readDirSync(root)].find((e) => e.name.startsWith("args.") && !e.name.endsWith(".seen"))
            ?.name,
        "the typist started",
      );
      const text = Deno.readTextFileSync(join(root, file));
      Deno.renameSync(join(root, file), join(root, `${file}.seen`));
      const args = text.split("\0");
      args.pop();
      return { pid: Number(file.slice(5)), args };
    },
    /** A session row for a typist process, as its SessionStart hook event would make it. */
    session(pid: number, over: { procStart?: number; agent?: string } = {}): string {
      const id = identityOf(pid)!;
      const agent = over.agent ?? "typist";
      const sid = `typist-session-${++n}`;
      ledger.applyEvent(hookEvent({
        agent,
        agent_session_id: sid,
        cwd: folder,
        agent_pid: pid,
        agent_proc_start: over.procStart ?? id.procStart,
        boot_id: bootId(),
        ts: new Date().toISOString(),
      }));
      return asmIdOf(agent, sid);
    },
    async [Symbol.asyncDispose]() {
      await tmux[Symbol.asyncDispose]();
      ledger.close();
      Deno.removeSync(root, { recursive: true });
    },
  };
}

async function refused(promise: Promise<unknown>, kind: RefusalKind, why: RegExp): Promise<void> {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof ActionRefused, String(err));
    assert.equal(err.kind, kind, err.message);
    assert.match(err.message, why);
    return true;
  });
}

Deno.test("a launch opens one window whose agent gets the prompt as one argument, recorded with its window", async () => {
  await using w = world();
  const record = await launchSession(w.deps, {
    agent: "typist",
    folder: w.folder,
    prompt: NASTY_PROMPT,
    name: "T 1",
  });
  const { args } = await w.started();
  assert.deepEqual(args, ["--typed", "--", NASTY_PROMPT]);
  assert.equal(await w.deps.host.windowCount(), 1);
  assert.equal(isPureAscii(Deno.readTextFileSync(record.script_path)), true);
  const row = launchRow(w.ledger, record.token)!;
  assert.deepEqual([row.kind, row.window_id, row.pane_id, row.cwd, row.name], [
    "launch",
    record.window_id,
    record.pane_id,
    w.folder,
    "T 1",
  ]);
  assert.ok(row.pane_pid !== null && row.pane_proc_start !== null);
  assert.match(row.waiting_reason ?? "", /onboarding/, "the adapter's own dialog is recorded, not answered");
});

Deno.test("a launch without a prompt sends the adapter's fixed opener, never an empty turn", async () => {
  await using w = world();
  const record = await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "  " });
  assert.equal(record.opener, true);
  const { args } = await w.started();
  assert.deepEqual(args, ["--typed", "--", "Say READY and wait for my next message."]);
});

Deno.test("send types free text into the pane proven to hold the session's process", async () => {
  await using w = world();
  await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "x" });
  const { pid } = await w.started();
  const asmId = w.session(pid);
  const sent = await sendCommand(w.deps, asmId, "please fix the build; it's `make test` — thanks #1 $HOME");
  assert.equal(sent.typed, "please fix the build; it's `make test` — thanks #1 $HOME");
  const typed = await waitFor(() => {
    try {
      return Deno.readTextFileSync(join(w.root, `typed.${pid}`)) || undefined;
    } catch {
      return undefined;
    }
  }, "the typed line arrived");
  assert.equal(typed, "please fix the build; it's `make test` — thanks #1 $HOME\n", "typed as written");
});

Deno.test("send refuses while the session waits on a dialog: its text and Enter would answer it", async () => {
  await using w = world();
  await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "x" });
  const { pid } = await w.started();
  const asmId = w.session(pid);
  const at = new Date().toISOString();
  recordActivity(w.deps.ledger, [{
    asm_id: asmId,
    activity: "waiting",
    activity_reason: "permission",
    activity_at: at,
  }]);
  await refused(
    sendCommand(w.deps, asmId, "/compact"),
    "conflict",
    /waiting on you \(permission\).*answer it in its window/,
  );
  const typed = () => {
    try {
      return Deno.readTextFileSync(join(w.root, `typed.${pid}`));
    } catch {
      return "";
    }
  };
  recordActivity(w.deps.ledger, [{
    asm_id: asmId,
    activity: "idle",
    activity_reason: null,
    activity_at: at,
  }]);
  assert.equal(
    (await sendCommand(w.deps, asmId, "/compact")).typed,
    "/compact",
    "once it is idle, send types",
  );
  // the one line that arrives is the idle send's: the refused one typed nothing
  await waitFor(() => typed().includes("/compact") || undefined, "the idle send's line arrived");
  assert.equal(typed().split("\n").filter((l) => l === "/compact").length, 1);
});

Deno.test("focus brings the session's own window forward", async () => {
  await using w = world();
  await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "x" });
  await w.started();
  const second = await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "y" });
  const { pid } = await w.started();
  const current = async () =>
    (await w.tmux.tmux(["display-message", "-p", "-t", "asm:", "#{window_id}"])).out.trim();
  assert.notEqual(await current(), second.window_id, "a new window opens in the background");
  const focused = await focusSession(w.deps, w.session(pid));
  assert.equal(focused.window_id, second.window_id);
  assert.equal(await current(), second.window_id);
});

Deno.test("send refuses a session whose process is in no pane asm can see, and what is not one line of text", async () => {
  await using w = world();
  const outside = new Deno.Command("head", { args: ["-n", "1"], stdin: "piped", stdout: "null" }).spawn();
  try {
    const asmId = w.session(outside.pid);
    await refused(sendCommand(w.deps, asmId, "/help"), "conflict", /in no pane asm can see/);
    await refused(sendCommand(w.deps, asmId, "   "), "invalid", /give it some/);
    await refused(sendCommand(w.deps, asmId, "/a\nb"), "invalid", /one line of printable text/);
    await refused(sendCommand(w.deps, asmId, "x".repeat(10_001)), "invalid", /at most 10000 characters/);
  } finally {
    await outside.stdin.close();
    await outside.status;
  }
});

Deno.test("the list's Jump and Send: a session in a proven pane is offered them, one outside any pane is not", async () => {
  await using w = world();
  assert.deepEqual(await provenPanes(w.deps, []), new Set(), "no session: tmux is not even asked");
  await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "x" });
  const inPane = w.session((await w.started()).pid);
  const outside = new Deno.Command("head", { args: ["-n", "1"], stdin: "piped", stdout: "null" }).spawn();
  try {
    const loose = w.session(outside.pid);
    assert.deepEqual(await provenPanes(w.deps, [inPane, loose, "no-such-session"]), new Set([inPane]));
  } finally {
    await outside.stdin.close();
    await outside.status;
  }
});

Deno.test("END's window is closed when its own pane is gone, though another window opened meanwhile", async () => {
  await using w = world();
  await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "x" });
  const first = await w.started();
  const asmId = w.session(first.pid);
  const host = w.deps.host;
  const [mine] = await host.panes();
  // another launch's window opens between END's first count and its second (the board's CONTINUE WITH, say)
  let counts = 0;
  const busy = {
    ...w.deps,
    host: {
      ...host,
      async windowCount() {
        if (++counts === 2) await host.open({ name: "meanwhile", argv: ["sleep", "30"] });
        return await host.windowCount();
      },
    },
  };
  const result = await endSession(busy, asmId);
  assert.deepEqual(
    [result.window_closed, result.windows_before, result.windows_after],
    [true, 1, 1],
    "closed: the count is the same, the session's pane is gone",
  );
  // the window opened meanwhile may even wear the same window id (a new tmux server numbers from @0 again)
  const [meanwhile, ...more] = await host.panes();
  assert.deepEqual(more, []);
  assert.notDeepEqual(
    [meanwhile.paneId, meanwhile.panePid],
    [mine.paneId, mine.panePid],
    "not the session's pane",
  );
});

Deno.test("END claims killed, stops the proven process and counts its window closing", async () => {
  await using w = world();
  await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "x" });
  await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "y" });
  const first = await w.started();
  await w.started();
  const asmId = w.session(first.pid);
  const ticks = identityOf(first.pid)!.procStart;
  const result = await endSession(w.deps, asmId);
  assert.deepEqual(
    [result.window_closed, result.windows_before, result.windows_after, result.exited, result.signal],
    [true, 2, 1, true, "SIGTERM"],
  );
  assert.equal(isSameProcess({ pid: first.pid, procStart: ticks, bootId: null }), false);
  assert.equal(w.ledger.session(asmId)?.status, "killed");
  await refused(endSession(w.deps, asmId), "conflict", /not running \(it is killed\)/);
});

Deno.test("END that cannot signal, or whose process will not go, gives its claim back and says what happened", async () => {
  await using w = world();
  await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "x" });
  const { pid } = await w.started();
  const asmId = w.session(pid);
  const ticks = identityOf(pid)!.procStart;
  // the signal itself is refused (as for a process of another user)
  const refusing = {
    ...w.deps,
    kill: () => {
      throw new Deno.errors.PermissionDenied("Operation not permitted (os error 1)");
    },
  };
  await refused(
    endSession(refusing, asmId),
    "conflict",
    /could not signal .*Operation not permitted.*as it was/,
  );
  assert.equal(w.ledger.session(asmId)?.status, "live", "the claim is released: the page does not say ENDED");
  // the signals are sent but the process stays (stuck in the kernel, say): no claim either
  const ignored = { ...w.deps, kill: () => {}, endWaitMs: 200 };
  await refused(endSession(ignored, asmId), "conflict", /SIGTERM and then SIGKILL.*still running/);
  assert.equal(w.ledger.session(asmId)?.status, "live");
  assert.equal(isSameProcess({ pid, procStart: ticks, bootId: null }), true, "it was never signalled");
  // and a real END still works afterwards
  assert.equal((await endSession(w.deps, asmId)).exited, true);
  assert.equal(w.ledger.session(asmId)?.status, "killed");
});

Deno.test("END refuses a recycled pid and a shared binary with a sentence, and signals nothing", async () => {
  await using w = world();
  const outside = new Deno.Command("head", { args: ["-n", "1"], stdin: "piped", stdout: "null" }).spawn();
  try {
    const ticks = identityOf(outside.pid)!.procStart;
    const recycled = w.session(outside.pid, { procStart: ticks + 1 });
    await refused(endSession(w.deps, recycled), "conflict", /belongs to another process/);
    const shared = w.session(outside.pid, { agent: "typist-shared" });
    await refused(endSession(w.deps, shared), "conflict", /shared with another application/);
    assert.equal(isSameProcess({ pid: outside.pid, procStart: ticks, bootId: null }), true, "still running");
    assert.equal(w.ledger.session(recycled)?.status, "live", "a refused END claims nothing");
  } finally {
    await outside.stdin.close();
    await outside.status;
  }
});

Deno.test("END of a live session no process of which asm can see records it lost, signals nothing and says so", async () => {
  await using w = world();
  const sid = "typist-unseen";
  w.ledger.applyEvent(hookEvent({
    agent: "typist",
    agent_session_id: sid,
    cwd: w.folder,
    agent_pid: null,
    agent_proc_start: null,
    judged_pid: null,
    judged_proc_start: null,
    ts: new Date().toISOString(),
  }));
  const asmId = asmIdOf("typist", sid);
  // before any poll judged it, asm does not yet know that nothing lists it: END still refuses
  await refused(endSession(w.deps, asmId), "conflict", /no hook has reported its process/);
  assert.equal(w.ledger.session(asmId)?.status, "live");
  recordUnsure(w.ledger, new Map([[asmId, UNSURE_NO_PROCESS]]));
  const ended = await endSession(w.deps, asmId);
  assert.equal(ended.status, "lost");
  assert.deepEqual(ended.pids, []);
  assert.equal(ended.signal, null);
  assert.match(ended.note ?? "", /signalled nothing/);
  const row = w.ledger.session(asmId)!;
  assert.equal(row.status, "lost");
  assert.equal(row.end_reason, UNSEEN_END_REASON);
  // a later event from the session revives it, as any lost session revives
  w.ledger.applyEvent(hookEvent({
    agent: "typist",
    agent_session_id: sid,
    event: "UserPromptSubmit",
    agent_pid: null,
    agent_proc_start: null,
    ts: new Date(Date.now() + 1000).toISOString(),
  }));
  assert.equal(w.ledger.session(asmId)?.status, "live");
});

Deno.test("resume reopens the same session id with the same agent, withholding an empty model; continue-with needs another agent", async () => {
  await using w = world();
  await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "x" });
  const { pid } = await w.started();
  const asmId = w.session(pid);
  await refused(resumeSession(w.deps, asmId, {}), "conflict", /still running; focus its window/);
  await endSession(w.deps, asmId);
  const sid = w.ledger.session(asmId)!.agent_session_id;
  const resumed = await resumeSession(w.deps, asmId, { model: "" });
  assert.deepEqual([resumed.kind, resumed.resumes_asm_id, resumed.model], ["resume", asmId, null]);
  assert.deepEqual((await w.started()).args, ["--resume", sid]);
  const withModel = await resumeSession(w.deps, asmId, { model: "big-1", prompt: "go on" });
  assert.equal(withModel.model, "big-1");
  assert.deepEqual((await w.started()).args, ["--resume", sid, "--model=big-1", "--", "go on"]);
  await refused(continueWith(w.deps, asmId, { agent: "typist" }), "invalid", /another agent/);
});

/** The row the import derives for a session, with its closeout state. */
function derivedRow(
  w: { ledger: Ledger; folder: string },
  asmId: string,
  closeout: "open" | "closed",
): DerivedSession {
  const row = w.ledger.session(asmId)!;
  return {
    asm_id: asmId,
    agent: row.agent,
    agent_session_id: row.agent_session_id,
    parent_asm_id: null,
    cleared_from_asm_id: null,
    source: "interactive",
    thread_source: null,
    cwd: w.folder,
    transcript_path: join(w.folder, "transcript.jsonl"),
    transcript_copy: null,
    started_at: row.started_at,
    last_seen: row.last_seen,
    turns: 1,
    first_message: "x",
    name: null,
    title: null,
    summary: null,
    model: null,
    context_tokens: null,
    context_window: null,
    agent_version: null,
    closeout_state: closeout,
    project: null,
    primary_folder: null,
    harness: false,
    days: {},
    folders: {},
    skills: {},
  };
}

Deno.test("closeout-live types the agent's skill command into the proven pane; closeout resumes an ended session with it", async () => {
  await using w = world();
  await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "x" });
  const { pid } = await w.started();
  const asmId = w.session(pid);
  const sent = await closeoutLive(w.deps, asmId);
  assert.equal(sent.typed, "/wrap-up now");
  const typed = await waitFor(() => {
    try {
      return Deno.readTextFileSync(join(w.root, `typed.${pid}`)) || undefined;
    } catch {
      return undefined;
    }
  }, "the closeout line arrived");
  assert.equal(typed, "/wrap-up now\n", "the skill command, as one line and its Enter");
  // another session, ended by END while its process still runs: closeout resumes it with the skill as its prompt
  await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "y" });
  const ended = w.session((await w.started()).pid);
  await refused(closeoutSession(w.deps, ended), "conflict", /still running: closeout-live types/);
  await endSession(w.deps, ended);
  await refused(closeoutLive(w.deps, ended), "conflict", /not running: closeout resumes it/);
  const sid = w.ledger.session(ended)!.agent_session_id;
  const resumed = await closeoutSession(w.deps, ended);
  assert.deepEqual([resumed.kind, resumed.resumes_asm_id], ["resume", ended]);
  assert.deepEqual((await w.started()).args, ["--resume", sid, "--", "/wrap-up now"]);
});

Deno.test("closeout refuses with a sentence: an agent with no closeout skill, a session already closed out, one it does not know", async () => {
  await using w = world();
  await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "x" });
  const { pid } = await w.started();
  const shared = w.session(pid, { agent: "typist-shared" });
  await refused(closeoutLive(w.deps, shared), "conflict", /Shared Typist has no closeout skill/);
  await refused(closeoutSession(w.deps, shared), "conflict", /has no closeout skill/);
  const asmId = w.session(pid);
  writeDerived(w.ledger, {
    sessions: [derivedRow(w, asmId, "closed")],
    files: [],
    now: new Date().toISOString(),
  });
  await refused(
    closeoutLive(w.deps, asmId),
    "conflict",
    /already closed out: its transcript records the wrap-up/,
  );
  await refused(closeoutSession(w.deps, "nope"), "unknown", /asm has no session nope/);
  // without the skill where the agent looks for it, the command would be an unknown one: refused, not typed
  Deno.removeSync(join(w.root, "home", ".claude", "skills"), { recursive: true });
  const other = w.session(pid);
  await refused(
    closeoutLive(w.deps, other),
    "conflict",
    /has no skill named wrap-up that this session could run/,
  );
  const typed = [...Deno.readDirSync(w.root)].filter((e) => e.name.startsWith("typed."));
  assert.deepEqual(
    typed.map((e) => Deno.readTextFileSync(join(w.root, e.name))).join(""),
    "",
    "nothing typed",
  );
});

Deno.test("launch requests asm cannot serve are refused with sentences and open nothing", async () => {
  await using w = world();
  await refused(
    launchSession(w.deps, { agent: "nobody", folder: w.folder }),
    "invalid",
    /not an agent asm knows; asm knows/,
  );
  await refused(launchSession(w.deps, { agent: "typist", folder: "proj" }), "invalid", /absolute path/);
  await refused(
    launchSession(w.deps, { agent: "typist", folder: join(w.root, "missing") }),
    "invalid",
    /does not exist/,
  );
  await refused(
    launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "a\0b" }),
    "invalid",
    /NUL/,
  );
  await refused(
    launchSession({ ...w.deps, env: { ...w.deps.env, PATH: "/usr/bin:/bin" } }, {
      agent: "typist",
      folder: w.folder,
    }),
    "conflict",
    /not installed here/,
  );
  await refused(
    launchSession(w.deps, { agent: "typist", folder: w.folder, bypass_hook_trust: true }),
    "invalid",
    /not in testing mode/,
  );
  assert.equal(await w.deps.host.windowCount(), 0);
  await refused(endSession(w.deps, "no-such-session"), "unknown", /no session/);
});

Deno.test("resume refuses with a sentence when the agent's own transcript is not on disk, and opens nothing", async () => {
  await using w = world();
  const gone = join(w.folder, "never-written.jsonl");
  const base = {
    agent: "typist",
    agent_session_id: "typist-no-transcript",
    cwd: w.folder,
    transcript_path: gone,
  };
  w.ledger.applyEvent(hookEvent({ ...base, ts: "2026-11-29T22:00:00.000Z" }));
  w.ledger.applyEvent(
    hookEvent({ ...base, event: "SessionEnd", source: "other", ts: "2026-11-29T22:00:01.000Z" }),
  );
  const asmId = asmIdOf("typist", "typist-no-transcript");
  const windows = await w.deps.host.windowCount();
  await refused(
    resumeSession(w.deps, asmId, {}),
    "conflict",
    /cannot resume this session: its transcript .* is not on disk/,
  );
  assert.equal(await w.deps.host.windowCount(), windows);
  Deno.writeTextFileSync(gone, "{}\n");
  const resumed = await resumeSession(w.deps, asmId, {});
  assert.equal(resumed.kind, "resume");
});

Deno.test("a launched agent gets the allow-listed environment from a file the shim deleted, and no other variable of asm's", async () => {
  await using w = world();
  const record = await launchSession(w.deps, { agent: "typist", folder: w.folder, prompt: "x" });
  const { pid } = await w.started();
  const env = Deno.readTextFileSync(join(w.root, `env.${pid}`));
  assert.match(env, new RegExp(`^TYPIST_DIR=${w.root}$`, "m"), "the person's [launch] env name");
  assert.match(env, /^HOME=/m);
  assert.match(env, new RegExp(`^ASM_LAUNCH_TOKEN=${record.token}$`, "m"));
  assert.equal(env.includes("TYPIST_SECRET"), false, "a variable on no list stays with asm");
  assert.equal(env.includes("ASM_HOME"), false);
  const files = [...Deno.readDirSync(join(w.deps.asmHome, "launches"))].map((e) => e.name).sort();
  assert.deepEqual(files, [`${record.token}.prompt`, `${record.token}.sh`], "the env file is gone");
  for (const name of files) {
    assert.equal(
      Deno.readTextFileSync(join(w.deps.asmHome, "launches", name)).includes("not on any list"),
      false,
    );
  }
});

Deno.test("a launch whose window cannot open leaves none of its files behind", async () => {
  await using w = world();
  const broken: TerminalHost = {
    ...w.deps.host,
    open: () => Promise.reject(new TerminalHostError("tmux could not open a window: no space left")),
  };
  await refused(
    launchSession({ ...w.deps, host: broken }, { agent: "typist", folder: w.folder, prompt: "x" }),
    "unavailable",
    /no space left/,
  );
  assert.deepEqual([...Deno.readDirSync(join(w.deps.asmHome, "launches"))], []);
  const row = w.ledger.query("SELECT error, expired FROM launches")[0];
  assert.deepEqual([row.error, row.expired], ["tmux could not open a window: no space left", 1]);
});
