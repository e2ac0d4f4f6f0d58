/**
 * The types the rest of asm codes against when it talks about agents. Nothing outside `lib/agents/` names an
 * agent: it reads an {@link AgentConfig} from the registry and asks the registry for the agent's adapter.
 * @module
 */
import type { Env } from "../config/mod.ts";
import type { ProcInfo, ProcSource } from "../procs/mod.ts";
import type { TranscriptCapability } from "../derive/mod.ts";
import type { UsageSource } from "../usage/mod.ts";
import type { Clock } from "../lang/mod.ts";

export type { Env };

/** One agent, as `lib/agents/agents.toml` (and `$ASM_HOME/agents.toml`) describe it. */
export interface AgentConfig {
  /** The table name: the wrapper's first argument and the key everywhere (`claude`, `codex`, `gemini`). */
  name: string;
  /** The name a person reads (`Claude Code`). */
  display: string;
  /** The board tag (`#claude`). */
  tag: string;
  /** Which code under `lib/agents/<adapter>/` handles it; several agents may share one adapter. */
  adapter: string;
  /** Whether asm's tests drive this agent's real binary. */
  tested: boolean;
  /** Globs matched against the realpath of `/proc/<pid>/exe`. */
  exe: string[];
  /** Globs for the script argument of an interpreter; when non-empty, exe AND script must match. */
  script: string[];
  /** The binary is also run by something else the user cares about: never signalled. */
  shared: boolean;
  /** The environment variable holding the session id in the hook's environment, or "". */
  session_env: string;
  /** The environment variable holding the agent's pid in the hook's environment, or "". */
  pid_env: string;
  /** The environment variable holding the agent's entrypoint, or "". */
  entrypoint_env: string;
  /** How a SessionStart hook injects text. */
  inject: "hook-specific-output" | "none";
  /** Keep a compressed copy of every transcript (the agent may delete its own). */
  keep_copies: boolean;
  /** The agent's own hook event name -> asm's normalised name; the installer registers exactly these keys. */
  events: Record<string, string>;
  /** The agent's notify program payload type -> normalised name (not hook events; no trust needed). */
  notify_events: Record<string, string>;
  /** The executable's name on PATH. */
  command: string;
  /** The argv of a one-shot session; `{prompt}` and `{trust_bypass}` are placeholders (see agents.toml). */
  one_shot: string[];
  /** The agent's documented flag to run untrusted hooks, for tests on scratch homes only; "" when none. */
  trust_bypass: string;
  /** Minutes a session asm saw working may go without new evidence or a turn end before it needs attention. */
  stalled_minutes: number;
  /**
   * The skill whose harness-recorded run closes a session out; "" when none (closeout is then null). Whether asm
   * can start it is `skill_command`'s business: the badge reads closed / open either way.
   */
  closeout_skill: string;
  /**
   * When asm offers no closeout action (no closeout skill, or no skill command): why, one sentence for the page
   * and the closeout actions; "" for the generic one.
   */
  closeout_note: string;
  /**
   * What, typed as a prompt, runs a skill ("{skill}" is its name): the closeout actions type it. "" when asm
   * knows no line it can type that runs one (the closeout actions then refuse with `closeout_note`).
   */
  skill_command: string;
  /** The key that stops the agent's turn in its window (a name the terminal view knows: Escape, C-c). */
  interrupt_key: string;
  /** The argv of a one-shot turn in an existing session `{session_id}` (as one_shot); empty when none. */
  one_shot_resume: string[];
  /** The argv of an interactive session asm launches (`{trust_bypass}` as in one_shot); continue-with too. */
  launch_argv: string[];
  /** The argv that reopens the agent's own session `{session_id}`; empty when asm cannot resume it. */
  resume_argv: string[];
  /** Added only when a model is asked for (`{model}`); no model, or "", withholds the flag. */
  model_argv: string[];
  /** Added only when there is a prompt; the shim appends it, as one argument, to the element ending in `{prompt}`. */
  prompt_argv: string[];
  /**
   * The base URL of the agent's plan-usage endpoint; "" = the real one. For tests only (a loopback fake): https,
   * or http to 127.0.0.1, is accepted. Set in `$ASM_HOME/agents.toml`, never through an environment variable.
   */
  usage_base_url: string;
  /**
   * Environment variable names (a trailing `*` is a prefix) a launched session of this agent gets from asm, on
   * top of the built-in allow-list and the person's `[launch] env` (lib/launch/env.ts); default none.
   */
  launch_env: string[];
}

/**
 * What a canary run proved about an installed hook. The installer leaves it unset; the canary (written by the
 * lead) attaches it to an Installed / AlreadyInstalled result.
 */
export interface CanaryOutcome {
  /** "passed": an event file from this agent reached the inbox; "failed": it did not; "skipped": not run. */
  kind: "passed" | "failed" | "skipped";
  /** One plain sentence a person reads (what happened, what to do). */
  detail: string;
  /** The event file that proved it, when one did. */
  eventFile?: string;
}

/** Whether an agent's hooks will actually run, for agents that ask the user to approve hooks (Codex). */
export type TrustState = "trusted" | "needs-review" | "not-applicable";

/** A trust state with the sentence that tells a person what to do about it. */
export interface TrustReport {
  state: TrustState;
  /** Empty when nothing needs doing. */
  advice: string;
}

/** The outcome of installing one agent's hooks. */
export type InstallResult =
  | {
    kind: "Installed";
    agent: string;
    /** The files that were written (each was backed up first). */
    files: string[];
    notes: string[];
    trust?: TrustReport;
    canary?: CanaryOutcome;
  }
  | { kind: "AlreadyInstalled"; agent: string; notes: string[]; trust?: TrustReport; canary?: CanaryOutcome }
  | { kind: "NotInstalled"; agent: string; reason: string };

/** The outcome of removing one agent's hooks. */
export interface UninstallResult {
  /** True when every touched file was put back byte-for-byte from its backup (or deleted when it was absent). */
  restored: boolean;
  notes: string[];
}

/** What an adapter needs to install or uninstall one agent's hooks. */
export interface HookInstallOptions {
  /** Where HOME, CODEX_HOME, GEMINI_CLI_HOME, ASM_HOME come from. */
  env: Env;
  /** Absolute path of `$ASM_HOME/bin/asm-hook`; the command written is `<wrapper> <agent name>`. */
  wrapper: string;
  agent: AgentConfig;
  /** `$ASM_HOME/backups`. */
  backupsDir: string;
  /** The clock for backup names; tests pin it. */
  now?: Clock;
}

/** One agent family's own hook config editing (`lib/agents/<adapter>/hook_config.ts`). */
export interface HookConfigAdapter {
  /** Every file {@link install} may write (the cutover backs each up first and its rollback restores them). */
  configFiles(env: Env): string[];
  /** Additive and reversible: backs the file up first, keeps every other hook and setting. */
  install(options: HookInstallOptions): InstallResult;
  /** Restores the backup when the file is unchanged since the install, else removes only asm's entries. */
  uninstall(options: HookInstallOptions): UninstallResult;
  /** True when every event of the agent has an entry calling the current wrapper (`$ASM_HOME/bin/asm-hook`). */
  isInstalled(env: Env, agent: AgentConfig): boolean;
  /** Present on adapters whose hooks need the user's approval before they run. */
  trustState?(env: Env, agent: AgentConfig): TrustState;
  /** What to tell a person when {@link trustState} says "needs-review". */
  trustAdvice?: string;
}

/** The facts of an event that arrived for a session the ledger has no row for. */
export interface OrphanEvent {
  event: string;
  source: string | null;
  agent_session_id: string;
}

/**
 * An agent's rule for events of sessions the ledger does not know yet: a reason to keep the event as evidence
 * without making a row, or null to apply it (the default for every agent).
 */
export type OrphanEventRule = (event: OrphanEvent, env: Env) => string | null;

/** What a test needs to run an agent offline against a loopback fake model server. */
export interface OfflineSetup {
  /** Which fake serves this agent (`verify/fakes`). */
  fakeKind: "anthropic" | "openai" | "gemini";
  /**
   * Writes the agent's config into the scratch `home` (pointed at `fakeUrl`, `trustFolders` pre-trusted) and
   * returns the environment variables the agent then needs, beyond `HOME`.
   */
  prepare(options: { home: string; fakeUrl: string; trustFolders?: string[] }): Record<string, string>;
  /**
   * The names among what {@link prepare} returns that are not the agent's own `launch_env` (a custom provider's
   * key): a person lists such names in `$ASM_HOME/config.toml` `[launch] env`, and so do the test worlds.
   */
  personEnv: string[];
}

/** What a live session is doing, in asm's terms, before it becomes a word on the page. */
export type ActivityState =
  | "working"
  | "retrying"
  | "waiting"
  /** the agent's last turn ended on an error it gave up on (its own record of the turn says so) */
  | "failed"
  | "idle"
  | "shell"
  | "starting";

/** What an agent's own running-session record says a session is doing. */
export interface ActivityReading {
  /** The state, or null when the agent wrote a value asm does not know (`raw` holds it). */
  state: ActivityState | null;
  /** The agent's own value as written (`busy`, `task_started`, ...), for the log and the tooltip. */
  raw: string;
  /** Why it waits (`permission`, `question`, or the agent's own words); null otherwise. */
  reason: string | null;
  /** When this evidence last changed, ISO-8601 UTC ms; null when the record does not say. */
  at: string | null;
}

/** One running session from the agent's own records, verified against the process table. */
export interface LiveInfo {
  agentSessionId: string;
  /** The process carrying it, whose start ticks matched the table. */
  pid: number;
  procStart: number;
  /** Null when the agent keeps no activity record of its own (the hooks then speak for it). */
  activity: ActivityReading | null;
}

/** A process the agent's own records fully account for, and the sessions they say it carries. */
export interface LiveCarrier {
  procStart: number;
  sessionIds: ReadonlySet<string>;
}

/** What an agent's `live()` found in one poll. */
export interface LiveReport {
  /** Running sessions, by agent session id. */
  sessions: Map<string, LiveInfo>;
  /**
   * Processes whose sessions the agent's records list completely, by pid: a run on such a process whose session
   * is not listed is no longer in it (Claude after `/clear`, a Codex daemon that let the thread go).
   */
  carriers: Map<number, LiveCarrier>;
  /**
   * What could not be read this poll for a correction the report only adds (a retry log, a chat's tail), each a
   * sentence the poll logs once: the rest of the report stands, so a bad file never costs the agent's evidence.
   */
  problems?: string[];
}

/** One session the ledger holds open, as `live()` is told about it. */
export interface OpenSessionRef {
  agentSessionId: string;
  /** From the hooks, when they said. */
  transcriptPath: string | null;
  /** Its open runs. */
  runs: { pid: number; procStart: number }[];
}

/** The process table of one poll: each pid read from /proc at most once (a Map satisfies it). */
export interface ProcLookup {
  get(pid: number): ProcInfo | undefined;
}

/** What `live()` is given: the facts of this poll, so it reads /proc no more than it must. */
export interface LiveQuery {
  agent: AgentConfig;
  /** Where the agent's folders are (HOME, CODEX_HOME, GEMINI_CLI_HOME). */
  env: Env;
  /** The process table of this poll. */
  procs: ProcLookup;
  /** The sessions of this agent the ledger holds open. */
  open: OpenSessionRef[];
  /** /proc itself, for the few files beyond the table (`/proc/locks`); tests hand in a fake. */
  proc: ProcSource;
}

/** What lib/launch needs to know of an agent beyond its agents.toml argv (`lib/agents/<adapter>/launch.ts`). */
export interface LaunchCapability {
  /**
   * The fixed opening line a launch without a prompt sends: one cheap turn, so the window becomes an ordinary
   * session at once. Written here, never taken from a request.
   */
  opener: string;
  /**
   * Why a session started in `folder` will first stop at the agent's own dialog (onboarding, folder trust), as
   * a sentence naming what to answer in the window; null when it will not. asm never answers it for the user.
   */
  waitingReason?(folder: string, env: Env): string | null;
  /** A sentence refusing END for this (proven) agent process, or null when asm may signal it. */
  endRefusal?(proc: { pid: number; exe: string | null; argv: string[] }): string | null;
  /**
   * Adoption: the agent's own record of the one thread this running process holds (`startTicks` must match
   * what the record says, where it says), or null when it holds none, or more than one.
   */
  threadOf?(proc: { pid: number; startTicks: number }, env: Env, source: ProcSource): string | null;
  /**
   * Where the agent would find a skill of this name for a session in `folder`: the file, or null when it has
   * none (the closeout actions refuse rather than type a command the agent answers with "unknown command").
   * Absent: asm cannot tell, and types it.
   */
  skillFile?(skill: string, folder: string | null, env: Env): string | null;
}

/**
 * One agent family's code, as the registry lists it (`lib/agents/<adapter>/mod.ts`). The rest of asm reaches an
 * agent only through this value and its AgentConfig. Optional parts are capabilities an adapter may not have.
 */
export interface AgentAdapter {
  /** Editing the agent's own hook config (the installer). */
  hookConfig: HookConfigAdapter;
  /** Running the agent offline against a fake model server (tests). */
  offline?: OfflineSetup;
  /** Events of sessions the ledger does not know yet that must not make a row. */
  orphanRule?: OrphanEventRule;
  /** The agent's own running-session evidence, verified against the process table (the poll, every 5 s). */
  live?: (query: LiveQuery) => LiveReport;
  /** Finding and reading the agent's transcripts: the history import, the derived layer, search. */
  transcripts?: TranscriptCapability;
  /** Starting, ending and typing into the agent's interactive sessions (lib/launch asks). */
  launch?: LaunchCapability;
  /** The agent's real plan usage from its account endpoint (lib/usage asks); never estimated. */
  usage?: UsageSource;
  /**
   * The agent's own words for a call for attention, mapped to asm's facts: a reason when the agent waits on the
   * person, null when the call is no wait (informational, or idle at its prompt), undefined to leave it to asm's
   * generic reading. The same fact must read the same word whatever the agent.
   */
  attention?: (event: string, kind: string | null) => string | null | undefined;
}
