/**
 * The types the rest of asm codes against when it talks about agents. Nothing outside `lib/agents/` names an
 * agent: it reads an {@link AgentConfig} from the registry and asks the registry for the agent's adapter.
 * @module
 */
import type { Env } from "../config/paths.ts";

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
  now?: () => Date;
}

/** One agent family's own hook config editing (`lib/agents/<adapter>/hook_config.ts`). */
export interface HookConfigAdapter {
  /** The main config file the hooks go into. */
  configPath(env: Env): string;
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
}
