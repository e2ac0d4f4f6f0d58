/**
 * The universal hook: every agent runs it on start / prompt / stop / end, through the quote-free wrapper
 * `$ASM_HOME/bin/asm-hook <agent> [event-hint] [json-arg]` (docs/runbook.md section 3).
 *
 * It RECORDS, it never decides: one event file in `$ASM_HOME/inbox/` (tmp then rename), one line in
 * `$ASM_HOME/hook.log`, and on SessionStart the standing rules on stdout. It never reads the database, never talks
 * to the server, and exits 0 whatever happened, because a non-zero hook can block or confuse the agent.
 *
 * This file is self-contained on purpose (no project imports, no npm): it runs in the agent's cwd with
 * `--no-config --no-lock`, and every import would add load time to every prompt the user ever types.
 * @module
 */

/** asm ids are uuid5 in this namespace; lib/ledger/identity.ts must compute the same value (a test cross-checks). */
const NAMESPACE = "5b0e3f4e-8c1d-5a6e-9f3b-2d7c4a1e6b90";
const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;
const READ_TIMEOUT_MS = 3000;
/** How far up the ancestry the hook looks for agents and launch tokens; only the nearest 8 are recorded. */
const WALK_DEPTH = 32;
const RECORDED_ANCESTORS = 8;
const TOKEN_PATTERN = /^asmlt_[0-9a-z]+$/;
/** The largest standing-rules file injected; a larger one is skipped whole, never cut. */
const MAX_RULES_BYTES = 64 * 1024;
/**
 * Kernel pseudo-files report themselves as small regular files owned by the user (`/proc/self/environ` holds the
 * agent's API keys), so no rules file may live there, whatever folder the session claims to run in.
 */
const KERNEL_FOLDERS = ["/proc/", "/sys/", "/dev/"];

interface AgentConfig {
  exe: RegExp[];
  script: RegExp[];
  shared: boolean;
  events: Record<string, string>;
  sessionEnv: string;
  pidEnv: string;
  entrypointEnv: string;
  inject: string;
}

interface Ancestor {
  pid: number;
  exe: string | null;
  created: number | null;
  ppid: number;
}

interface LogLine {
  ts: string;
  agent: string | null;
  event: string | null;
  event_id: string | null;
  asm_id: string | null;
  ok: boolean;
  error: string | null;
  hook_ms: number;
}

const asmHome = Deno.env.get("ASM_HOME") || `${Deno.env.get("HOME") ?? ""}/.asm`;

const log: LogLine = {
  ts: isoNow(),
  agent: null,
  event: null,
  event_id: null,
  asm_id: null,
  ok: false,
  error: null,
  hook_ms: 0,
};
const failures: string[] = [];

// The hook runs when it is the program (the wrapper runs it); hook_test.ts imports it only for its glob matcher.
if (import.meta.main) {
  // A pending stdin read must never surface as an error after the timeout has already decided the run.
  globalThis.addEventListener("unhandledrejection", (e) => e.preventDefault());
  try {
    await run();
  } catch (err) {
    failures.push(`unexpected error: ${errorText(err)}`);
  }
  log.ok = failures.length === 0;
  log.error = failures.length ? failures.join("; ") : null;
  log.hook_ms = elapsedMs();
  appendLog(JSON.stringify(log) + "\n");
  // exit explicitly: a stdin read still pending after the timeout would otherwise keep the process alive
  Deno.exit(0);
}

async function run(): Promise<void> {
  const args = Deno.args;
  const agent = args[0] || null;
  log.agent = agent;
  if (!agent) {
    failures.push(
      "no agent argument: the wrapper must be called as `asm-hook <agent> [event-hint] [json-arg]`",
    );
    return;
  }
  // Codex's notify appends its JSON as the last argument and sends nothing on stdin; when the argument is
  // there, stdin is not read at all, so an inherited pipe that never closes cannot stall the turn.
  const last = args.length > 1 ? args[args.length - 1] : "";
  const fromArgv = last.trimStart().startsWith("{");
  const hint = args.length > 1 && !(fromArgv && args.length === 2) ? args[1] : null;
  log.event = hint;

  let text: string;
  if (fromArgv) {
    text = last;
  } else {
    const input = await readStdin();
    if (input.error) {
      failures.push(input.error);
      return;
    }
    text = input.text;
  }
  if (text.trim() === "") {
    failures.push("empty stdin: the agent sent no payload, nothing written");
    return;
  }
  let payload: Record<string, unknown>;
  try {
    const parsed = JSON.parse(text);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      failures.push("malformed JSON payload: not a JSON object, nothing written");
      return;
    }
    payload = parsed;
  } catch (err) {
    failures.push(`malformed JSON payload (${errorText(err)}), nothing written`);
    return;
  }

  const configs = readAgentConfigs();
  const config = configs ? configs.get(agent) : undefined;
  if (configs && !config) {
    failures.push(`unknown agent "${agent}": not in ${asmHome}/hook-agents.json, nothing written`);
    return;
  }

  const rawEvent = str(payload.hook_event_name) ?? str(payload.type) ?? hint;
  // own keys only: an agent's event named "constructor" must not find Object.prototype's
  const event = rawEvent !== null && config && Object.hasOwn(config.events, rawEvent)
    ? config.events[rawEvent]
    : rawEvent;
  log.event = event;
  const agentSessionId = str(payload.session_id) ?? str(payload["thread-id"]) ?? str(payload.thread_id) ??
    str(payload.sessionId) ?? envOf(config?.sessionEnv);
  const asmId = agentSessionId === null ? null : await uuid5(NAMESPACE, `${agent}:${agentSessionId}`);
  log.asm_id = asmId;
  const cwd = str(payload.cwd) ?? ownCwd();

  const chain = walkAncestry();
  const proof = configs && config ? findAgent(chain, agent, configs) : null;
  const agentPid = proof?.agent ? proof.agent.pid : null;
  const judged = judgedProcess(chain);
  const pidEnvValue = envOf(config?.pidEnv);
  const eventId = crypto.randomUUID();

  const record = {
    v: 1,
    event_id: eventId,
    asm_id: asmId,
    agent,
    event,
    raw_event: rawEvent,
    ts: log.ts,
    agent_session_id: agentSessionId,
    transcript_path: str(payload.transcript_path),
    cwd,
    source: str(payload.source) ?? str(payload.reason) ?? (fromArgv ? "notify" : null),
    launch_token: envOf("ASM_LAUNCH_TOKEN") ?? findToken(chain),
    session_name: envOf("ASM_SESSION_NAME"),
    agent_pid: agentPid,
    agent_proc_start: proof?.agent ? proof.agent.created : null,
    judged_pid: judged ? judged.pid : null,
    judged_proc_start: judged ? judged.created : null,
    boot_id: readBootId(),
    ancestors: chain.slice(0, RECORDED_ANCESTORS).map((a) => ({
      pid: a.pid,
      exe: a.exe,
      created: a.created,
    })),
    nested: proof ? proof.nested : null,
    entrypoint: envOf(config?.entrypointEnv),
    pid_shared: agentPid !== null && config ? config.shared : null,
    pid_env_match: pidEnvValue === null ? null : agentPid !== null && String(agentPid) === pidEnvValue.trim(),
    rules_skipped: null as string | null,
    hook_ms: 0,
    payload,
  };
  // the rules are read before the event is written, so the event can say which of them were skipped
  const rules = event === "SessionStart" && config?.inject === "hook-specific-output"
    ? await readRules(cwd)
    : null;
  if (rules && rules.skipped.length > 0) {
    failures.push(...rules.skipped);
    record.rules_skipped = rules.skipped.join("; ");
  }
  writeEvent(record, eventId);

  if (rules) printRules(rules.text);
}

function appendLog(line: string): void {
  const path = `${asmHome}/hook.log`;
  // the log moves to hook.log.1 past this size (every hook run adds a line, for months); a constant inside, as
  // the hook's main part runs before the module's later declarations are reached
  const maxBytes = 10 * 1024 * 1024;
  // 0600: the log names the user's folders and sessions; Deno also applies the mode to a log that already exists
  const options = { append: true, create: true, mode: 0o600 };
  try {
    // rotated by size, one generation kept (lib/files/rotate.ts does the same for the server: this file imports
    // nothing); a hook that loses the race to rotate only appends to the new file
    if (Deno.statSync(path).size + line.length > maxBytes) Deno.renameSync(path, `${path}.1`);
  } catch {
    // no log yet, or another hook moved it first
  }
  try {
    Deno.writeTextFileSync(path, line, options);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) return; // nowhere left to report: stdout belongs to the agent
    // a failure before the inbox was made, on a fresh ASM_HOME: make the folder so the failure is still seen
    try {
      Deno.mkdirSync(asmHome, { recursive: true, mode: 0o700 });
      Deno.writeTextFileSync(path, line, options);
    } catch {
      // as above
    }
  }
}

/** Reads stdin up to EOF, bounded by size and time; a TTY is never read (an interactive stdin has no payload). */
async function readStdin(): Promise<{ text: string; error: string | null }> {
  try {
    if (Deno.stdin.isTerminal()) {
      return { text: "", error: "stdin is a terminal, not a payload: nothing written" };
    }
  } catch {
    // a closed stdin cannot tell: read it and let EOF or the error answer
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  // AbortSignal.timeout, not setTimeout: the first setTimeout of a Deno process costs ~12 ms (measured), a
  // third of the hook's budget; the signal's timer is also unref'd, so it cannot keep the process alive
  const deadline = AbortSignal.timeout(READ_TIMEOUT_MS);
  const timeout = new Promise<"timeout">((resolve) =>
    deadline.addEventListener("abort", () => resolve("timeout"))
  );
  // past the limit the bytes are only drained: one buffer, read into again and again, keeps memory flat
  const drained = new Uint8Array(65536);
  try {
    while (true) {
      const buffer = size <= MAX_PAYLOAD_BYTES ? new Uint8Array(65536) : drained;
      const n = await Promise.race([Deno.stdin.read(buffer), timeout]);
      if (n === "timeout") {
        const over = size > MAX_PAYLOAD_BYTES
          ? `, and already ${size} bytes (limit ${MAX_PAYLOAD_BYTES})`
          : "";
        return {
          text: "",
          error:
            `stdin timed out: not closed after ${READ_TIMEOUT_MS} ms (${size} bytes read${over}), nothing written`,
        };
      }
      if (n === null) break;
      size += n;
      // keep draining past the limit so the agent's write does not fail, but stop keeping the bytes
      if (size <= MAX_PAYLOAD_BYTES) chunks.push(buffer.subarray(0, n));
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.BadResource)) {
      return { text: "", error: `cannot read stdin: ${errorText(err)}, nothing written` };
    }
  }
  if (size > MAX_PAYLOAD_BYTES) {
    return {
      text: "",
      error:
        `payload too large: ${size} bytes on stdin, over the ${MAX_PAYLOAD_BYTES}-byte limit, nothing written`,
    };
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.length;
  }
  return { text: new TextDecoder().decode(all), error: null };
}

/** `hook-agents.json` as compiled matchers, or null (logged) when it is missing or unreadable. */
function readAgentConfigs(): Map<string, AgentConfig> | null {
  const path = `${asmHome}/hook-agents.json`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Deno.readTextFileSync(path));
  } catch (err) {
    const why = err instanceof Deno.errors.NotFound
      ? "it does not exist (run `asm install`)"
      : errorText(err);
    failures.push(`cannot read ${path}: ${why}; event written without agent pid fields`);
    return null;
  }
  const agents = (parsed as { agents?: unknown } | null)?.agents;
  if (!agents || typeof agents !== "object") {
    failures.push(`${path} has no "agents" object; event written without agent pid fields`);
    return null;
  }
  const configs = new Map<string, AgentConfig>();
  for (const [name, raw] of Object.entries(agents as Record<string, Record<string, unknown>>)) {
    if (!raw || typeof raw !== "object") continue;
    const events: Record<string, string> = {};
    if (raw.events && typeof raw.events === "object") {
      for (const [from, to] of Object.entries(raw.events)) if (typeof to === "string") events[from] = to;
    }
    configs.set(name, {
      exe: globs(raw.exe),
      script: globs(raw.script),
      shared: raw.shared === true,
      events,
      sessionEnv: typeof raw.session_env === "string" ? raw.session_env : "",
      pidEnv: typeof raw.pid_env === "string" ? raw.pid_env : "",
      entrypointEnv: typeof raw.entrypoint_env === "string" ? raw.entrypoint_env : "",
      inject: typeof raw.inject === "string" ? raw.inject : "none",
    });
  }
  return configs;
}

function globs(value: unknown): RegExp[] {
  if (!Array.isArray(value)) return [];
  return value.filter((g): g is string => typeof g === "string" && g !== "").map(globToRegExp);
}

/**
 * An anchored glob, answering as lib/agents/glob.ts does (`node:path` `matchesGlob`; both run every case of
 * lib/agents/_glob_cases.json): a name `**` is any number of whole folders, none included; elsewhere `*` is any run
 * of characters inside one name and `?` one character; `[...]` is a class (`[!...]` or `[^...]` negates, a `]`
 * first is a member, an unclosed `[` is itself); a name that starts with a dot is matched like any other.
 */
export function globToRegExp(glob: string): RegExp {
  const names = glob.split("/");
  let source = "";
  for (const [i, name] of names.entries()) {
    const last = i === names.length - 1;
    if (name === "**") source += last ? ".*" : "(?:.*/)?";
    else source += nameSource(name) + (last ? "" : "/");
  }
  try {
    return new RegExp(`^${source}$`);
  } catch {
    return /(?!)/; // a class no character can match (`[z-a]`): the glob matches nothing
  }
}

/** One name of a glob (no "/") as a regular expression. */
function nameSource(name: string): string {
  let source = "";
  for (let i = 0; i < name.length; i++) {
    const c = name[i];
    if (c === "*") {
      while (name[i + 1] === "*") i++; // "**" inside a name is one "*"
      source += "[^/]*";
    } else if (c === "?") {
      source += "[^/]";
    } else if (c === "[") {
      const negate = name[i + 1] === "!" || name[i + 1] === "^";
      const first = i + (negate ? 2 : 1); // a "]" here is a member, not the end
      const end = name.indexOf("]", first + 1);
      if (end === -1) {
        source += "\\[";
        continue;
      }
      source += `[${negate ? "^" : ""}${name.slice(first, end).replace(/[\\\]^]/g, "\\$&")}]`;
      i = end;
    } else {
      source += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
    }
  }
  return source;
}

/** The hook's ancestors, nearest first, starting at its parent; stops at pid 1 or a vanished process. */
function walkAncestry(): Ancestor[] {
  const chain: Ancestor[] = [];
  let pid = Deno.ppid;
  while (pid > 0 && chain.length < WALK_DEPTH) {
    const stat = readStat(pid);
    if (!stat) break;
    let exe: string | null = null;
    try {
      exe = Deno.readLinkSync(`/proc/${pid}/exe`);
    } catch {
      // a kernel thread, a zombie or another user's process: the exe stays unknown
    }
    chain.push({ pid, exe, created: stat.start, ppid: stat.ppid });
    if (pid === 1) break;
    pid = stat.ppid;
  }
  return chain;
}

/** Fields 4 (ppid) and 22 (start ticks) of /proc/<pid>/stat. */
function readStat(pid: number): { ppid: number; start: number | null } | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
  // comm (field 2) may hold spaces and parentheses; everything after the LAST ")" is plain fields from 3 on
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const ppid = Number(fields[1]);
  const start = Number(fields[19]);
  if (!Number.isInteger(ppid)) return null;
  return { ppid, start: Number.isInteger(start) ? start : null };
}

function readArgv(pid: number): string[] {
  try {
    const raw = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
    const argv = raw.split("\0");
    if (argv[argv.length - 1] === "") argv.pop();
    return argv;
  } catch {
    return [];
  }
}

/**
 * The process the session is judged by: the nearest ancestor that is not the one-off command the agent ran the
 * hook through (`sh -c '…/asm-hook claude'`, or a shell running the wrapper file), whether or not the globs know
 * it: for all three agents today, the agent itself. It carries no proof that it IS the agent (END proves that
 * again before any signal); it only says which process's death ends the session, so a session whose agent the
 * globs miss is lost when that process goes instead of live for ever. Null when the hook was orphaned (its
 * parent is pid 1: the agent is already gone, as on Gemini's last SessionEnd) or its start time is unreadable.
 */
function judgedProcess(chain: Ancestor[]): { pid: number; created: number } | null {
  // orphaned since the wrapper started (its parent exited, and pid 1 or a subreaper such as `systemd --user`
  // adopted the hook): whatever is above now is not what ran it
  const ranBy = Number(Deno.env.get("ASM_HOOK_PARENT") ?? "");
  if (Number.isInteger(ranBy) && ranBy > 0 && Deno.ppid !== ranBy) return null;
  for (const ancestor of chain) {
    if (ancestor.pid <= 1) return null;
    if (runsTheWrapper(readArgv(ancestor.pid))) continue;
    return ancestor.created === null ? null : { pid: ancestor.pid, created: ancestor.created };
  }
  return null;
}

/**
 * A one-off process running the wrapper: a shell given a command (`sh -c`, `bash -lc`, `bash -c -l`, `bash
 * --login -c`: a short-flag group holding `c`, then an argument naming the wrapper), or `sh <…/asm-hook> …`.
 */
function runsTheWrapper(argv: string[]): boolean {
  if ((argv[1] ?? "").endsWith("/asm-hook")) return true;
  const flag = argv.findIndex((a, i) => i > 0 && /^-[a-z]*c[a-z]*$/.test(a));
  return flag > 0 && argv.slice(flag + 1).some((a) => a.includes("asm-hook"));
}

/**
 * The nearest ancestor proven to be this agent, and whether the ancestry holds two agent instances.
 * A match whose direct child in the chain is a match of the same agent is the same instance, not a nested one:
 * Gemini runs as a launcher node plus a child node, and a Codex TUI is the parent of its app-server daemon.
 */
function findAgent(
  chain: Ancestor[],
  agent: string,
  configs: Map<string, AgentConfig>,
): { agent: Ancestor | null; nested: boolean } {
  const own = configs.get(agent)!;
  let found: Ancestor | null = null;
  let instances = 0;
  let previous: string | null = null;
  for (const ancestor of chain) {
    // the hook's own agent first: a process matching two agents' globs counts as the one that called
    let matched: string | null = matches(ancestor, own) ? agent : null;
    for (const [name, config] of configs) {
      if (matched !== null) break;
      if (name !== agent && matches(ancestor, config)) matched = name;
    }
    if (matched !== null && matched !== previous) instances++;
    if (matched === agent && !found) found = ancestor;
    previous = matched;
  }
  return { agent: found, nested: instances >= 2 };
}

function matches(ancestor: Ancestor, config: AgentConfig): boolean {
  const exe = ancestor.exe;
  if (exe === null || !config.exe.some((re) => re.test(exe))) return false;
  if (config.script.length === 0) return true;
  const script = scriptOf(ancestor.pid);
  return script !== null && config.script.some((re) => re.test(script));
}

/** realpath of the first non-option argument after argv[0], resolved against the process's own cwd. */
function scriptOf(pid: number): string | null {
  const arg = readArgv(pid).slice(1).find((a) => !a.startsWith("-"));
  if (!arg) return null;
  try {
    return Deno.realPathSync(arg.startsWith("/") ? arg : `/proc/${pid}/cwd/${arg}`);
  } catch {
    return null;
  }
}

/**
 * The token of the nearest ancestor that is a launch's own process: the launcher (`/bin/sh <token>.sh <token>`)
 * or the shim (`deno run ... shim.ts <token> ...`), as lib/launch `launchedBy` has it. Never a process that only
 * mentions a token: the tmux server a launch started keeps that launch's command line, and a window the person
 * opened in it runs below it.
 */
function findToken(chain: Ancestor[]): string | null {
  for (const ancestor of chain) {
    const argv = readArgv(ancestor.pid);
    if (argv.length === 3 && TOKEN_PATTERN.test(argv[2]) && argv[1].endsWith(`/${argv[2]}.sh`)) {
      return argv[2];
    }
    if (argv[1] !== "run") continue;
    const shim = argv.findIndex((a) => a === "shim.ts" || a.endsWith("/shim.ts"));
    if (shim > 1 && TOKEN_PATTERN.test(argv[shim + 1] ?? "")) return argv[shim + 1];
  }
  return null;
}

function readBootId(): string | null {
  try {
    return Deno.readTextFileSync("/proc/sys/kernel/random/boot_id").trim() || null;
  } catch {
    return null;
  }
}

function writeEvent(record: { hook_ms: number }, eventId: string): void {
  const inbox = `${asmHome}/inbox`;
  const tmp = `${inbox}/${eventId}.json.tmp`;
  try {
    // private: an event carries the user's prompts, folders and environment-derived ids
    Deno.mkdirSync(inbox, { recursive: true, mode: 0o700 });
    record.hook_ms = elapsedMs();
    Deno.writeTextFileSync(tmp, JSON.stringify(record) + "\n", { mode: 0o600 });
    Deno.renameSync(tmp, `${inbox}/${eventId}.json`);
    log.event_id = eventId;
  } catch (err) {
    failures.push(`cannot write the event into ${inbox}: ${errorText(err)}`);
    try {
      Deno.removeSync(tmp);
    } catch {
      // there was no tmp file to leave behind
    }
  }
}

/** The standing rules' text, and one sentence per rules file that was refused. */
interface StandingRules {
  text: string;
  skipped: string[];
}

type NodeFs = typeof import("node:fs");

/** A rules file read: its text, or why it was skipped. */
type RulesFile = { text: string } | { why: string };

/**
 * Standing rules: $ASM_HOME/rules/*.md by name, then <cwd>/.asm/rules.md. The cwd comes from the agent's payload
 * and the project folder from whoever wrote the repository, so every file is opened without following a link,
 * without blocking, and checked before a byte of it reaches the model (see readRulesFile). A refused file is
 * skipped with its reason; the others still apply.
 */
async function readRules(cwd: string | null): Promise<StandingRules> {
  const dir = `${asmHome}/rules`;
  let fs: NodeFs;
  try {
    // loaded here, not at the top: node:fs costs ~15 ms to load, and only SessionStart needs it
    fs = await import("node:fs");
  } catch (err) {
    // no safe way to open them, so none is read; the event is still written
    return { text: "", skipped: [`standing rules skipped: node:fs could not be loaded (${errorText(err)})`] };
  }
  const skipped: string[] = [];
  const paths: string[] = [];
  try {
    const names = [...Deno.readDirSync(dir)]
      .filter((e) => e.name.endsWith(".md"))
      .map((e) => e.name)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) paths.push(`${dir}/${name}`);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      skipped.push(`standing rules skipped: ${dir} cannot be listed (${errorText(err)})`);
    }
  }
  if (cwd) paths.push(`${cwd}/.asm/rules.md`);
  const roots: string[] = [];
  for (const root of [dir, cwd]) {
    const real = root === null ? null : realPathOrNull(root);
    if (real !== null) roots.push(real);
  }
  const parts: string[] = [];
  for (const path of paths) {
    let file: RulesFile | null;
    try {
      file = readRulesFile(fs, path, roots, dir);
    } catch (err) {
      // an fstat or close that failed: this file is skipped, the event and the other rules still go ahead
      file = { why: `cannot be read (${errorText(err)})` };
    }
    if (file === null) continue;
    if ("why" in file) skipped.push(`standing rules skipped: ${path} ${file.why}`);
    else parts.push(file.text);
  }
  const text = parts.map((p) => p.trim()).filter((p) => p !== "").join("\n\n");
  return { text, skipped };
}

/**
 * One rules file's text, a reason to skip it, or null when it does not exist. Opened O_NOFOLLOW | O_NONBLOCK: a
 * link is refused by the kernel (ELOOP) and a FIFO opens without waiting for a writer, so fstat can name it. A
 * link is followed only when its real path lies in one of `roots` (the session's folder, the rules folder).
 */
function readRulesFile(
  fs: NodeFs,
  path: string,
  roots: string[],
  rulesDir: string,
): RulesFile | null {
  const flags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
  let fd: number;
  try {
    fd = fs.openSync(path, flags);
  } catch (err) {
    const code = (err as { code?: string }).code;
    // ENOTDIR: `.asm` is a file, so there is no rules.md under it
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    if (code !== "ELOOP") return { why: `cannot be opened (${errorText(err)})` };
    let real: string;
    try {
      real = Deno.realPathSync(path);
    } catch (linkErr) {
      return { why: `is a link that leads nowhere (${errorText(linkErr)})` };
    }
    if (!insideAny(real, roots)) {
      return { why: `is a link outside the session's folder and ${rulesDir} (to ${real})` };
    }
    try {
      fd = fs.openSync(real, flags);
    } catch (targetErr) {
      return { why: `is a link to ${real}, which cannot be opened (${errorText(targetErr)})` };
    }
  }
  try {
    return checkRulesFile(fs, fd, path, roots, rulesDir);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The checks on an open rules file: what it is, how many names it has, where it really is, whose it is, how big,
 * whether it is text.
 */
function checkRulesFile(
  fs: NodeFs,
  fd: number,
  path: string,
  roots: string[],
  rulesDir: string,
): RulesFile {
  const stat = fs.fstatSync(fd);
  if (!stat.isFile()) return { why: `is ${fileKind(stat)}, not a regular file` };
  // a hard link is the same file under a second name, wherever the first one lies (a project's rules.md may be
  // /etc/shadow itself): no path check can see that, so only a file with one name is used
  if (stat.nlink !== 1) {
    return { why: `is a hard link (the file has ${stat.nlink} names; a rules file must have one)` };
  }
  // O_NOFOLLOW guards only the last component: `<cwd>/.asm` may itself be a link to /etc. The kernel's own name
  // for the open file is where it really is, with no window for a link to be swapped after the check.
  const real = openedPath(fd) ?? realPathOrNull(path);
  if (real === null || !insideAny(real, roots)) {
    return { why: `lies outside the session's folder and ${rulesDir} (it is ${real ?? "unknown"})` };
  }
  if (KERNEL_FOLDERS.some((folder) => real.startsWith(folder))) {
    return { why: `is a kernel file (${real}), not a rules file` };
  }
  const uid = Deno.uid();
  if (stat.uid !== uid) return { why: `is owned by uid ${stat.uid}, not by this user (uid ${uid})` };
  if (stat.size > MAX_RULES_BYTES) {
    return { why: `is too large: ${stat.size} bytes, over the ${MAX_RULES_BYTES}-byte limit` };
  }
  // one byte more than the limit: a file that grew since fstat is still caught, and is skipped, not cut
  const buffer = new Uint8Array(MAX_RULES_BYTES + 1);
  let size = 0;
  try {
    while (size < buffer.length) {
      const n = fs.readSync(fd, buffer, size, buffer.length - size, null);
      if (n === 0) break;
      size += n;
    }
  } catch (err) {
    return { why: `cannot be read (${errorText(err)})` };
  }
  if (size > MAX_RULES_BYTES) return { why: `is too large: over the ${MAX_RULES_BYTES}-byte limit` };
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(buffer.subarray(0, size)) };
  } catch {
    return { why: "is not UTF-8 text" };
  }
}

function fileKind(stat: { isFIFO(): boolean; isDirectory(): boolean; isSocket(): boolean }): string {
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isDirectory()) return "a folder";
  if (stat.isSocket()) return "a socket";
  return "a device";
}

/** The path the kernel has for an open file descriptor, or null without /proc. */
function openedPath(fd: number): string | null {
  try {
    return Deno.readLinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null; // the caller falls back to realpath
  }
}

function realPathOrNull(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch {
    return null; // a folder that does not exist holds no rules, and is no root to allow links into
  }
}

function insideAny(path: string, roots: string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`));
}

/** Prints the standing rules as one JSON line in the agent's injection format, only when there are any. */
function printRules(text: string): void {
  if (text === "") return;
  const line = JSON.stringify({
    hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: text },
  });
  try {
    const bytes = new TextEncoder().encode(line + "\n");
    let written = 0;
    while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
  } catch (err) {
    failures.push(`cannot print the standing rules: ${errorText(err)}`);
  }
}

/** RFC 4122 version 5: SHA-1 of namespace bytes + name, version and variant bits set. */
async function uuid5(namespace: string, name: string): Promise<string> {
  const ns = namespace.replace(/-/g, "");
  const nameBytes = new TextEncoder().encode(name);
  const input = new Uint8Array(16 + nameBytes.length);
  for (let i = 0; i < 16; i++) input[i] = parseInt(ns.slice(i * 2, i * 2 + 2), 16);
  input.set(nameBytes, 16);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-1", input)).slice(0, 16);
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function str(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function envOf(name: string | undefined): string | null {
  if (!name) return null;
  return Deno.env.get(name) || null;
}

function ownCwd(): string | null {
  try {
    return Deno.cwd();
  } catch {
    return null; // the folder was deleted under the agent
  }
}

/**
 * ISO-8601 UTC with ms, from Date.now() by arithmetic: `new Date().toISOString()` costs ~1.3 ms on its first call
 * in a fresh Deno process (measured), and the hook pays every first call on every prompt.
 */
function isoNow(): string {
  const now = Date.now();
  const ms = now % 86400000;
  // days since 1970-01-01 to a civil date (Howard Hinnant's days_from_civil inverse)
  const z = Math.floor(now / 86400000) + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const two = (n: number) => String(n).padStart(2, "0");
  const time = `${two(Math.floor(ms / 3600000))}:${two(Math.floor(ms / 60000) % 60)}:${
    two(Math.floor(ms / 1000) % 60)
  }`;
  return `${year}-${two(month)}-${two(day)}T${time}.${String(ms % 1000).padStart(3, "0")}Z`;
}

function elapsedMs(): number {
  return Math.round(performance.now() * 10) / 10;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
