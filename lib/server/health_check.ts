/**
 * The health model's shell: gathers each layer's own report (the drain's health, the poll's and the import's
 * tasks, the import runner, the ledger watch's look, the server's own faults) and hands them to the pure
 * `healthModel`.
 * @module
 */
import type { DrainState } from "../inbox/mod.ts";
import type { ImportRunner } from "../history/mod.ts";
import { type HealthModel, healthModel } from "./health.ts";
import type { LedgerWatch } from "./ledger_watch.ts";
import type { TaskStatus } from "./tasks.ts";
import type { ServerFaults } from "./faults.ts";
import type { ConnectionCounts } from "./connections.ts";

/** Where the facts come from (a subset of the server's context). */
export interface HealthSources {
  state: {
    drain: DrainState;
    imports: ImportRunner;
    ledgerWatch: LedgerWatch;
    /** the board, when this server keeps one */
    board?: { location: string; problem: string | null };
  };
  tasks(): TaskStatus[];
  /** the server's own faults (its log, its accepts); absent in a caller that has none */
  faults?: ServerFaults;
  connections?(): ConnectionCounts;
}

/** The health model now. */
export async function healthOf(sources: HealthSources): Promise<HealthModel> {
  const ledger = await sources.state.ledgerWatch.check();
  const tasks = new Map(sources.tasks().map((t) => [t.name, t]));
  return healthModel({
    now: Date.now(),
    drain: { health: sources.state.drain.health, task: tasks.get("drain") ?? null },
    poll: tasks.get("poll") ?? null,
    imports: { status: sources.state.imports.status(), scheduled: tasks.has("import") },
    ledger,
    board: sources.state.board
      ? { location: sources.state.board.location, problem: sources.state.board.problem }
      : undefined,
    server: {
      log: sources.faults?.current("log") ?? null,
      accept: sources.faults?.current("accept") ?? null,
      peers: sources.faults?.current("peers") ?? null,
      connections: sources.connections?.() ?? null,
    },
  });
}
