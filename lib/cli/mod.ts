/**
 * The command line's machinery: a table of commands (name, summary, typed options, positionals, handler),
 * parsed with `node:util` `parseArgs` in strict mode, help generated from the same table, one usage error, and
 * how a session is named on the command line. `main.ts` holds asm's table; nothing here knows its commands.
 * @module
 */
export type {
  CommandArgs,
  CommandSpec,
  FlagOption,
  NumberOption,
  OptionSpec,
  PositionalSpec,
  TextOption,
} from "./table.ts";
export { UsageError } from "./table.ts";
export {
  asksForHelp,
  findCommand,
  type FoundCommand,
  HELP_FLAGS,
  parseCommand,
  type Parsed,
} from "./parse.ts";
export { commandHelp, commandList, helpFor, type HelpOptions, usageLine } from "./help.ts";
export { runCommandLine, type RunOptions, USAGE_EXIT } from "./run.ts";
export {
  MAX_CANDIDATES,
  MIN_PREFIX,
  type Resolution,
  resolutionProblem,
  resolveSession,
  type SessionRef,
  SHORT_ID_LENGTH,
  shortIds,
} from "./session_ref.ts";
