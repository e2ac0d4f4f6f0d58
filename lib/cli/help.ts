/**
 * Help text generated from the command table (the shape of std's `file_server` usage: what it does, USAGE,
 * OPTIONS), so a command's help always names exactly the options it accepts.
 * @module
 */
import type { CommandSpec, OptionSpec, PositionalSpec } from "./table.ts";
import { UsageError } from "./table.ts";

/** How the program is named in usage lines (`./asm`). */
export interface HelpOptions {
  program: string;
}

function optionName(name: string, option: OptionSpec): string {
  const value = option.type === "boolean"
    ? ""
    : ` ${option.placeholder ?? (option.type === "number" ? "N" : name.toUpperCase())}`;
  return `--${name}${value}${option.type === "string" && option.multiple ? "..." : ""}`;
}

function positionalName(p: PositionalSpec): string {
  if (p.variadic) return `[${p.name}...]`;
  return p.optional ? `[${p.name}]` : `<${p.name}>`;
}

/**
 * `./asm launch --agent NAME [options]`: positionals, then required options spelled out, the rest as
 * `[options]` (or each in brackets, with `allOptions`); an option that may be given again ends in `...`.
 */
export function usageLine(
  spec: CommandSpec,
  path: readonly string[],
  options: HelpOptions & { allOptions?: boolean },
): string {
  const words = [options.program, ...path];
  if (spec.subcommands) return [...words, `<${spec.subcommands.map((s) => s.name).join("|")}>`].join(" ");
  const entries = Object.entries(spec.options ?? {});
  const required = (o: OptionSpec) => o.type === "string" && !!o.required;
  for (const p of spec.positionals ?? []) words.push(positionalName(p));
  for (const [name, option] of entries) if (required(option)) words.push(optionName(name, option));
  if (options.allOptions) {
    for (const [name, option] of entries) if (!required(option)) words.push(`[${optionName(name, option)}]`);
  } else if (entries.some(([, o]) => !required(o))) words.push("[options]");
  if (spec.passthrough) words.push(`[-- ${spec.passthrough}]`);
  return words.join(" ");
}

/** Two columns, the second starting at the same place on every row. */
function columns(rows: [string, string][], indent = "  "): string[] {
  const width = Math.max(0, ...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}${right}`.trimEnd());
}

function defaultNote(option: OptionSpec): string {
  if (option.type === "boolean" || option.default === undefined) return "";
  return ` (default ${option.default})`;
}

/** One command's help: its summary, usage line, arguments and options. */
export function commandHelp(spec: CommandSpec, path: readonly string[], options: HelpOptions): string {
  const out = [`${options.program} ${path.join(" ")}: ${spec.summary}`, "", "USAGE:"];
  out.push(`  ${usageLine(spec, path, options)}`);
  if (spec.details) out.push("", ...spec.details.split("\n").map((l) => (l ? `  ${l}` : l)));
  if (spec.subcommands) {
    out.push("", "COMMANDS:", ...columns(spec.subcommands.map((s) => [s.name, s.summary])));
  }
  const positionals = spec.positionals ?? [];
  if (positionals.length) {
    out.push(
      "",
      "ARGUMENTS:",
      ...columns(positionals.map((p) => [
        positionalName(p),
        p.description + (p.choices ? ` (one of: ${p.choices.join(", ")})` : ""),
      ])),
    );
  }
  const rows: [string, string][] = Object.entries(spec.options ?? {}).map(([name, option]) => [
    (option.short ? `-${option.short}, ` : "") + optionName(name, option),
    option.description + defaultNote(option),
  ]);
  rows.push(["-h, --help", "print this help and do nothing else"]);
  out.push("", "OPTIONS:", ...columns(rows));
  return out.join("\n");
}

/** Every command, one line each; a group's commands each get their own line (`bench import`). */
export function commandList(table: readonly CommandSpec[]): string[] {
  const rows: [string, string][] = [];
  const walk = (specs: readonly CommandSpec[], prefix: string) => {
    for (const spec of specs) {
      if (spec.subcommands) walk(spec.subcommands, `${prefix}${spec.name} `);
      else rows.push([`${prefix}${spec.name}`, spec.summary]);
    }
  };
  walk(table, "");
  return columns(rows);
}

/**
 * The help a list of words asks for: the whole list for none, else that command's (or group's) help. Throws
 * a {@link UsageError} for words that name no command.
 */
export function helpFor(
  table: readonly CommandSpec[],
  words: readonly string[],
  options: HelpOptions & { overview: string },
): string {
  if (words.length === 0) return options.overview;
  let specs = table;
  let spec: CommandSpec | undefined;
  const path: string[] = [];
  for (const word of words) {
    spec = specs.find((s) => s.name === word);
    if (!spec) {
      const where = path.length ? `${path.join(" ")} has no "${word}"` : `there is no command "${word}"`;
      throw new UsageError(`${where}; ${options.program} help lists them`);
    }
    path.push(word);
    specs = spec.subcommands ?? [];
  }
  return commandHelp(spec!, path, options);
}
