/**
 * The shape of a command table: every command with its one-line summary, its options (typed, with defaults and
 * descriptions), its positionals and its handler. The parser ({@link ./parse.ts}) and the help
 * ({@link ./help.ts}) both read it, so what a command accepts and what its help says cannot drift apart.
 * @module
 */

/** What every option has. */
interface OptionBase {
  /** One line for the help. */
  description: string;
  /** A one-letter alias (`-p`). `h` is taken by `--help`. */
  short?: string;
}

/** `--name`: present or not. */
export interface FlagOption extends OptionBase {
  type: "boolean";
}

/** `--name VALUE`. */
export interface TextOption extends OptionBase {
  type: "string";
  /** The value's name in the help (`NAME` in `--agent NAME`). */
  placeholder?: string;
  default?: string;
  /** May be given more than once; the values are collected in order. */
  multiple?: boolean;
  /** The command refuses to run without it. */
  required?: boolean;
}

/** `--name N`, refused with a sentence unless it is a number in range. */
export interface NumberOption extends OptionBase {
  type: "number";
  placeholder?: string;
  default?: number;
  /** A whole number only. */
  integer?: boolean;
  min?: number;
  max?: number;
}

/** One option of a command. */
export type OptionSpec = FlagOption | TextOption | NumberOption;

/** One positional argument. Only the last may be `variadic`; optional ones come after the required ones. */
export interface PositionalSpec {
  /** Its name in the usage line (`<session>`) and for {@link CommandArgs.positional}. */
  name: string;
  description: string;
  optional?: boolean;
  /** Takes every remaining argument (and is optional). */
  variadic?: boolean;
  /** The only values it takes. */
  choices?: readonly string[];
}

/** One command (or a group of commands, like `bench`, that has subcommands instead of a handler). */
export interface CommandSpec {
  /** The word that names it: `serve`, or `import` under `bench`. */
  name: string;
  /** One line for the list of commands. */
  summary: string;
  /** More for its own help, after the usage line (plain text, already wrapped). */
  details?: string;
  options?: Readonly<Record<string, OptionSpec>>;
  positionals?: readonly PositionalSpec[];
  /**
   * Everything after the first `--` is handed to the handler unparsed ({@link CommandArgs.passthrough}); this
   * says what it is for, in the usage line. Without it, `--` only ends the options.
   */
  passthrough?: string;
  /** The commands under this one; a group has no handler of its own. */
  subcommands?: readonly CommandSpec[];
  /** Runs the command; returns its exit code. */
  run?: (args: CommandArgs) => number | Promise<number>;
}

/** The values one invocation was given, each read by the name the table declares it under. */
export interface CommandArgs {
  /** The command's words (`bench import`). */
  readonly command: string;
  /** A boolean option. */
  flag(name: string): boolean;
  /** A string option (its default when absent). */
  text(name: string): string | undefined;
  /** A string option given any number of times. */
  texts(name: string): string[];
  /** A number option (its default when absent). */
  number(name: string): number | undefined;
  /** A single positional. */
  positional(name: string): string | undefined;
  /** A variadic positional. */
  rest(name: string): string[];
  /** What followed `--` for a command with {@link CommandSpec.passthrough}; empty otherwise. */
  readonly passthrough: string[];
}

/**
 * The arguments do not fit the command. The message is one sentence for a person; `command` names the command
 * whose help belongs under it (empty when no command was recognised).
 */
export class UsageError extends Error {
  override name = "UsageError";
  /** The command's words, or empty for the program as a whole. */
  readonly command: string[];
  constructor(message: string, command: readonly string[] = []) {
    super(message);
    this.command = [...command];
  }
}
