/**
 * The hook, end to end: every test runs hooks/hook.ts as a subprocess through a wrapper generated like the
 * installer's (docs/runbook.md section 3), on a temporary ASM_HOME and HOME, and asserts what it left behind:
 * the event file, the log line, what it printed.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import GLOB_TABLE from "../lib/agents/_glob_cases.json" with { type: "json" };
import { globToRegExp } from "./hook.ts";

const HOOK = new URL("./hook.ts", import.meta.url).pathname;
const NAMESPACE = "5b0e3f4e-8c1d-5a6e-9f3b-2d7c4a1e6b90";
const FIXTURES = Deno.env.get("ASM_FIXTURES") ?? new URL("../../shared/fixtures/", import.meta.url).pathname;
const EVENT_KEYS = [
  "v",
  "event_id",
  "asm_id",
  "agent",
  "event",
  "raw_event",
  "ts",
  "agent_session_id",
  "transcript_path",
  "cwd",
  "source",
  "launch_token",
  "session_name",
  "agent_pid",
  "agent_proc_start",
  "judged_pid",
  "judged_proc_start",
  "boot_id",
  "ancestors",
  "nested",
  "entrypoint",
  "pid_shared",
  "pid_env_match",
  "rules_skipped",
  "hook_ms",
  "payload",
];
const LOG_KEYS = ["ts", "agent", "event", "event_id", "asm_id", "ok", "error", "hook_ms"];
// one deno cache for every run of this file, so only the first run pays for transpiling the hook
const DENO_DIR = Deno.env.get("DENO_DIR") ||
  `${Deno.env.get("XDG_CACHE_HOME") || `${Deno.env.get("HOME")}/.cache`}/deno`;

type EventFile = Record<string, unknown>;
type LogLine = Record<string, unknown>;

interface AgentEntry {
  exe: string[];
  script: string[];
  shared: boolean;
  events: Record<string, string>;
  session_env: string;
  pid_env: string;
  entrypoint_env: string;
  inject: string;
}

interface Home {
  dir: string;
  wrapper: string;
  /** a copy of /bin/sh whose exe path is unique to this home; its name has a space and parentheses on purpose */
  fakeAgent: string;
}

interface Outcome {
  code: number;
  stdout: string;
  ms: number;
  events: EventFile[];
  log: LogLine[];
  leftovers: string[];
}

interface RunOptions {
  stdin?: string | Uint8Array | "never-closes";
  env?: Record<string, string>;
  /** run this program instead of the wrapper; it finds the wrapper in "$HOOK" */
  via?: { exe: string; args: string[]; cwd?: string };
}

/** `exe -c script`; end the script with "; true" so the shell stays the hook's parent instead of exec-ing. */
function viaShell(exe: string, script: string): { exe: string; args: string[] } {
  return { exe, args: ["-c", script] };
}

function agentEntry(entry: Partial<AgentEntry>): AgentEntry {
  return {
    exe: [],
    script: [],
    shared: false,
    events: {},
    session_env: "",
    pid_env: "",
    entrypoint_env: "",
    inject: "none",
    ...entry,
  };
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The installer's wrapper, except that DENO_DIR is shared by the tests to keep the runs warm. */
function writeWrapper(home: string): string {
  Deno.mkdirSync(`${home}/bin`, { recursive: true });
  const wrapper = `${home}/bin/asm-hook`;
  Deno.writeTextFileSync(
    wrapper,
    [
      "#!/bin/sh",
      `ASM_HOME=${quote(home)}; export ASM_HOME`,
      `DENO_DIR=${quote(DENO_DIR)}; export DENO_DIR`,
      "ASM_HOOK_PARENT=$PPID; export ASM_HOOK_PARENT",
      `exec ${quote(Deno.execPath())} run -A --no-config --no-lock --no-prompt ${quote(HOOK)} "$@"`,
      "",
    ].join("\n"),
  );
  Deno.chmodSync(wrapper, 0o755);
  return wrapper;
}

/** A temporary ASM_HOME with a wrapper, a fake agent binary and, unless null, this hook-agents.json. */
async function withHome(
  agents: Record<string, AgentEntry> | null,
  body: (home: Home) => Promise<void>,
): Promise<void> {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-hook-test-" }));
  try {
    if (agents) Deno.writeTextFileSync(`${dir}/hook-agents.json`, JSON.stringify({ v: 1, agents }));
    Deno.mkdirSync(`${dir}/agents/bin`, { recursive: true });
    const fakeAgent = `${dir}/agents/bin/ag) (ent`;
    Deno.copyFileSync(Deno.realPathSync("/bin/sh"), fakeAgent);
    Deno.chmodSync(fakeAgent, 0o755);
    await body({ dir, wrapper: writeWrapper(dir), fakeAgent });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

async function runHook(home: Home, args: string[], options: RunOptions = {}): Promise<Outcome> {
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: `${home.dir}/home`,
    HOOK: home.wrapper,
    ...options.env,
  };
  const command = new Deno.Command(options.via?.exe ?? home.wrapper, {
    args: options.via?.args ?? args,
    env,
    clearEnv: true,
    cwd: options.via?.cwd ?? home.dir,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "null",
  });
  const started = performance.now();
  const child = command.spawn();
  let writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  let feeding: Promise<void> = Promise.resolve();
  if (options.stdin !== undefined) {
    writer = child.stdin.getWriter();
    if (options.stdin !== "never-closes") {
      const bytes = typeof options.stdin === "string"
        ? new TextEncoder().encode(options.stdin)
        : options.stdin;
      const w = writer;
      // the hook may stop reading early (an oversized payload): a failed write is its business, not the test's
      feeding = w.write(bytes).then(() => w.close()).catch(() => {});
    }
  }
  const output = await child.output();
  const ms = performance.now() - started;
  await feeding;
  if (options.stdin === "never-closes") await writer!.close().catch(() => {});
  return { code: output.code, stdout: new TextDecoder().decode(output.stdout), ms, ...readHome(home.dir) };
}

function readHome(dir: string): { events: EventFile[]; log: LogLine[]; leftovers: string[] } {
  const events: EventFile[] = [];
  const leftovers: string[] = [];
  try {
    for (const entry of Deno.readDirSync(`${dir}/inbox`)) {
      if (entry.name.endsWith(".json")) {
        events.push(JSON.parse(Deno.readTextFileSync(`${dir}/inbox/${entry.name}`)));
      } else leftovers.push(entry.name);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound) && !(err instanceof Deno.errors.NotADirectory)) throw err;
  }
  let log: LogLine[] = [];
  try {
    log = Deno.readTextFileSync(`${dir}/hook.log`).split("\n").filter((l) => l !== "").map((l) =>
      JSON.parse(l)
    );
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return { events, log, leftovers };
}

/** Forgets earlier runs in this home: its inbox and its log. */
function clearRuns(home: Home): void {
  for (const path of [`${home.dir}/inbox`, `${home.dir}/hook.log`]) {
    try {
      Deno.removeSync(path, { recursive: true });
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
}

/** uuid5 written independently of the hook (node:crypto, not crypto.subtle). */
function uuid5(namespace: string, name: string): string {
  const hash = createHash("sha1")
    .update(Uint8Array.from(namespace.replaceAll("-", "").match(/../g)!.map((h) => parseInt(h, 16))))
    .update(new TextEncoder().encode(name))
    .digest()
    .subarray(0, 16);
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function startTicks(statLine: string): number {
  return Number(statLine.slice(statLine.lastIndexOf(")") + 2).split(" ")[19]);
}

function fixture(path: string): Record<string, unknown> {
  return JSON.parse(Deno.readTextFileSync(`${FIXTURES}/${path}`));
}

/** A recorded Claude payload as the agent sent it on stdin. */
function claudePayload(kind: "SessionStart" | "UserPromptSubmit"): string {
  const file = kind === "SessionStart"
    ? "221323.309-SessionStart-13421.json"
    : "221323.531-UserPromptSubmit-13429.json";
  return fixture(`claude/p-mode/hook-dumps/${file}`).stdin_raw as string;
}

function payloadWith(kind: "SessionStart" | "UserPromptSubmit", changes: Record<string, unknown>): string {
  return JSON.stringify({ ...JSON.parse(claudePayload(kind)), ...changes });
}

function onlyEvent(outcome: Outcome): EventFile {
  assert.equal(outcome.events.length, 1, `one event file expected, log: ${JSON.stringify(outcome.log)}`);
  return outcome.events[0];
}

function onlyLog(outcome: Outcome): LogLine {
  assert.equal(outcome.log.length, 1, "one hook.log line per run");
  assert.deepEqual(Object.keys(outcome.log[0]).sort(), [...LOG_KEYS].sort());
  return outcome.log[0];
}

/** A failed run: exit 0, nothing printed, nothing written, one log line whose error matches. */
function assertFailure(outcome: Outcome, error: RegExp): LogLine {
  assert.equal(outcome.code, 0);
  assert.equal(outcome.stdout, "");
  assert.equal(outcome.events.length, 0);
  assert.deepEqual(outcome.leftovers, []);
  const line = onlyLog(outcome);
  assert.equal(line.ok, false);
  assert.equal(line.event_id, null);
  assert.match(String(line.error), error);
  return line;
}

const claudeLike = (entry: Partial<AgentEntry> = {}) => ({
  claude: agentEntry({
    session_env: "CLAUDE_CODE_SESSION_ID",
    pid_env: "CLAUDE_PID",
    entrypoint_env: "CLAUDE_CODE_ENTRYPOINT",
    inject: "hook-specific-output",
    events: { SessionStart: "SessionStart", UserPromptSubmit: "UserPromptSubmit", Stop: "Stop" },
    ...entry,
  }),
});

Deno.test("the test's uuid5 matches the published vector for python.org in the DNS namespace", () => {
  assert.equal(
    uuid5("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "python.org"),
    "886313e1-3b8a-5372-9b90-0c9aee199e5d",
  );
});

Deno.test("a Claude SessionStart writes one complete event file, leaves no tmp file and logs one line", async () => {
  await withHome(claudeLike(), async (home) => {
    const payload = claudePayload("SessionStart");
    const outcome = await runHook(home, ["claude"], { stdin: payload });
    assert.equal(outcome.code, 0);
    assert.equal(outcome.stdout, "", "no rules exist, so nothing is printed");
    assert.deepEqual(outcome.leftovers, []);
    const event = onlyEvent(outcome);
    assert.deepEqual(Object.keys(event).sort(), [...EVENT_KEYS].sort());
    const sessionId = "cb871653-c018-4b00-b2c0-436d50121d59";
    assert.equal(event.v, 1);
    assert.match(
      String(event.event_id),
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.equal(event.asm_id, uuid5(NAMESPACE, `claude:${sessionId}`));
    assert.equal(event.agent, "claude");
    assert.equal(event.event, "SessionStart");
    assert.equal(event.raw_event, "SessionStart");
    assert.match(String(event.ts), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Math.abs(Date.parse(String(event.ts)) - Date.now()) < 60_000);
    assert.equal(event.agent_session_id, sessionId);
    assert.equal(
      event.transcript_path,
      "/tmp/cc-home-3/.claude/projects/-tmp-cc-proj-3/cb871653-c018-4b00-b2c0-436d50121d59.jsonl",
    );
    assert.equal(event.cwd, "/tmp/cc-proj-3");
    assert.equal(event.source, "startup");
    assert.equal(event.launch_token, null);
    assert.equal(event.session_name, null);
    assert.equal(event.agent_pid, null, "the test runner is no Claude");
    assert.equal(event.agent_proc_start, null);
    assert.equal(event.pid_shared, null);
    assert.equal(event.pid_env_match, null);
    assert.equal(event.rules_skipped, null);
    assert.equal(event.entrypoint, null);
    assert.equal(event.nested, false);
    assert.equal(event.boot_id, Deno.readTextFileSync("/proc/sys/kernel/random/boot_id").trim());
    assert.deepEqual(event.payload, JSON.parse(payload));
    assert.ok(typeof event.hook_ms === "number" && event.hook_ms > 0);
    // the wrapper execs deno, so the hook's parent is this test process
    const ancestors = event.ancestors as { pid: number; exe: string | null; created: number }[];
    assert.ok(ancestors.length >= 1 && ancestors.length <= 8);
    assert.deepEqual(ancestors[0], {
      pid: Deno.pid,
      exe: Deno.realPathSync(Deno.execPath()),
      created: startTicks(Deno.readTextFileSync("/proc/self/stat")),
    });
    const line = onlyLog(outcome);
    assert.equal(line.ok, true);
    assert.equal(line.error, null);
    assert.equal(line.agent, "claude");
    assert.equal(line.event, "SessionStart");
    assert.equal(line.event_id, event.event_id);
    assert.equal(line.asm_id, event.asm_id);
  });
});

Deno.test("the agent pid is the nearest ancestor whose exe matches, with its start ticks and cross-checks", async () => {
  await withHome(null, async (home) => {
    Deno.writeTextFileSync(
      `${home.dir}/hook-agents.json`,
      JSON.stringify({ v: 1, agents: claudeLike({ exe: ["**/bin/ag) (ent"], shared: true }) }),
    );
    const statFile = `${home.dir}/shell.stat`;
    const outcome = await runHook(home, [], {
      stdin: claudePayload("UserPromptSubmit"),
      env: { CLAUDE_CODE_ENTRYPOINT: "cli", STAT_FILE: statFile },
      via: viaShell(home.fakeAgent, `cat /proc/$$/stat > "$STAT_FILE"; CLAUDE_PID=$$ "$HOOK" claude; true`),
    });
    const stat = Deno.readTextFileSync(statFile);
    const shellPid = Number(stat.split(" ")[0]);
    const event = onlyEvent(outcome);
    assert.equal(event.agent_pid, shellPid);
    assert.equal(event.agent_proc_start, startTicks(stat));
    assert.deepEqual((event.ancestors as unknown[])[0], {
      pid: shellPid,
      exe: home.fakeAgent,
      created: startTicks(stat),
    });
    assert.equal(event.pid_shared, true);
    assert.equal(event.pid_env_match, true);
    assert.equal(event.entrypoint, "cli");
    assert.equal(event.nested, false);
    assert.equal(event.event, "UserPromptSubmit");
    assert.equal(onlyLog(outcome).ok, true);
  });
});

Deno.test("the judged process is the nearest ancestor past the shell that ran the wrapper, even when no glob knows it", async () => {
  await withHome(null, async (home) => {
    Deno.writeTextFileSync(
      `${home.dir}/hook-agents.json`,
      JSON.stringify({ v: 1, agents: claudeLike({ exe: ["/nowhere/no-such-agent"] }) }),
    );
    const statFile = `${home.dir}/agent.stat`;
    // the fake agent runs the hook as Claude does, through `sh -c '<wrapper> claude'` (kept alive by "; true"),
    // and as a login shell would (`sh -lc`)
    for (const flag of ["-c", "-lc"]) {
      clearRuns(home);
      const outcome = await runHook(home, [], {
        stdin: claudePayload("UserPromptSubmit"),
        env: { STAT_FILE: statFile },
        via: viaShell(
          home.fakeAgent,
          `cat /proc/$$/stat > "$STAT_FILE"; /bin/sh ${flag} "'$HOOK' claude; true"; true`,
        ),
      });
      const stat = Deno.readTextFileSync(statFile);
      const agentPid = Number(stat.split(" ")[0]);
      const event = onlyEvent(outcome);
      assert.equal(event.agent_pid, null, "no glob proves the agent");
      const ancestors = event.ancestors as { pid: number }[];
      assert.notEqual(
        ancestors[0].pid,
        agentPid,
        `${flag}: the shell that ran the wrapper sits between them`,
      );
      assert.equal(event.judged_pid, agentPid, `${flag}: the judged process is the agent, past that shell`);
      assert.equal(event.judged_proc_start, startTicks(stat));
    }
  });
});

Deno.test("the judged process is the hook's parent when that runs the wrapper itself (no shell between)", async () => {
  await withHome(null, async (home) => {
    Deno.writeTextFileSync(
      `${home.dir}/hook-agents.json`,
      JSON.stringify({ v: 1, agents: claudeLike({ exe: ["/nowhere/no-such-agent"] }) }),
    );
    const statFile = `${home.dir}/agent.stat`;
    const outcome = await runHook(home, [], {
      stdin: claudePayload("UserPromptSubmit"),
      env: { STAT_FILE: statFile },
      via: viaShell(home.fakeAgent, `cat /proc/$$/stat > "$STAT_FILE"; "$HOOK" claude; true`),
    });
    const stat = Deno.readTextFileSync(statFile);
    const event = onlyEvent(outcome);
    assert.equal(event.judged_pid, Number(stat.split(" ")[0]));
    assert.equal(event.judged_proc_start, startTicks(stat));
  });
});

Deno.test("pid_env_match is false when the pid variable names another process and null when it is absent", async () => {
  await withHome(null, async (home) => {
    Deno.writeTextFileSync(
      `${home.dir}/hook-agents.json`,
      JSON.stringify({ v: 1, agents: claudeLike({ exe: ["**/bin/ag) (ent"] }) }),
    );
    const via = viaShell(home.fakeAgent, `"$HOOK" claude; true`);
    const wrong = await runHook(home, [], {
      stdin: claudePayload("UserPromptSubmit"),
      env: { CLAUDE_PID: "1" },
      via,
    });
    assert.equal(onlyEvent(wrong).pid_env_match, false);
    assert.equal(onlyEvent(wrong).pid_shared, false);
    clearRuns(home);
    const absent = await runHook(home, [], { stdin: claudePayload("UserPromptSubmit"), via });
    assert.equal(onlyEvent(absent).pid_env_match, null);
    assert.equal(typeof onlyEvent(absent).agent_pid, "number");
  });
});

Deno.test("the hook's glob matcher answers every row of the shared table as lib/agents/glob.ts does", () => {
  for (const { why, cases } of GLOB_TABLE.groups) {
    for (const [glob, path, expected] of cases as [string, string, boolean][]) {
      assert.equal(globToRegExp(glob).test(path), expected, `${why}: ${glob} against ${path}`);
    }
  }
});

Deno.test("exe globs: ** crosses folders, * and ? stay within one, [...] is a class, and the match is anchored", async () => {
  await withHome(null, async (home) => {
    const cases: [string, boolean][] = [
      ["**/ag) (ent", true],
      [`${home.dir}/**`, true],
      [`${home.dir}/*/ag) (ent`, false],
      [`${home.dir}/*/*/ag) (ent`, true],
      [`${home.dir}/agents/bin/ag) (en?`, true],
      [`${home.dir}/agents/bin?ag) (ent`, false],
      [`${home.dir}/agents/bin/[a-b]g) (ent`, true],
      [`${home.dir}/agents/bin/[!a]g) (ent`, false],
      ["**/ag", false],
      ["ag) (ent", false],
    ];
    for (const [glob, expected] of cases) {
      Deno.writeTextFileSync(
        `${home.dir}/hook-agents.json`,
        JSON.stringify({ v: 1, agents: claudeLike({ exe: [glob] }) }),
      );
      clearRuns(home);
      const outcome = await runHook(home, [], {
        stdin: claudePayload("UserPromptSubmit"),
        via: viaShell(home.fakeAgent, `"$HOOK" claude; true`),
      });
      assert.equal(onlyEvent(outcome).agent_pid !== null, expected, `glob ${glob}`);
    }
  });
});

Deno.test("two agent processes with another process between them make the event nested", async () => {
  await withHome(claudeLike({ exe: ["**/bin/ag) (ent"] }), async (home) => {
    const middle = `${home.dir}/middle.sh`;
    // outer agent -> plain /bin/sh (matches nothing) -> inner agent -> hook: a sub-agent started through a shell
    Deno.writeTextFileSync(middle, `"$AGENT" -c 'echo $$ > "$PID_FILE"; "$HOOK" claude; true'; true\n`);
    const pidFile = `${home.dir}/inner.pid`;
    const outcome = await runHook(home, [], {
      stdin: claudePayload("UserPromptSubmit"),
      env: { AGENT: home.fakeAgent, PID_FILE: pidFile, MIDDLE: middle },
      via: viaShell(home.fakeAgent, `/bin/sh "$MIDDLE"; true`),
    });
    const event = onlyEvent(outcome);
    assert.equal(event.nested, true);
    assert.equal(
      event.agent_pid,
      Number(Deno.readTextFileSync(pidFile).trim()),
      "the nearest agent is the inner one",
    );
  });
});

Deno.test("an agent's direct child of the same agent (launcher and child) is one agent, not nested", async () => {
  await withHome(claudeLike({ exe: ["**/bin/ag) (ent"] }), async (home) => {
    const pidFile = `${home.dir}/child.pid`;
    const outcome = await runHook(home, [], {
      stdin: claudePayload("UserPromptSubmit"),
      env: { AGENT: home.fakeAgent, PID_FILE: pidFile },
      via: viaShell(home.fakeAgent, `"$AGENT" -c 'echo $$ > "$PID_FILE"; "$HOOK" claude; true'; true`),
    });
    const event = onlyEvent(outcome);
    assert.equal(event.nested, false);
    assert.equal(event.agent_pid, Number(Deno.readTextFileSync(pidFile).trim()), "the child is the agent");
  });
});

Deno.test("an interpreter agent is proven by its exe and its resolved script argument together", async () => {
  await withHome(
    {
      gemini: agentEntry({
        exe: ["**/bin/ag) (ent"],
        script: ["**/@google/gemini-cli/bundle/gemini.js"],
        events: { BeforeAgent: "UserPromptSubmit" },
      }),
    },
    async (home) => {
      const modules = `${home.dir}/agents/node_modules`;
      Deno.mkdirSync(`${modules}/@google/gemini-cli/bundle`, { recursive: true });
      Deno.mkdirSync(`${modules}/.bin`);
      const body = `echo $$ > "$PID_FILE"; "$HOOK" gemini; true\n`;
      Deno.writeTextFileSync(`${modules}/@google/gemini-cli/bundle/gemini.js`, body);
      Deno.writeTextFileSync(`${modules}/other.js`, body);
      // argv shows the .bin symlink, relative to the process's cwd, after an option: all three must be resolved
      Deno.symlinkSync("../@google/gemini-cli/bundle/gemini.js", `${modules}/.bin/gemini`);
      const pidFile = `${home.dir}/gemini.pid`;
      const payload = JSON.stringify(
        fixture("gemini/headless/hook-dumps/1795990926210206764-BeforeAgent.json").stdin,
      );
      const proven = await runHook(home, [], {
        stdin: payload,
        env: { PID_FILE: pidFile },
        via: { exe: home.fakeAgent, args: ["-e", "node_modules/.bin/gemini"], cwd: `${home.dir}/agents` },
      });
      assert.equal(onlyEvent(proven).agent_pid, Number(Deno.readTextFileSync(pidFile).trim()));
      clearRuns(home);
      const otherScript = await runHook(home, [], {
        stdin: payload,
        env: { PID_FILE: pidFile },
        via: { exe: home.fakeAgent, args: ["node_modules/other.js"], cwd: `${home.dir}/agents` },
      });
      assert.equal(
        onlyEvent(otherScript).agent_pid,
        null,
        "the same interpreter running another script is no agent",
      );
    },
  );
});

Deno.test("the launch token and session name come from the environment first", async () => {
  await withHome(claudeLike(), async (home) => {
    const outcome = await runHook(home, [], {
      stdin: claudePayload("UserPromptSubmit"),
      env: { ASM_LAUNCH_TOKEN: "asmlt_fromenv1", ASM_SESSION_NAME: "fix the login page" },
      via: viaShell("/bin/sh", `: asmlt_fromargv2; "$HOOK" claude; true`),
    });
    const event = onlyEvent(outcome);
    assert.equal(event.launch_token, "asmlt_fromenv1");
    assert.equal(event.session_name, "fix the login page");
  });
});

Deno.test("the launch token is found in the launcher's command line when the environment has none", async () => {
  await withHome(claudeLike(), async (home) => {
    const middle = `${home.dir}/middle.sh`;
    Deno.writeTextFileSync(middle, `"$HOOK" claude; true\n`);
    // the token sits two levels up, in the launcher's command line: `/bin/sh <token>.sh <token>`, as a window runs it
    const launcher = `${home.dir}/asmlt_9k2x7q.sh`;
    Deno.writeTextFileSync(launcher, `/bin/sh "$MIDDLE"; true\n`);
    const outcome = await runHook(home, [], {
      stdin: claudePayload("UserPromptSubmit"),
      env: { MIDDLE: middle, LAUNCHER: launcher },
      via: viaShell("/bin/sh", `/bin/sh "$LAUNCHER" asmlt_9k2x7q; true`),
    });
    const event = onlyEvent(outcome);
    assert.equal(event.launch_token, "asmlt_9k2x7q");
    assert.equal(event.session_name, null);
  });
});

Deno.test("an ancestor that only mentions a token (a tmux server a launch started, a prompt) gives none", async () => {
  await withHome(claudeLike(), async (home) => {
    const middle = `${home.dir}/middle.sh`;
    Deno.writeTextFileSync(middle, `"$HOOK" claude; true\n`);
    const outcome = await runHook(home, [], {
      stdin: claudePayload("UserPromptSubmit"),
      env: { MIDDLE: middle },
      via: viaShell(
        "/bin/sh",
        `/bin/sh "$MIDDLE"; true # new-session -- /bin/sh /h/asmlt_9k2x7q.sh asmlt_9k2x7q`,
      ),
    });
    assert.equal(onlyEvent(outcome).launch_token, null);
  });
});

Deno.test("SessionStart prints the standing rules from ASM_HOME/rules by name, then the project's, as one JSON line", async () => {
  await withHome(claudeLike(), async (home) => {
    Deno.mkdirSync(`${home.dir}/rules`);
    Deno.writeTextFileSync(`${home.dir}/rules/02-second.md`, "Rule two: run the tests.\n");
    Deno.writeTextFileSync(`${home.dir}/rules/01-first.md`, 'Rule one: say "READY".\n\n');
    Deno.writeTextFileSync(`${home.dir}/rules/notes.txt`, "not a rule");
    const project = `${home.dir}/project`;
    Deno.mkdirSync(`${project}/.asm`, { recursive: true });
    Deno.writeTextFileSync(`${project}/.asm/rules.md`, "Project rule: ünïcode kept.\n");
    const outcome = await runHook(home, ["claude"], { stdin: payloadWith("SessionStart", { cwd: project }) });
    assert.equal(outcome.code, 0);
    const expected = {
      hookSpecificOutput: {
        hookEventName: "SessionStart",
        additionalContext:
          'Rule one: say "READY".\n\nRule two: run the tests.\n\nProject rule: ünïcode kept.',
      },
    };
    assert.equal(outcome.stdout, JSON.stringify(expected) + "\n");
    assert.equal(onlyEvent(outcome).cwd, project);
    assert.equal(onlyEvent(outcome).rules_skipped, null);
    assert.equal(onlyLog(outcome).ok, true);
  });
});

Deno.test("nothing is printed on other events, nor on SessionStart for an agent that does not inject", async () => {
  await withHome(
    { ...claudeLike(), quiet: agentEntry({ inject: "none", events: { SessionStart: "SessionStart" } }) },
    async (home) => {
      Deno.mkdirSync(`${home.dir}/rules`);
      Deno.writeTextFileSync(`${home.dir}/rules/01.md`, "Rule one.");
      const prompt = await runHook(home, ["claude"], { stdin: claudePayload("UserPromptSubmit") });
      assert.equal(prompt.stdout, "");
      assert.equal(onlyEvent(prompt).event, "UserPromptSubmit");
      assert.equal(onlyEvent(prompt).rules_skipped, null);
      clearRuns(home);
      const quiet = await runHook(home, ["quiet"], { stdin: claudePayload("SessionStart") });
      assert.equal(quiet.stdout, "");
      assert.equal(onlyEvent(quiet).event, "SessionStart");
    },
  );
});

/** A project folder beside the home's rules, with a global rule that must still apply whatever the project holds. */
function projectWithGlobalRule(home: Home): string {
  Deno.mkdirSync(`${home.dir}/rules`, { recursive: true });
  Deno.writeTextFileSync(`${home.dir}/rules/01-global.md`, "Global rule.");
  const project = `${home.dir}/project`;
  Deno.mkdirSync(`${project}/.asm`, { recursive: true });
  return project;
}

/** A SessionStart of Claude in `project`. */
async function startIn(home: Home, project: string): Promise<Outcome> {
  return await runHook(home, ["claude"], { stdin: payloadWith("SessionStart", { cwd: project }) });
}

/** Only the global rule was printed, and the event and the log both carry the reason the project's was skipped. */
function assertProjectRulesSkipped(outcome: Outcome, why: RegExp): void {
  assert.equal(outcome.code, 0);
  const printed = JSON.parse(outcome.stdout).hookSpecificOutput.additionalContext;
  assert.equal(printed, "Global rule.", "the other rules still apply");
  const skipped = String(onlyEvent(outcome).rules_skipped);
  assert.match(skipped, /^standing rules skipped: \S+\/project\/\.asm\/rules\.md /);
  assert.match(skipped, why);
  const line = onlyLog(outcome);
  assert.equal(line.ok, false);
  assert.ok(String(line.error).includes(skipped), `the log line says why: ${line.error}`);
}

Deno.test("a project rules.md linked to a secret outside its folder is skipped and the secret never reaches stdout", async () => {
  await withHome(claudeLike(), async (home) => {
    const project = projectWithGlobalRule(home);
    Deno.mkdirSync(`${home.dir}/outside`);
    Deno.writeTextFileSync(`${home.dir}/outside/secret.txt`, "ANTHROPIC_API_KEY=sk-secret-value");
    Deno.symlinkSync(`${home.dir}/outside/secret.txt`, `${project}/.asm/rules.md`);
    const outcome = await startIn(home, project);
    assert.ok(!outcome.stdout.includes("sk-secret-value"));
    assertProjectRulesSkipped(outcome, /is a link outside the session's folder/);
  });
});

Deno.test("a project rules.md hard-linked to a file outside its folder is skipped; with one name left it is read", async () => {
  await withHome(claudeLike(), async (home) => {
    const project = projectWithGlobalRule(home);
    // a scratch stand-in for the audit's /etc/shadow: a regular file of this user outside the project, whose
    // second name lies inside it, so every path check sees a plain file in the project
    Deno.mkdirSync(`${home.dir}/outside`);
    Deno.writeTextFileSync(`${home.dir}/outside/shadow`, "root:$6$scratch-secret-hash:19000:0:99999:7:::");
    Deno.linkSync(`${home.dir}/outside/shadow`, `${project}/.asm/rules.md`);
    const outcome = await startIn(home, project);
    assert.ok(!outcome.stdout.includes("scratch-secret-hash"), "the linked file never reaches the agent");
    assertProjectRulesSkipped(
      outcome,
      /rules\.md is a hard link \(the file has 2 names; a rules file must have one\)/,
    );

    // the same bytes under one name are a plain rules file again: the link count was the reason
    clearRuns(home);
    Deno.removeSync(`${home.dir}/outside/shadow`);
    const alone = await startIn(home, project);
    assert.equal(
      JSON.parse(alone.stdout).hookSpecificOutput.additionalContext,
      "Global rule.\n\nroot:$6$scratch-secret-hash:19000:0:99999:7:::",
    );
    assert.equal(onlyEvent(alone).rules_skipped, null);
  });
});

Deno.test("a global rule linked outside is skipped too, and both reasons are joined in the event", async () => {
  await withHome(claudeLike(), async (home) => {
    const project = projectWithGlobalRule(home);
    Deno.writeTextFileSync(`${home.dir}/secret.txt`, "sk-secret-value");
    Deno.symlinkSync(`${home.dir}/secret.txt`, `${home.dir}/rules/02-linked.md`);
    Deno.symlinkSync(`${home.dir}/secret.txt`, `${project}/.asm/rules.md`);
    const outcome = await startIn(home, project);
    assert.ok(!outcome.stdout.includes("sk-secret-value"));
    assert.equal(JSON.parse(outcome.stdout).hookSpecificOutput.additionalContext, "Global rule.");
    const reasons = String(onlyEvent(outcome).rules_skipped).split("; ");
    assert.equal(reasons.length, 2);
    assert.match(reasons[0], /rules\/02-linked\.md is a link outside/);
    assert.match(reasons[1], /project\/\.asm\/rules\.md is a link outside/);
  });
});

Deno.test("a FIFO as the project's rules does not hold the hook: it finishes and says the FIFO was skipped", async () => {
  await withHome(claudeLike(), async (home) => {
    const project = projectWithGlobalRule(home);
    const made = new Deno.Command("mkfifo", { args: [`${project}/.asm/rules.md`] }).outputSync();
    assert.equal(made.code, 0, "mkfifo made the FIFO");
    const outcome = await startIn(home, project);
    assertProjectRulesSkipped(outcome, /is a FIFO, not a regular file/);
  });
});

Deno.test("a project rules.md linked to /dev/zero is skipped, not read", async () => {
  await withHome(claudeLike(), async (home) => {
    const project = projectWithGlobalRule(home);
    Deno.symlinkSync("/dev/zero", `${project}/.asm/rules.md`);
    assertProjectRulesSkipped(
      await startIn(home, project),
      /is a link outside the session's folder .*\/dev\/zero/,
    );
  });
});

Deno.test("a 10 MB project rules file is skipped whole as too large", async () => {
  await withHome(claudeLike(), async (home) => {
    const project = projectWithGlobalRule(home);
    Deno.writeTextFileSync(`${project}/.asm/rules.md`, "Big rule. ".repeat(1024 * 1024));
    const outcome = await startIn(home, project);
    assert.ok(!outcome.stdout.includes("Big rule."), "not even a cut part of it is printed");
    assertProjectRulesSkipped(outcome, /is too large: 10485760 bytes, over the 65536-byte limit/);
  });
});

Deno.test("a project rules file that is not UTF-8 is skipped", async () => {
  await withHome(claudeLike(), async (home) => {
    const project = projectWithGlobalRule(home);
    Deno.writeFileSync(`${project}/.asm/rules.md`, new Uint8Array([0x52, 0x75, 0x6c, 0x65, 0xff, 0xfe]));
    assertProjectRulesSkipped(await startIn(home, project), /is not UTF-8 text/);
  });
});

Deno.test({
  name: "a project rules file owned by another user is skipped",
  // only root can give a file away; the suite runs as root (see the unwritable inbox test)
  ignore: Deno.uid() !== 0,
  fn: async () => {
    await withHome(claudeLike(), async (home) => {
      const project = projectWithGlobalRule(home);
      Deno.writeTextFileSync(`${project}/.asm/rules.md`, "Someone else's rule.");
      Deno.chownSync(`${project}/.asm/rules.md`, 65534, 65534);
      const outcome = await startIn(home, project);
      assert.ok(!outcome.stdout.includes("Someone else's rule."));
      assertProjectRulesSkipped(outcome, /is owned by uid 65534, not by this user \(uid 0\)/);
    });
  },
});

Deno.test("a project rules.md linked into ASM_HOME/rules is followed and its text is printed", async () => {
  await withHome(claudeLike(), async (home) => {
    const project = projectWithGlobalRule(home);
    // a subfolder: its files are not global rules themselves, only what a project links to
    Deno.mkdirSync(`${home.dir}/rules/shared`);
    Deno.writeTextFileSync(`${home.dir}/rules/shared/python.md`, "Shared rule: use uv.");
    Deno.symlinkSync(`${home.dir}/rules/shared/python.md`, `${project}/.asm/rules.md`);
    const outcome = await startIn(home, project);
    assert.equal(
      JSON.parse(outcome.stdout).hookSpecificOutput.additionalContext,
      "Global rule.\n\nShared rule: use uv.",
    );
    assert.equal(onlyEvent(outcome).rules_skipped, null);
    assert.equal(onlyLog(outcome).ok, true);
  });
});

Deno.test("a project rules.md linked to a file inside the project is followed", async () => {
  await withHome(claudeLike(), async (home) => {
    const project = projectWithGlobalRule(home);
    Deno.writeTextFileSync(`${project}/AGENT_RULES.md`, "Project rule by link.");
    Deno.symlinkSync("../AGENT_RULES.md", `${project}/.asm/rules.md`);
    const outcome = await startIn(home, project);
    assert.equal(
      JSON.parse(outcome.stdout).hookSpecificOutput.additionalContext,
      "Global rule.\n\nProject rule by link.",
    );
    assert.equal(onlyEvent(outcome).rules_skipped, null);
  });
});

Deno.test("a project .asm folder that is a link to a folder outside the project is refused", async () => {
  await withHome(claudeLike(), async (home) => {
    const project = projectWithGlobalRule(home);
    Deno.removeSync(`${project}/.asm`);
    Deno.mkdirSync(`${home.dir}/elsewhere`);
    Deno.writeTextFileSync(`${home.dir}/elsewhere/rules.md`, "sk-secret-value");
    Deno.symlinkSync(`${home.dir}/elsewhere`, `${project}/.asm`);
    const outcome = await startIn(home, project);
    assert.ok(!outcome.stdout.includes("sk-secret-value"));
    assertProjectRulesSkipped(outcome, /lies outside the session's folder .*\/elsewhere\/rules\.md/);
  });
});

Deno.test("the event file and hook.log are private (0600), and an inbox the hook makes is 0700", async () => {
  await withHome(claudeLike(), async (home) => {
    const outcome = await runHook(home, ["claude"], { stdin: claudePayload("UserPromptSubmit") });
    const event = onlyEvent(outcome);
    assert.equal(Deno.statSync(`${home.dir}/inbox/${event.event_id}.json`).mode! & 0o777, 0o600);
    assert.equal(Deno.statSync(`${home.dir}/hook.log`).mode! & 0o777, 0o600);
    assert.equal(Deno.statSync(`${home.dir}/inbox`).mode! & 0o777, 0o700);
  });
});

Deno.test("a Gemini BeforeAgent is recorded as UserPromptSubmit and an unmapped event keeps its own name", async () => {
  await withHome(
    {
      gemini: agentEntry({
        session_env: "GEMINI_SESSION_ID",
        events: { SessionStart: "SessionStart", BeforeAgent: "UserPromptSubmit", AfterAgent: "Stop" },
        inject: "hook-specific-output",
      }),
    },
    async (home) => {
      const dump = fixture("gemini/headless/hook-dumps/1795990926210206764-BeforeAgent.json");
      const prompt = await runHook(home, ["gemini"], { stdin: JSON.stringify(dump.stdin) });
      const event = onlyEvent(prompt);
      assert.equal(event.event, "UserPromptSubmit");
      assert.equal(event.raw_event, "BeforeAgent");
      assert.equal(event.agent_session_id, "cfd0cbb6-df46-453b-a494-13f457218713");
      assert.equal(event.asm_id, uuid5(NAMESPACE, "gemini:cfd0cbb6-df46-453b-a494-13f457218713"));
      assert.equal(event.cwd, "/tmp/gmfx/proj-a");
      assert.equal(event.source, null);
      assert.deepEqual(event.payload, dump.stdin);
      assert.equal(prompt.stdout, "");
      clearRuns(home);
      const model = fixture("gemini/headless/hook-dumps/1795990932248748556-BeforeModel.json");
      const unmapped = await runHook(home, ["gemini", "BeforeModel"], { stdin: JSON.stringify(model.stdin) });
      assert.equal(onlyEvent(unmapped).event, "BeforeModel");
      assert.equal(onlyEvent(unmapped).raw_event, "BeforeModel");
      clearRuns(home);
      const odd = await runHook(home, ["gemini"], {
        stdin: '{"session_id":"s1","hook_event_name":"constructor"}',
      });
      assert.equal(onlyEvent(odd).event, "constructor", "the map is looked up by its own keys only");
    },
  );
});

Deno.test("Codex notify is read from the last argument, mapped to Stop, and does not wait on an open stdin", async () => {
  await withHome(
    {
      codex: agentEntry({
        events: { Stop: "Stop", "agent-turn-complete": "Stop" },
        inject: "hook-specific-output",
      }),
    },
    async (home) => {
      const dump = fixture("codex/hook-dumps/dumps-3/notify-1795990478956992450-17050.json");
      const json = (dump.argv as string[])[2];
      const outcome = await runHook(home, ["codex", "notify", json], { stdin: "never-closes" });
      // below the 3 s stdin timeout: the hook never waited on the pipe
      assert.ok(outcome.ms < 3000, `took ${outcome.ms} ms: the hook waited on stdin`);
      assert.equal(outcome.stdout, "");
      const event = onlyEvent(outcome);
      assert.equal(event.event, "Stop");
      assert.equal(event.raw_event, "agent-turn-complete");
      assert.equal(event.source, "notify");
      assert.equal(event.agent_session_id, "01a2295f-c096-7221-af5e-d71776e7db1a");
      assert.equal(event.asm_id, uuid5(NAMESPACE, "codex:01a2295f-c096-7221-af5e-d71776e7db1a"));
      assert.equal(event.cwd, "/tmp/cx-work/proj3");
      assert.equal(event.transcript_path, null);
      assert.deepEqual(event.payload, dump.argv1_json);
      assert.equal(onlyLog(outcome).ok, true);
    },
  );
});

Deno.test("a Codex hook payload on stdin gives its session id, source and transcript", async () => {
  await withHome({ codex: agentEntry({ events: { SessionEnd: "SessionEnd" } }) }, async (home) => {
    const dump = fixture("codex/hook-dumps/dumps-3/hook-SessionEnd-1795990504463460263-18794.json");
    const outcome = await runHook(home, ["codex"], { stdin: dump.stdin_raw as string });
    const event = onlyEvent(outcome);
    const payload = dump.stdin_json as Record<string, unknown>;
    assert.equal(event.event, "SessionEnd");
    assert.equal(event.source, payload.reason);
    assert.equal(event.agent_session_id, payload.session_id);
    assert.equal(event.transcript_path, payload.transcript_path);
  });
});

Deno.test("the session id falls back to the agent's session variable, and without any the asm id is null", async () => {
  await withHome(claudeLike(), async (home) => {
    const payload = JSON.parse(claudePayload("UserPromptSubmit"));
    delete payload.session_id;
    const fromEnv = await runHook(home, ["claude"], {
      stdin: JSON.stringify(payload),
      env: { CLAUDE_CODE_SESSION_ID: "0f9e8d7c-env-session" },
    });
    assert.equal(onlyEvent(fromEnv).agent_session_id, "0f9e8d7c-env-session");
    assert.equal(onlyEvent(fromEnv).asm_id, uuid5(NAMESPACE, "claude:0f9e8d7c-env-session"));
    clearRuns(home);
    const none = await runHook(home, ["claude"], { stdin: JSON.stringify(payload) });
    assert.equal(onlyEvent(none).agent_session_id, null);
    assert.equal(onlyEvent(none).asm_id, null);
    assert.equal(onlyLog(none).ok, true);
  });
});

Deno.test("without hook-agents.json the event is still written, with null pid fields, and the log says why", async () => {
  await withHome(null, async (home) => {
    Deno.mkdirSync(`${home.dir}/rules`);
    Deno.writeTextFileSync(`${home.dir}/rules/01.md`, "Rule one.");
    const outcome = await runHook(home, ["claude"], {
      stdin: claudePayload("SessionStart"),
      env: { CLAUDE_PID: "1", CLAUDE_CODE_SESSION_ID: "ignored-without-config" },
    });
    assert.equal(outcome.code, 0);
    assert.equal(outcome.stdout, "", "the injection format is unknown without the config");
    const event = onlyEvent(outcome);
    assert.deepEqual(Object.keys(event).sort(), [...EVENT_KEYS].sort());
    assert.equal(event.agent_session_id, "cb871653-c018-4b00-b2c0-436d50121d59");
    for (
      const key of ["agent_pid", "agent_proc_start", "nested", "pid_shared", "pid_env_match", "entrypoint"]
    ) {
      assert.equal(event[key], null, key);
    }
    assert.ok((event.ancestors as unknown[]).length > 0);
    const line = onlyLog(outcome);
    assert.equal(line.ok, false);
    assert.equal(line.event_id, event.event_id);
    assert.match(String(line.error), /hook-agents\.json: it does not exist/);
  });
});

Deno.test("empty stdin writes nothing, prints nothing, exits 0 and logs the failure", async () => {
  await withHome(claudeLike(), async (home) => {
    assertFailure(await runHook(home, ["claude"], { stdin: "" }), /empty stdin/);
    clearRuns(home);
    assertFailure(await runHook(home, ["claude"]), /empty stdin/);
  });
});

Deno.test("malformed JSON and a payload that is not an object write nothing and log the failure", async () => {
  await withHome(claudeLike(), async (home) => {
    assertFailure(
      await runHook(home, ["claude", "Stop"], { stdin: '{"session_id": "abc", ' }),
      /malformed JSON/,
    );
    clearRuns(home);
    const line = assertFailure(
      await runHook(home, ["claude", "Stop"], { stdin: "[1, 2]" }),
      /not a JSON object/,
    );
    assert.equal(line.event, "Stop", "the event hint still names the run");
  });
});

Deno.test("a 10 MB payload is refused with its size in the log and nothing written", async () => {
  await withHome(claudeLike(), async (home) => {
    const big = new TextEncoder().encode(
      payloadWith("UserPromptSubmit", { prompt: "x".repeat(10 * 1024 * 1024) }),
    );
    const line = assertFailure(await runHook(home, ["claude"], { stdin: big }), /payload too large/);
    assert.match(String(line.error), new RegExp(`${big.length} bytes`));
  });
});

Deno.test("an unknown agent, or none, writes nothing and logs the failure", async () => {
  await withHome(claudeLike(), async (home) => {
    const line = assertFailure(
      await runHook(home, ["nobody"], { stdin: claudePayload("SessionStart") }),
      /unknown agent "nobody"/,
    );
    assert.equal(line.agent, "nobody");
    clearRuns(home);
    assertFailure(await runHook(home, [], { stdin: claudePayload("SessionStart") }), /no agent argument/);
  });
});

Deno.test("an unwritable inbox is logged, leaves nothing behind and the hook still exits 0", async () => {
  await withHome(claudeLike(), async (home) => {
    // tests run as root, which ignores permission bits: a regular file where the folder should be cannot be beaten
    Deno.writeTextFileSync(`${home.dir}/inbox`, "");
    const outcome = await runHook(home, ["claude"], { stdin: claudePayload("UserPromptSubmit") });
    assertFailure(outcome, /cannot write the event into .*inbox/);
    assert.equal(Deno.readTextFileSync(`${home.dir}/inbox`), "");
  });
});

Deno.test("a stdin that never closes ends the hook within 4 seconds with a logged timeout", async () => {
  await withHome(claudeLike(), async (home) => {
    const outcome = await runHook(home, ["claude"], { stdin: "never-closes" });
    assert.ok(outcome.ms < 4000, `took ${outcome.ms} ms`);
    assertFailure(outcome, /stdin timed out/);
  });
});

Deno.test("a failure on an ASM_HOME that does not exist yet is still logged there", async () => {
  await withHome(claudeLike(), async (home) => {
    const fresh = `${home.dir}/not/yet/made`;
    const outcome = await runHook(home, [], {
      stdin: "",
      env: { ASM_HOME: fresh, DENO_DIR },
      via: {
        exe: Deno.execPath(),
        args: ["run", "-A", "--no-config", "--no-lock", "--no-prompt", HOOK, "claude"],
      },
    });
    assert.equal(outcome.code, 0);
    assert.equal(outcome.stdout, "");
    const lines = Deno.readTextFileSync(`${fresh}/hook.log`).trim().split("\n");
    assert.equal(lines.length, 1);
    assert.match(JSON.parse(lines[0]).error, /empty stdin/);
  });
});

Deno.test({
  name: "a terminal on stdin is not waited on: the hook logs it and writes nothing",
  // util-linux `script` (Debian's bsdutils, an essential package) gives the hook a pseudo-terminal as stdin; it
  // runs everywhere the suite runs, never skipped
  fn: async () => {
    await withHome(claudeLike(), async (home) => {
      const outcome = await runHook(home, [], {
        via: { exe: "/usr/bin/script", args: ["-qec", `"$HOOK" claude`, "/dev/null"] },
      });
      assert.ok(outcome.ms < 3000, `took ${outcome.ms} ms`);
      assertFailure(outcome, /stdin is a terminal/);
    });
  },
});

Deno.test("a hook log past 10 MiB moves to hook.log.1 and the run's line starts a new one", async () => {
  await withHome(claudeLike(), async (home) => {
    const log = `${home.dir}/hook.log`;
    const old = "x".repeat(1023) + "\n";
    Deno.writeTextFileSync(log, old.repeat(10 * 1024)); // exactly 10 MiB: the next line passes the limit
    const outcome = await runHook(home, ["claude"], { stdin: claudePayload("UserPromptSubmit") });
    assert.equal(outcome.code, 0);
    assert.equal(Deno.statSync(`${log}.1`).size, 10 * 1024 * 1024, "the old log, whole");
    const lines = Deno.readTextFileSync(log).trim().split("\n");
    assert.equal(lines.length, 1);
    assert.equal(JSON.parse(lines[0]).event, "UserPromptSubmit");
  });
});

Deno.test("a hook orphaned before it looks (its parent now another than the one that ran it) records no judged process", async () => {
  await withHome(claudeLike({ exe: ["/nowhere/no-such-agent"] }), async (home) => {
    const direct = (ranBy: string) =>
      runHook(home, [], {
        stdin: claudePayload("UserPromptSubmit"),
        env: { ASM_HOME: home.dir, DENO_DIR, ASM_HOOK_PARENT: ranBy },
        via: {
          exe: Deno.execPath(),
          args: ["run", "-A", "--no-config", "--no-lock", "--no-prompt", HOOK, "claude"],
        },
      });
    // the parent the wrapper saw is not the hook's parent now: orphaned, adopted by whatever is above
    assert.equal(onlyEvent(await direct("1")).judged_pid, null);
    clearRuns(home);
    // the same parent: the hook's parent (this test runner) is judged
    assert.equal(onlyEvent(await direct(String(Deno.pid))).judged_pid, Deno.pid);
  });
});
