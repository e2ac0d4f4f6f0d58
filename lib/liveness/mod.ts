/**
 * Liveness: open runs x the process table -> alive or gone.
 * @module
 */
export { goneRuns, reapGoneRuns } from "./gone.ts";
