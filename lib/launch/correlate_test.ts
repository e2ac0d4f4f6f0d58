import assert from "node:assert/strict";
import { join } from "node:path";
import { loadAgents } from "../agents/mod.ts";
import {
  asmIdOf,
  isoAt,
  type LaunchRequested,
  type LaunchRow,
  launchRow,
  Ledger,
  recordLaunch,
  recordWindow,
} from "../ledger/mod.ts";
import { hookEvent, writeSql } from "../ledger/_test_utils.ts";
import type { ProcInfo, ProcSource } from "../procs/mod.ts";
import { type AdoptionFacts, adoptionVerdict, correlateOnce, processesUnderToken } from "./correlate.ts";
import { pathExists } from "../files/mod.ts";

const CLAUDE_EXE = "/x/node_modules/@anthropic-ai/claude-code/bin/claude.exe";
const T0 = Date.parse("2026-11-29T22:00:00.000Z");

function proc(pid: number, ppid: number, startTicks: number, exe: string, argv: string[]): ProcInfo {
  return { pid, ppid, startTicks, exe, argv };
}

/** A /proc made of the given processes (stat, cmdline, exe, cwd) and one boot id. */
function fakeProc(procs: ProcInfo[], cwd: Record<number, string> = {}): ProcSource {
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  return {
    listPids: () => [...byPid.keys()],
    readText(path) {
      if (path === "/proc/sys/kernel/random/boot_id") return "boot-1\n";
      const m = path.match(/^\/proc\/(\d+)\/(stat|cmdline)$/);
      const p = m ? byPid.get(Number(m[1])) : undefined;
      if (!p) return null;
      if (m![2] === "cmdline") return p.argv.join("\0") + "\0";
      const fields = ["S", p.ppid, ...Array(17).fill(0), p.startTicks, 0];
      return `${p.pid} (x) ${fields.join(" ")}`;
    },
    readLink(path) {
      const m = path.match(/^\/proc\/(\d+)\/(exe|cwd)$/);
      const p = m ? byPid.get(Number(m[1])) : undefined;
      if (!p) return null;
      return m![2] === "exe" ? p.exe : cwd[p.pid] ?? null;
    },
  };
}

// tmux server 1 -> shim 100 (carries the token) -> claude 200 -> its shell tool 300
const TABLE = [
  proc(1, 0, 1, "/usr/bin/tmux", ["tmux"]),
  proc(100, 1, 5000, "/deno", ["deno", "run", "shim.ts", "asmlt_aaa", "/a/launches/asmlt_aaa.prompt"]),
  proc(200, 100, 5010, CLAUDE_EXE, ["claude", "--", "hi"]),
  proc(300, 200, 5020, "/bin/sh", ["sh", "-c", "ls"]),
  proc(400, 1, 4000, CLAUDE_EXE, ["claude"]),
];

Deno.test("the processes under a token are those below the process whose command line carries it", () => {
  const procs = new Map(TABLE.map((p) => [p.pid, p]));
  assert.deepEqual(processesUnderToken("asmlt_aaa", procs).map((p) => p.pid), [200, 300]);
  assert.deepEqual(processesUnderToken("asmlt_zzz", procs), []);
});

Deno.test("the tmux server a launch started carries its token, and is no holder: other launches' windows are below it", () => {
  // seen in the live board gate: a RESUME restarted tmux, and a CONTINUE's session in another window was matched
  // to the RESUME "by ancestry" through the server's command line
  const server = [
    "tmux",
    "new-session",
    "-d",
    "-s",
    "asm",
    "--",
    "/bin/sh",
    "/h/launches/asmlt_first.sh",
    "asmlt_first",
  ];
  const procs = new Map([
    proc(1, 0, 1, "/usr/bin/tmux", server),
    proc(10, 1, 100, "/bin/sh", ["/bin/sh", "/h/launches/asmlt_first.sh", "asmlt_first"]),
    proc(11, 10, 110, CLAUDE_EXE, ["claude"]),
    proc(20, 1, 200, "/deno", [
      "deno",
      "run",
      "-A",
      "/x/lib/launch/shim.ts",
      "asmlt_next",
      "/h/e",
      "-",
      "-",
      "--",
    ]),
    proc(21, 20, 210, CLAUDE_EXE, ["claude", "--", "mentions asmlt_first"]),
  ].map((p) => [p.pid, p]));
  assert.deepEqual(processesUnderToken("asmlt_first", procs).map((p) => p.pid), [11], "the launcher's own");
  assert.deepEqual(processesUnderToken("asmlt_next", procs).map((p) => p.pid), [21], "the shim's own");
});

function launchRowOf(over: Partial<LaunchRow> = {}): LaunchRow {
  return {
    token: "asmlt_aaa",
    agent: "claude",
    kind: "launch",
    cwd: "/work/p",
    name: null,
    model: null,
    sprint_node: null,
    script_path: "/a/launches/asmlt_aaa.sh",
    prompt_path: null,
    requested_at: isoAt(T0),
    continues_asm_id: null,
    resumes_asm_id: null,
    waiting_reason: null,
    host: "tmux",
    window_id: "@1",
    pane_id: "%1",
    pane_pid: 100,
    pane_proc_start: 5000,
    boot_id: "boot-1",
    matched_asm_id: null,
    matched_at: null,
    matched_by: null,
    expired: false,
    expired_at: null,
    error: null,
    ...over,
  };
}

Deno.test("adoption needs all four proofs together", () => {
  const good: AdoptionFacts = {
    launch: launchRowOf(),
    paneAlive: true,
    proc: TABLE[2],
    procCwd: "/work/p",
    thread: "t-1",
    existing: null,
    threadAsmId: "a-1",
  };
  assert.deepEqual(adoptionVerdict(good), { adopt: true });
  // a RESUME: the thread is the very session it resumes, and that row is finished
  const resume = launchRowOf({ kind: "resume", resumes_asm_id: "a-1" });
  for (const existing of ["ended", "lost", "killed"] as const) {
    assert.deepEqual(adoptionVerdict({ ...good, launch: resume, existing }), { adopt: true }, existing);
  }
  const rows: [Partial<AdoptionFacts>, RegExp][] = [
    [{ launch: launchRowOf({ matched_asm_id: "x" }) }, /not pending/],
    [{ launch: launchRowOf({ expired: true }) }, /not pending/],
    [{ launch: resume, existing: "ended", threadAsmId: "a-2" }, /another thread than the session the resume/],
    [{ launch: resume, existing: null }, /no row for the resumed session/],
    [{ launch: resume, existing: "live" }, /another process drives it/],
    [{ launch: resume, existing: "ended", paneAlive: false }, /window is gone/],
    [{ launch: resume, existing: "ended", procCwd: "/elsewhere" }, /another folder/],
    [{ paneAlive: false }, /window is gone/],
    [{ proc: null }, /no agent process/],
    [{ thread: null }, /no single thread/],
    [{ procCwd: "/elsewhere" }, /another folder/],
    [{ proc: { ...TABLE[2], startTicks: 4999 } }, /older than the launch's window/],
    [{ existing: "live" }, /another process drives it/],
    [{ existing: "starting" }, /another process drives it/],
    [{ existing: "ended" }, /already has a row/],
  ];
  for (const [over, why] of rows) {
    const verdict = adoptionVerdict({ ...good, ...over });
    assert.equal(
      !verdict.adopt && why.test(verdict.why),
      true,
      `${JSON.stringify(over)} -> ${JSON.stringify(verdict)}`,
    );
  }
});

function world() {
  const dir = Deno.makeTempDirSync({ prefix: "asm-correlate-test-" });
  const ledger = Ledger.open(join(dir, "ledger.sqlite"));
  const agents = loadAgents({ asmHome: dir });
  const launch = (over: Partial<LaunchRequested> = {}) => {
    const row: LaunchRequested = {
      token: "asmlt_aaa",
      agent: "claude",
      kind: "launch",
      cwd: "/work/p",
      name: null,
      model: null,
      script_path: "/a/launches/asmlt_aaa.sh",
      prompt_path: null,
      requested_at: isoAt(T0),
      continues_asm_id: null,
      resumes_asm_id: null,
      waiting_reason: null,
      host: "tmux",
      ...over,
    };
    recordLaunch(ledger, row);
    recordWindow(ledger, row.token, {
      window_id: "@1",
      pane_id: "%1",
      pane_pid: 100,
      pane_proc_start: 5000,
      boot_id: "boot-1",
    });
  };
  return {
    ledger,
    agents,
    launch,
    pass: (source: ProcSource, atMs = T0 + 3000, launchesDir?: string) =>
      correlateOnce({
        ledger,
        env: { HOME: join(dir, "home") },
        agents,
        harnessRoots: [],
        proc: source,
        now: () => atMs,
        launchesDir,
      }),
    /** The three files of a launch, written as the builder writes them. */
    files(token: string): string[] {
      const launches = join(dir, "launches");
      Deno.mkdirSync(launches, { recursive: true });
      return ["sh", "prompt", "env"].map((ext) => {
        const path = join(launches, `${token}.${ext}`);
        Deno.writeTextFileSync(path, ext, { mode: 0o600 });
        return path;
      });
    },
    launchesDir: join(dir, "launches"),
    [Symbol.dispose]() {
      ledger.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

Deno.test("a launch is matched through the hook event that carried its token", () => {
  using w = world();
  w.launch();
  w.ledger.applyEvent(hookEvent({ launch_token: "asmlt_aaa", agent_session_id: "s1", agent_pid: 999 }));
  assert.deepEqual(w.pass(fakeProc([])), { token: 1, ancestry: 0, adopted: 0, expired: 0, filesDeleted: 0 });
  const row = launchRow(w.ledger, "asmlt_aaa")!;
  assert.deepEqual([row.matched_asm_id, row.matched_by], [asmIdOf("claude", "s1"), "token"]);
});

Deno.test("a launch whose events lost the token is matched by walking the process table from the token", () => {
  using w = world();
  w.launch();
  // the event names the agent process 200 but carries no token (say, the environment did not travel)
  w.ledger.applyEvent(
    hookEvent({
      launch_token: null,
      agent_session_id: "s2",
      agent_pid: 200,
      agent_proc_start: 5010,
      boot_id: "boot-1",
    }),
  );
  assert.deepEqual(w.pass(fakeProc(TABLE)), {
    token: 0,
    ancestry: 1,
    adopted: 0,
    expired: 0,
    filesDeleted: 0,
  });
  const row = launchRow(w.ledger, "asmlt_aaa")!;
  assert.deepEqual([row.matched_asm_id, row.matched_by], [asmIdOf("claude", "s2"), "ancestry"]);
});

Deno.test("a run on a recycled pid is not the launch's process", () => {
  using w = world();
  w.launch();
  w.ledger.applyEvent(
    hookEvent({
      launch_token: null,
      agent_session_id: "s3",
      agent_pid: 200,
      agent_proc_start: 4,
      boot_id: "boot-1",
    }),
  );
  assert.deepEqual(w.pass(fakeProc(TABLE)), {
    token: 0,
    ancestry: 0,
    adopted: 0,
    expired: 0,
    filesDeleted: 0,
  });
  assert.equal(launchRow(w.ledger, "asmlt_aaa")?.matched_asm_id, null);
});

Deno.test("an unmatched launch expires after 120 s and stays as evidence", () => {
  using w = world();
  w.launch();
  assert.equal(w.pass(fakeProc([]), T0 + 119_000).expired, 0);
  assert.equal(w.pass(fakeProc([]), T0 + 121_000).expired, 1);
  const row = launchRow(w.ledger, "asmlt_aaa")!;
  assert.deepEqual([row.expired, row.expired_at, row.matched_asm_id], [true, isoAt(T0 + 121_000), null]);
});

Deno.test("a window no hook reports is adopted from the agent's own record of its process", () => {
  using w = world();
  w.launch();
  const home = w.ledger.path.replace(/ledger\.sqlite$/, "home");
  Deno.mkdirSync(join(home, ".claude", "sessions"), { recursive: true });
  Deno.writeTextFileSync(
    join(home, ".claude", "sessions", "200.json"),
    JSON.stringify({ pid: 200, sessionId: "s-adopt", procStart: "5010", cwd: "/work/p", status: "idle" }),
  );
  // the launch's own hooks get their chance first
  assert.deepEqual(w.pass(fakeProc(TABLE, { 200: "/work/p" })), {
    token: 0,
    ancestry: 0,
    adopted: 0,
    expired: 0,
    filesDeleted: 0,
  });
  const later = w.pass(fakeProc(TABLE, { 200: "/work/p" }), T0 + 11_000);
  assert.deepEqual(later, { token: 0, ancestry: 0, adopted: 1, expired: 0, filesDeleted: 0 });
  const id = asmIdOf("claude", "s-adopt");
  assert.equal(w.ledger.session(id)?.status, "live");
  assert.deepEqual(w.ledger.runs(id).map((r) => [r.pid, r.proc_start]), [[200, 5010]]);
  assert.equal(launchRow(w.ledger, "asmlt_aaa")?.matched_by, "adoption");
});

Deno.test("a RESUME no hook reports yet is adopted when its process holds the resumed session's own thread", () => {
  using w = world();
  const id = asmIdOf("claude", "s-back");
  // the session ran and was lost an hour before the resume
  w.ledger.applyEvent(
    hookEvent({
      agent_session_id: "s-back",
      event: "SessionStart",
      cwd: "/work/p",
      ts: isoAt(T0 - 3_600_000),
    }),
  );
  w.ledger.runsGone(
    id,
    w.ledger.runs(id).map((r) => ({ pid: r.pid, proc_start: r.proc_start })),
    isoAt(T0 - 3_000_000),
  );
  assert.equal(w.ledger.session(id)?.status, "lost");
  w.launch({ kind: "resume", resumes_asm_id: id });
  const home = w.ledger.path.replace(/ledger\.sqlite$/, "home");
  Deno.mkdirSync(join(home, ".claude", "sessions"), { recursive: true });
  const record = (sessionId: string) =>
    Deno.writeTextFileSync(
      join(home, ".claude", "sessions", "200.json"),
      JSON.stringify({ pid: 200, sessionId, procStart: "5010", cwd: "/work/p", status: "idle" }),
    );
  // the process holds another thread than the one resumed: nothing is adopted
  record("s-other");
  assert.equal(w.pass(fakeProc(TABLE, { 200: "/work/p" }), T0 + 11_000).adopted, 0);
  assert.equal(w.ledger.session(id)?.status, "lost");
  record("s-back");
  assert.equal(w.pass(fakeProc(TABLE, { 200: "/work/p" }), T0 + 12_000).adopted, 1);
  const row = w.ledger.session(id)!;
  assert.deepEqual([row.status, row.ended_at, row.end_reason], ["live", null, null]);
  const open = w.ledger.runs(id).filter((r) => r.ended_at === null);
  assert.deepEqual(
    open.map((r) => [r.pid, r.proc_start, r.launch_token, r.start_source]),
    [[200, 5010, "asmlt_aaa", "resume"]],
  );
  const launch = launchRow(w.ledger, "asmlt_aaa")!;
  assert.deepEqual([launch.matched_asm_id, launch.matched_by], [id, "adoption"]);
});

Deno.test("once a launch is matched its launcher, prompt and environment files are deleted; a pending one keeps them", () => {
  using w = world();
  w.launch();
  w.launch({ token: "asmlt_bbb" });
  const matched = w.files("asmlt_aaa");
  const pending = w.files("asmlt_bbb");
  w.ledger.applyEvent(hookEvent({ launch_token: "asmlt_aaa", agent_session_id: "s9", agent_pid: 999 }));
  assert.equal(w.pass(fakeProc([]), T0 + 3000, w.launchesDir).filesDeleted, 3);
  assert.deepEqual(matched.filter(pathExists), []);
  assert.deepEqual(pending.filter(pathExists), pending);
});

Deno.test("an expired launch's files are deleted in the pass that expires it", () => {
  using w = world();
  w.launch();
  const files = w.files("asmlt_aaa");
  assert.equal(w.pass(fakeProc([]), T0 + 119_000, w.launchesDir).filesDeleted, 0);
  const report = w.pass(fakeProc([]), T0 + 121_000, w.launchesDir);
  assert.deepEqual([report.expired, report.filesDeleted], [1, 3]);
  assert.deepEqual(files.filter(pathExists), []);
});

Deno.test("a launch that fails to correlate costs one log line, once, and the launches beside it are still matched", () => {
  using w = world();
  // launch aaa: its agent (200) holds a thread by its own record, but the kernel refuses its working folder
  w.launch();
  const home = w.ledger.path.replace(/ledger\.sqlite$/, "home");
  Deno.mkdirSync(join(home, ".claude", "sessions"), { recursive: true });
  Deno.writeTextFileSync(
    join(home, ".claude", "sessions", "200.json"),
    JSON.stringify({ pid: 200, sessionId: "s-refused", procStart: "5010", cwd: "/work/p", status: "idle" }),
  );
  // launch bbb: its agent (210) already reported, without the token
  w.launch({ token: "asmlt_bbb", script_path: "/a/launches/asmlt_bbb.sh" });
  w.ledger.applyEvent(
    hookEvent({
      launch_token: null,
      agent_session_id: "s-bbb",
      agent_pid: 210,
      agent_proc_start: 5110,
      boot_id: "boot-1",
    }),
  );
  // and a run an older asm stored with a pid of 2^62: no launch can be its, and it stops no pass
  writeSql(
    w.ledger,
    "INSERT INTO runs (asm_id, pid, proc_start, boot_id, started_at) VALUES (?, ?, 1, 'boot-1', ?)",
    asmIdOf("claude", "s-bbb"),
    2n ** 62n,
    isoAt(T0),
  );
  const table = [
    ...TABLE,
    proc(110, 1, 5100, "/deno", ["deno", "run", "shim.ts", "asmlt_bbb", "/a/launches/asmlt_bbb.prompt"]),
    proc(210, 110, 5110, CLAUDE_EXE, ["claude"]),
  ];
  const refusing: ProcSource = {
    ...fakeProc(table),
    readLink(path) {
      if (path === "/proc/200/cwd") throw new Deno.errors.PermissionDenied("Permission denied (os error 13)");
      return fakeProc(table).readLink(path);
    },
  };
  const lines: Record<string, unknown>[] = [];
  const logged = new Set<string>();
  const pass = (atMs: number) =>
    correlateOnce({
      ledger: w.ledger,
      env: { HOME: home },
      agents: w.agents,
      harnessRoots: [],
      proc: refusing,
      now: () => atMs,
      log: (l) => lines.push(l),
      logged,
    });
  assert.deepEqual(pass(T0 + 11_000), { token: 0, ancestry: 1, adopted: 0, expired: 0, filesDeleted: 0 });
  assert.deepEqual(pass(T0 + 13_000), { token: 0, ancestry: 0, adopted: 0, expired: 0, filesDeleted: 0 });
  assert.equal(launchRow(w.ledger, "asmlt_bbb")?.matched_by, "ancestry");
  assert.equal(launchRow(w.ledger, "asmlt_aaa")?.matched_asm_id, null);
  const failed = lines.filter((l) => l.what === "launch failed to correlate");
  assert.equal(failed.length, 1, "named once, not every 2 s");
  assert.equal(failed[0].token, "asmlt_aaa");
  assert.match(String(failed[0].error), /Permission denied/);
});
