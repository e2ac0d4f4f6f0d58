/**
 * The server's side of launching: the actions' dependencies built from the server context (the tmux server named
 * by `ASM_TMUX_SOCKET`, else the user's default one, driven by tmux clients with a minimal environment; the
 * server's environment, from which each launch takes only its allow-list; the hook-trust bypass only in testing
 * mode) and the correlation service that runs every 2 s (and deletes the files of launches that are done).
 * @module
 */
import { join } from "node:path";
import { harnessRoots } from "../config/mod.ts";
import { loadAgents } from "../agents/mod.ts";
import type { Ledger } from "../ledger/mod.ts";
import { correlateOnce, type CorrelateReport } from "./correlate.ts";
import { provenPanes } from "./control.ts";
import type { ActionDeps } from "./deps.ts";
import { tmuxClientEnv, tmuxConfigFromEnv, tmuxHost } from "./tmux.ts";
import type { LogLine } from "../lang/mod.ts";

/** What the server hands in (a subset of its ServerContext). */
export interface LaunchContext {
  ledger: Ledger;
  asmHome: string;
  env: Record<string, string>;
  mode: "live" | "testing";
  log(line: LogLine): void;
}

/** The actions' dependencies for one request. */
export function actionDeps(ctx: LaunchContext): ActionDeps {
  return {
    ledger: ctx.ledger,
    asmHome: ctx.asmHome,
    env: ctx.env,
    host: tmuxHost({ ...tmuxConfigFromEnv(ctx.env), env: tmuxClientEnv(ctx.env) }),
    agents: loadAgents({ asmHome: ctx.asmHome, env: ctx.env }),
    allowHookTrustBypass: ctx.mode === "testing",
    log: ctx.log,
  };
}

/** The live sessions whose pane is proven, for the list's Jump and Send (the `panes` service, every 5 s). */
export async function panesForServer(ctx: LaunchContext, asmIds: readonly string[]): Promise<Set<string>> {
  return await provenPanes(actionDeps(ctx), asmIds);
}

/** The correlation service's period. */
export const CORRELATE_EVERY_MS = 2000;

/**
 * One correlation pass for the server; logs only when something was matched, adopted, expired or left, or a
 * launch failed (each failure once: `logged` is the server's, kept between passes).
 */
export function correlateForServer(ctx: LaunchContext, logged?: Set<string>): CorrelateReport {
  return correlateOnce({
    ledger: ctx.ledger,
    env: ctx.env,
    agents: loadAgents({ asmHome: ctx.asmHome, env: ctx.env }),
    harnessRoots: harnessRoots(ctx.asmHome),
    launchesDir: join(ctx.asmHome, "launches"),
    log: ctx.log,
    logged,
  });
}
