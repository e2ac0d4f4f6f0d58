/**
 * The Worker that names connections' owners: a read of the kernel's socket table walks its whole connection hash
 * and formats every row (about 9 ms with 1,600 rows, 80 ms with 10,000, and any local user can add rows by
 * opening connections among its own sockets), so it runs on its own thread and the server's event loop keeps
 * answering the connections it already admitted meanwhile. Started by `peer_lookup.ts`.
 * @module
 */
/// <reference lib="deno.worker" />
import { type PeerOwner, peerOwners } from "./sockets.ts";
import { errorText } from "../lang/mod.ts";

/** What the server asks: the peers of the connections accepted since its last ask. */
export interface PeerAsk {
  id: number;
  peers: { hostname: string; port: number }[];
  serverPort: number;
}

/** The owners, one per peer in order, or why the table could not be read. */
export type PeerReply = { id: number; owners: PeerOwner[] } | { id: number; error: string };

if (typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope) {
  self.onmessage = (event: MessageEvent<PeerAsk>) => {
    const { id, peers, serverPort } = event.data;
    try {
      self.postMessage({ id, owners: peerOwners(peers, serverPort) } satisfies PeerReply);
    } catch (err) {
      self.postMessage({ id, error: errorText(err) } satisfies PeerReply);
    }
  };
}
