/**
 * The background services beyond the drain, each on its own timer: the liveness poll (5 s), the history import
 * (at start and every 15 min), the watch of the transcript folders (armed every minute) and the refresh (10 s),
 * launch correlation (2 s), the search index (60 s), the
 * pruning of drained events (hourly), the ledger watch (2 s), the ledger's snapshots (hourly) and the board's
 * sweep (its dry run at start, then its own cadence). Each gets from the server only what its feature needs. A
 * new service adds itself to SERVICES.
 * @module
 */
import { pollOnce } from "../liveness/mod.ts";
import { liveRows } from "../ledger/mod.ts";
import {
  IMPORT_EVERY_MS,
  ownsAgentHomes,
  REFRESH_EVERY_MS,
  transcriptRoots,
  WATCH_ARM_EVERY_MS,
} from "../history/mod.ts";
import { CORRELATE_EVERY_MS, correlateForServer, panesForServer } from "../launch/mod.ts";
import { SEARCH_INDEX_EVERY_MS, searchIndexService } from "../search/mod.ts";
import type { ServerContext } from "./router.ts";
import { pruneProcessed } from "./data_folder.ts";
import { SNAPSHOT_START_AFTER_MS, SNAPSHOT_TICK_MS, snapshotIfDue } from "../recovery/mod.ts";

/** The board sweep's period (the spec's 20 s; the dry run is retried at it until it succeeds). */
export const SWEEP_EVERY_MS = 20_000;

/** A periodic job of the server. Runs never overlap themselves; an error is logged and the timer carries on. */
export interface Service {
  name: string;
  everyMs: number;
  /** the first run's delay after the server starts (default: at once) */
  startAfterMs?: number;
  run(ctx: ServerContext): void | Promise<void>;
}

/** How often the liveness poll runs: a session whose process died reads ENDED within this and 5 s. */
export const POLL_EVERY_MS = 5000;

/** The services the server starts, in order. */
export const SERVICES: readonly Service[] = [
  // liveness: open runs x /proc x each agent's own evidence -> lost sessions and activity words
  {
    name: "poll",
    everyMs: POLL_EVERY_MS,
    run: (ctx) => {
      pollOnce({
        ledger: ctx.ledger,
        env: ctx.env,
        asmHome: ctx.asmHome,
        log: ctx.log,
        state: ctx.state.poll,
      });
      // a driven session arriving in or leaving the live set wakes the board's sweep
      // (the planner's live set: hidden rows too, a session in a harness folder is still on the board)
      ctx.state.board.observeLive(liveRows(ctx.ledger, { all: true }).map((r) => r.asm_id));
    },
  },
  // which live sessions' panes are proven (one listing of tmux's panes): the list offers Jump and Send on those
  {
    name: "panes",
    everyMs: 5000,
    run: async (ctx) => {
      ctx.state.panes = await panesForServer(ctx, liveRows(ctx.ledger, { all: true }).map((r) => r.asm_id));
    },
  },
  // the history import: at start and every 15 minutes; the refresh re-derives transcripts that grew
  // (only on the data folder whose environment names it: a scratch server never reads someone's agent homes)
  {
    name: "import",
    everyMs: IMPORT_EVERY_MS,
    run: async (ctx) => {
      if (ownsAgentHomes(ctx)) await ctx.state.imports.full();
    },
  },
  // the transcript folders watched: a transcript that changes is read within a second, not at the next refresh
  {
    name: "watch",
    everyMs: WATCH_ARM_EVERY_MS,
    run: async (ctx) => {
      if (ownsAgentHomes(ctx)) await ctx.state.transcripts.arm(transcriptRoots(ctx));
    },
  },
  {
    name: "refresh",
    everyMs: REFRESH_EVERY_MS,
    run: async (ctx) => {
      if (ownsAgentHomes(ctx)) await ctx.state.imports.refresh();
    },
  },
  // launches: matched to their sessions (token, ancestry walk, adoption); unmatched ones expire after 120 s
  {
    name: "launches",
    everyMs: CORRELATE_EVERY_MS,
    run: (ctx) => void correlateForServer(ctx, ctx.state.correlation.logged),
  },
  // the deep search index: catches up with what the import read (cheap when nothing changed: one query)
  { name: "search-index", everyMs: SEARCH_INDEX_EVERY_MS, run: (ctx) => searchIndexService(ctx) },
  // drained hook events hold prompts: kept processed_days (config.toml, default 30), then removed
  {
    name: "prune",
    everyMs: 3_600_000,
    run: (ctx) => {
      const removed = pruneProcessed(ctx.asmHome, ctx.settings.processedDays);
      if (removed > 0) {
        ctx.log({ what: "processed events pruned", removed, days: ctx.settings.processedDays });
      }
    },
  },
  // the ledger's file: still the one opened, writable (writes held while it is not), room left on its disk
  {
    name: "ledger",
    everyMs: 2000,
    run: async (ctx) => {
      await ctx.state.ledgerWatch.check();
    },
  },
  // the board: the first pass after the start is a DRY RUN (logged, writing nothing), tried every 20 s until it
  // succeeds; only then is the sweep's own cadence armed (a 20 s timer plus wakes, lib/reconcile runtime.ts)
  {
    name: "sweep",
    everyMs: SWEEP_EVERY_MS,
    run: async (ctx) => {
      await ctx.state.board.dryRun();
    },
  },
  // a VACUUM INTO snapshot when the newest is an hour old, the last 3 kept (./asm rebuild restores the newest)
  {
    name: "snapshot",
    everyMs: SNAPSHOT_TICK_MS,
    startAfterMs: SNAPSHOT_START_AFTER_MS,
    run: async (ctx) => {
      await snapshotIfDue(ctx);
    },
  },
];
