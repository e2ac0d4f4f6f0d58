/**
 * One command line, start to finish: find the command in the table, answer `--help` without running anything,
 * refuse what does not fit with the command's usage (exit code 2), else run its handler.
 * @module
 */
import { commandHelp, type HelpOptions } from "./help.ts";
import { findCommand, HELP_FLAGS, parseCommand } from "./parse.ts";
import type { CommandSpec } from "./table.ts";
import { UsageError } from "./table.ts";

/** The exit code of a command line that does not fit its command (as the shells' own builtins use). */
export const USAGE_EXIT = 2;

/** Options of {@link runCommandLine}. */
export interface RunOptions extends HelpOptions {
  /** The program's name in front of a usage error's sentence (`asm`). */
  name: string;
  /** The whole list of commands: shown for no arguments, `--help`, and a word that names no command. */
  overview: string;
  /** Help and a handler's own output go to `out`; usage errors go to `err`. */
  out?: (text: string) => void;
  err?: (text: string) => void;
}

function helpOf(table: readonly CommandSpec[], words: readonly string[], options: RunOptions): string {
  let specs = table;
  let spec: CommandSpec | undefined;
  for (const word of words) {
    spec = specs.find((s) => s.name === word);
    specs = spec?.subcommands ?? [];
  }
  return spec ? commandHelp(spec, words, options) : options.overview;
}

/** Runs `argv` against `table`; returns the exit code. */
export async function runCommandLine(
  table: readonly CommandSpec[],
  argv: readonly string[],
  options: RunOptions,
): Promise<number> {
  const out = options.out ?? ((text: string) => console.log(text));
  const err = options.err ?? ((text: string) => console.error(text));
  // the sentence names the command itself; the help under it is that command's
  const refuse = (e: UsageError) => {
    err(`${options.name}: ${e.message}\n\n${helpOf(table, e.command, options)}`);
    return USAGE_EXIT;
  };
  if (argv.length === 0 || HELP_FLAGS.includes(argv[0])) {
    out(options.overview);
    return 0;
  }
  try {
    const found = findCommand(table, argv);
    const parsed = parseCommand(found);
    if (parsed.kind === "help") {
      out(commandHelp(found.spec, found.path, options));
      return 0;
    }
    if (!found.spec.run) throw new Error(`the command table gives ${found.path.join(" ")} no handler`);
    return await found.spec.run(parsed.args);
  } catch (e) {
    // a handler may refuse its arguments too (`help` given a word that names no command)
    if (e instanceof UsageError) return refuse(e);
    throw e;
  }
}
