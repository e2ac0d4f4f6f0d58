/**
 * Parsing one command line against the table, with the platform's parser (`node:util` `parseArgs`, strict) so
 * every command treats flags the same way: an unknown flag, a missing value, a flag swallowed as a value and a
 * stray argument are all refused, each with one sentence ({@link UsageError}). `--help` / `-h` is every
 * command's, and wins over everything else on the line: asking for help never runs the command.
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { CommandArgs, CommandSpec, OptionSpec, PositionalSpec } from "./table.ts";
import { UsageError } from "./table.ts";

/** The words that ask for help, on any command. */
export const HELP_FLAGS: readonly string[] = ["--help", "-h"];

/** A command found in the table, and the arguments left for it. */
export interface FoundCommand {
  spec: CommandSpec;
  /** The command's words (`["bench", "import"]`). */
  path: string[];
  /** The arguments after the command's words. */
  argv: string[];
}

/** What a command line asks for: its help, or a run with these values. */
export type Parsed = { kind: "help" } | { kind: "run"; args: CommandArgs };

function known(specs: readonly CommandSpec[]): string {
  return specs.map((s) => s.name).join(", ");
}

/**
 * The command `argv` names, walking into groups (`bench import`). Throws a {@link UsageError} for a word that
 * names no command. A group followed by nothing or by a flag is returned as is: parsing it gives its help or
 * says which subcommand it needs.
 */
export function findCommand(table: readonly CommandSpec[], argv: readonly string[]): FoundCommand {
  let specs = table;
  const path: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    const spec = specs.find((s) => s.name === word);
    if (!spec) {
      throw path.length === 0
        ? new UsageError(`there is no command "${word}"; the commands are ${known(table)}`)
        : new UsageError(`${path.join(" ")} has no "${word}"; it has ${known(specs)}`, path);
    }
    path.push(word);
    const next = argv[i + 1];
    if (!spec.subcommands || next === undefined || next.startsWith("-")) {
      return { spec, path, argv: argv.slice(i + 1) };
    }
    specs = spec.subcommands;
  }
  throw new UsageError("name a command");
}

/** True when the arguments ask for help (before any `--`: what follows it is never a flag). */
export function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => HELP_FLAGS.includes(a));
}

/** The platform parser's config for the table's options: numbers are read as text, then checked here. */
function parserOptions(spec: CommandSpec): NonNullable<ParseArgsConfig["options"]> {
  const out: NonNullable<ParseArgsConfig["options"]> = { help: { type: "boolean", short: "h" } };
  for (const [name, option] of Object.entries(spec.options ?? {})) {
    out[name] = {
      type: option.type === "boolean" ? "boolean" : "string",
      ...(option.short ? { short: option.short } : {}),
      ...(option.type === "string" && option.multiple ? { multiple: true } : {}),
    };
  }
  return out;
}

/** The `--name` a parser message is about (`'-p, --port <value>'` is about `--port`). */
function optionIn(message: string): string {
  const quoted = message.match(/'([^']+)'/)?.[1] ?? "";
  return quoted.match(/--[^\s,<']+/)?.[0] ?? quoted.split(/[\s,]/)[0] ?? quoted;
}

/**
 * The closest option name, for "did you mean": at most two edits away, else the one option the word begins
 * (`--board` for `--board-path`).
 */
function closest(word: string, names: string[]): string | null {
  const begun = word.length >= 3 ? names.filter((n) => n.startsWith(`${word}-`)) : [];
  let best: string | null = begun.length === 1 ? begun[0] : null;
  if (best !== null) return best;
  let bestDistance = 3;
  for (const name of names) {
    const d = editDistance(word, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

/** The parser's own error as one sentence of ours (its messages speak of "positionals" and "ambiguous"). */
function parserSentence(err: Error & { code?: string }, spec: CommandSpec, command: string): string {
  const option = optionIn(err.message);
  switch (err.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const names = Object.keys(spec.options ?? {});
      const guess = option.startsWith("--") ? closest(option.slice(2).split("=")[0], names) : null;
      // a command that hands flags on (`test` to deno test) says where they go
      const onward = spec.passthrough ? `; ${spec.passthrough} go after --` : "";
      if (names.length === 0) return `${command} takes no options, and ${option} is not one${onward}`;
      return `${command} has no option ${option}` + (guess ? `; did you mean --${guess}?` : onward);
    }
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (/argument missing/.test(err.message)) return `${option} needs a value`;
      if (/ambiguous/.test(err.message)) {
        return `${option} needs a value; to give one that starts with a dash, write ${option}=<value>`;
      }
      if (/does not take an argument/.test(err.message)) return `${option} takes no value`;
      return err.message;
    default:
      return err.message;
  }
}

function numberValue(
  name: string,
  text: string,
  option: OptionSpec & { type: "number" },
  path: readonly string[],
): number {
  const n = text.trim() === "" ? NaN : Number(text);
  if (!Number.isFinite(n)) throw new UsageError(`--${name} needs a number, not "${text}"`, path);
  if (option.integer && !Number.isInteger(n)) {
    throw new UsageError(`--${name} needs a whole number, not ${text}`, path);
  }
  const { min, max } = option;
  if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
    const range = min !== undefined && max !== undefined
      ? `from ${min} to ${max}`
      : min !== undefined
      ? `of at least ${min}`
      : `of at most ${max}`;
    throw new UsageError(`--${name} needs a number ${range}, not ${text}`, path);
  }
  return n;
}

/** Gives the positional words their names, refusing a missing one, a wrong choice and one too many. */
function namePositionals(
  words: string[],
  specs: readonly PositionalSpec[],
  path: readonly string[],
): Map<string, string | string[]> {
  const command = path.join(" ");
  const named = new Map<string, string | string[]>();
  let i = 0;
  for (const p of specs) {
    if (p.variadic) {
      named.set(p.name, words.slice(i));
      i = words.length;
      break;
    }
    const word = words[i];
    if (word === undefined) {
      if (p.optional) continue;
      throw new UsageError(`${command} needs its <${p.name}>`, path);
    }
    if (p.choices && !p.choices.includes(word)) {
      throw new UsageError(`${command} has no ${p.name} "${word}"; it has ${p.choices.join(", ")}`, path);
    }
    named.set(p.name, word);
    i++;
  }
  if (i < words.length) {
    const extra = words.slice(i).map((w) => JSON.stringify(w)).join(" ");
    throw new UsageError(
      specs.length === 0
        ? `${command} takes no arguments, and was given ${extra}`
        : `${command} takes ${
          specs.map((p) => `<${p.name}>`).join(" ")
        } and no more; ${extra} is one too many`,
      path,
    );
  }
  return named;
}

/** A string option given twice would silently keep the last: refuse it, unless it collects. */
function refuseRepeats(
  spec: CommandSpec,
  tokens: { kind: string; name?: string }[],
  path: readonly string[],
): void {
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.kind !== "option" || t.name === undefined || t.name === "help") continue;
    const option = spec.options?.[t.name];
    if (option?.type !== "boolean" && !(option?.type === "string" && option.multiple) && seen.has(t.name)) {
      throw new UsageError(`--${t.name} was given twice; give it once`, path);
    }
    seen.add(t.name);
  }
}

function args(
  command: string,
  values: Record<string, unknown>,
  positionals: Map<string, string | string[]>,
  spec: CommandSpec,
  passthrough: string[],
): CommandArgs {
  const option = (name: string, type: OptionSpec["type"]) => {
    if (spec.options?.[name]?.type !== type) {
      // a mistake in asm's own table, not the person's
      throw new Error(`the command table gives ${command} no ${type} option --${name}`);
    }
    return values[name];
  };
  const positional = (name: string, variadic: boolean) => {
    if (!spec.positionals?.some((p) => p.name === name && !!p.variadic === variadic)) {
      throw new Error(
        `the command table gives ${command} no ${variadic ? "variadic " : ""}positional ${name}`,
      );
    }
    return positionals.get(name);
  };
  return {
    command,
    passthrough,
    flag: (name) => option(name, "boolean") === true,
    text: (name) => option(name, "string") as string | undefined,
    texts: (name) => [option(name, "string") ?? []].flat() as string[],
    number: (name) => option(name, "number") as number | undefined,
    positional: (name) => positional(name, false) as string | undefined,
    rest: (name) => (positional(name, true) as string[] | undefined) ?? [],
  };
}

/**
 * Parses the arguments of the command {@link findCommand} found. Returns `help` when they ask for it;
 * otherwise the values, every option checked against its type and every positional named. Throws a
 * {@link UsageError} that says what does not fit.
 */
export function parseCommand(found: FoundCommand): Parsed {
  const { spec, argv, path } = found;
  const command = path.join(" ");
  if (asksForHelp(argv)) return { kind: "help" };
  const end = spec.passthrough ? argv.indexOf("--") : -1;
  const own = end < 0 ? [...argv] : argv.slice(0, end);
  const passthrough = end < 0 ? [] : argv.slice(end + 1);
  let parsed;
  try {
    parsed = parseArgs({
      args: own,
      options: parserOptions(spec),
      strict: true,
      allowPositionals: true,
      tokens: true,
    });
  } catch (err) {
    const code = String((err as { code?: unknown }).code);
    if (!(err instanceof TypeError) || !code.startsWith("ERR_PARSE_ARGS")) throw err;
    throw new UsageError(parserSentence(err, spec, command), path);
  }
  if (spec.subcommands) throw new UsageError(`${command} needs one of: ${known(spec.subcommands)}`, path);
  refuseRepeats(spec, parsed.tokens ?? [], path);
  const values: Record<string, unknown> = {};
  for (const [name, option] of Object.entries(spec.options ?? {})) {
    const given = (parsed.values as Record<string, unknown>)[name];
    if (option.type === "number") {
      values[name] = given === undefined ? option.default : numberValue(name, given as string, option, path);
    } else if (option.type === "string") {
      if (given === undefined && option.required) throw new UsageError(`${command} needs --${name}`, path);
      values[name] = given ?? option.default;
    } else {
      values[name] = given === true;
    }
  }
  const named = namePositionals(parsed.positionals, spec.positionals ?? [], path);
  return { kind: "run", args: args(command, values, named, spec, passthrough) };
}
