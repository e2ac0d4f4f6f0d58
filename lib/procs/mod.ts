/**
 * The process table and the socket table from /proc: read-only, one pass per poll (sockets: per batch of accepted connections).
 * @module
 */
export {
  bootId,
  identityOf,
  isSameProcess,
  LINUX_PROC,
  type ProcessIdentity,
  type ProcInfo,
  type ProcSource,
  readProc,
  snapshot,
} from "./proc_table.ts";
export {
  type Endpoint,
  listenerOn,
  type PeerOwner,
  peerOwner,
  peerOwners,
  pidsHolding,
  type SocketRow,
  socketTable,
  TCP_LISTEN,
} from "./sockets.ts";
export { PeerLookup } from "./peer_lookup.ts";
export { type BoundedOptions, type BoundedResult, runBounded } from "./bounded.ts";
