/**
 * What one server keeps between requests and ticks, in one value the server owns (not in module-level maps keyed
 * by a ledger or a context): the poll's memory, the import runner, the plan-usage cache, the live payload's
 * revision counters, the list's cached body and the board (its outliner, claims, memo and cadence). A test that
 * starts two servers gets two of each.
 * @module
 */
import { harnessRoots, type Mode, type Settings } from "../config/mod.ts";
import { ImportRunner, TranscriptWatch } from "../history/mod.ts";
import { type DrainState, newDrainState } from "../inbox/mod.ts";
import type { Ledger } from "../ledger/mod.ts";
import { LiveRevision, newPollState, type PollState } from "../liveness/mod.ts";
import { UsageCache } from "../usage/mod.ts";
import { LedgerWatch } from "./ledger_watch.ts";
import { BoardRuntime } from "../reconcile/mod.ts";
import { ViewRegistry } from "../launch/mod.ts";
import type { LogLine } from "../lang/mod.ts";

/** One server's state. */
export interface ServerState {
  /** The liveness poll's memory across ticks (doubted runs, sessions seen working). */
  poll: PollState;
  /** The one import at a time of this server (the services and `POST /api/import`). */
  imports: ImportRunner;
  /** The watch of the agents' transcript folders: each changed file read within a second (the `watch` service). */
  transcripts: TranscriptWatch;
  /** Plan usage: each agent's endpoint asked at most once a minute, however often pages ask. */
  usage: UsageCache;
  /** `/api/live`'s revision, per variant (hidden rows or not), shared by every page polling this server. */
  liveRevisions: { visible: LiveRevision; all: LiveRevision };
  /** `/api/sessions`' body per variant, kept until the ledger's next write. */
  sessionsBodies: Map<boolean, { version: number; body: string }>;
  /** The drain's memory across passes: names it skips for good, and its health for the health model. */
  drain: DrainState;
  /** The ledger's file: still the one opened, writable, room left; holds writes while it is read-only. */
  ledgerWatch: LedgerWatch;
  /** The board: its outliner, the claims, what the server believes of it, the sweep's cadence. */
  board: BoardRuntime;
  /** The launches task's memory: the launch failures it has named, each once (lib/launch `correlate.ts`). */
  correlation: { logged: Set<string> };
  /** The live sessions whose pane asm has proven (the `panes` service): the list offers Jump and Send on them. */
  panes: Set<string>;
  /** The session pages following their transcripts (`GET /api/sessions/:id/stream`): how many, and their end. */
  streams: { open: number; closing: AbortController };
  /** The terminal views open (`GET /api/terminal`): each a control client of the terminal host. */
  views: ViewRegistry;
}

/** A new server's state. */
export function newServerState(deps: {
  ledger: Ledger;
  asmHome: string;
  env: Record<string, string>;
  log(line: LogLine): void;
  mode: Mode;
  settings: Settings;
}): ServerState {
  const imports = new ImportRunner({ ...deps, harnessRoots: harnessRoots(deps.asmHome) });
  return {
    poll: newPollState(),
    imports,
    transcripts: new TranscriptWatch({
      log: deps.log,
      onChange: async (paths) => void await imports.refreshFiles(paths),
    }),
    usage: new UsageCache({ log: deps.log }),
    liveRevisions: { visible: new LiveRevision(), all: new LiveRevision() },
    sessionsBodies: new Map(),
    panes: new Set(),
    correlation: { logged: new Set() },
    streams: { open: 0, closing: new AbortController() },
    views: new ViewRegistry(),
    drain: newDrainState(),
    ledgerWatch: new LedgerWatch({ ledger: deps.ledger, asmHome: deps.asmHome, log: deps.log }),
    board: new BoardRuntime({
      asmHome: deps.asmHome,
      mode: deps.mode,
      board: deps.settings.board,
      ledger: deps.ledger,
      log: deps.log,
      env: deps.env,
    }),
  };
}
