/**
 * The drain of hook event files into the ledger, idempotent on event_id.
 * @module
 */
export { type DrainDeps, drainOnce, type DrainReport } from "./drain.ts";
