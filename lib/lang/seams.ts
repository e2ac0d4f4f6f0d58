/**
 * The two seams every shell is handed, so a test can pin time and read what was logged.
 * @module
 */

/**
 * The clock: epoch milliseconds (`Date.now` in production). A shell that stores a time derives the ledger's ISO
 * string from it (`isoAt` in lib/ledger); one type, so any clock a test pins fits every shell.
 */
export type Clock = () => number;

/** One log line: what happened is always under `what`; the other keys are its details. */
export interface LogLine {
  what: string;
  [detail: string]: unknown;
}

/** Where a shell writes its log lines (`$ASM_HOME/server.log` in the server; tests collect them). */
export type Log = (line: LogLine) => void;
