/**
 * The snapshot Worker: one `VACUUM INTO` on its own read-only connection to the ledger, off the server's event
 * loop. Started by `copyInWorker` (snapshots.ts), one per snapshot.
 * @module
 */
/// <reference lib="deno.worker" />
import { snapshotLedgerFile } from "../ledger/mod.ts";
import { errorText } from "../lang/mod.ts";
import type { SnapshotAsk, SnapshotReply } from "./snapshots.ts";

self.onmessage = (event: MessageEvent<SnapshotAsk>) => {
  let reply: SnapshotReply;
  try {
    snapshotLedgerFile(event.data.source, event.data.target);
    reply = { done: true };
  } catch (err) {
    reply = { error: errorText(err) };
  }
  self.postMessage(reply);
};
