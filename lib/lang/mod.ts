/**
 * What the language leaves to each program and every layer of asm needs alike: telling what an `unknown` is (a
 * parsed value that should be a record, a caught value that should be an Error) and the types of the two things
 * every shell is handed (the clock, the log). The bottom of lib/: it imports nothing, so any module, a read worker
 * or the search Worker included, can take it without loading anything else.
 * @module
 */
export { errorText, isRecord } from "./unknown.ts";
export { plainLine, plainText } from "./terminal.ts";
export type { Clock, Log, LogLine } from "./seams.ts";
