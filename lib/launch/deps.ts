/**
 * What the actions (launch, resume, continue-with, end, send, focus) need, gathered in one value so a route, the
 * CLI through the server, and a test can each hand in their own, and the one error type they refuse with.
 * @module
 */
import type { AgentConfig } from "../agents/mod.ts";
import type { Ledger } from "../ledger/mod.ts";
import type { ProcSource } from "../procs/mod.ts";
import type { TerminalHost } from "./terminal_host.ts";
import type { Clock, Log } from "../lang/mod.ts";

/** The facts and tools of the actions. */
export interface ActionDeps {
  ledger: Ledger;
  asmHome: string;
  /** asm's environment: where the agents' folders are; a launch takes only its allow-list of it (env.ts). */
  env: Record<string, string>;
  host: TerminalHost;
  agents: AgentConfig[];
  /** Honour a request's `bypass_hook_trust` (the server in testing mode only; never for a user's folders). */
  allowHookTrustBypass?: boolean;
  /** The clock (the launch rows' times; tests pin it). */
  now?: Clock;
  /** /proc; tests hand in a fake. */
  proc?: ProcSource;
  /** The deno that runs the shim (default: the one running asm). */
  denoPath?: string;
  /** Sends a signal to a process (default `Deno.kill`); tests hand in one that fails or does nothing. */
  kill?: (pid: number, signal: "SIGTERM" | "SIGKILL") => void;
  /** How long END waits for the process, then for the window, to go (default 5000 ms each). */
  endWaitMs?: number;
  log?: Log;
}

/**
 * What kind of refusal: the request itself is wrong (`invalid`), it names a session asm does not have
 * (`unknown`), the session or the machine is not in a state that allows it (`conflict`), or the terminal host
 * cannot be reached (`unavailable`). The API turns each into its HTTP status; the command line prints the sentence.
 */
export type RefusalKind = "invalid" | "unknown" | "conflict" | "unavailable";

/** Why asm refuses an action, as a sentence, and of which kind. */
export class ActionRefused extends Error {
  override name = "ActionRefused";
  constructor(readonly kind: RefusalKind, message: string) {
    super(message);
  }
}

/** The agent of this name, or an `invalid` refusal naming the ones asm knows. */
export function agentNamed(deps: ActionDeps, name: unknown): AgentConfig {
  const agent = typeof name === "string" ? deps.agents.find((a) => a.name === name) : undefined;
  if (!agent) {
    throw new ActionRefused(
      "invalid",
      `${
        typeof name === "string" && name ? `"${name}" is not an agent asm knows` : "name an agent"
      }; asm knows ${deps.agents.map((a) => a.name).join(", ")}`,
    );
  }
  return agent;
}
