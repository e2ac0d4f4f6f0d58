/**
 * The list of agents asm knows: `lib/agents/agents.toml` (beside this file), overridden by
 * `$ASM_HOME/agents.toml` when it exists. Everything outside `lib/agents/` asks this module, never names an agent.
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";
import { asmHome, type Env } from "../config/mod.ts";
import type { AgentAdapter, AgentConfig, HookConfigAdapter, OfflineSetup, OrphanEvent } from "./protocol.ts";
import type { UsageAgent } from "../usage/mod.ts";
import { claudeAdapter } from "./claude/mod.ts";
import { codexAdapter } from "./codex/mod.ts";
import { geminiAdapter } from "./gemini/mod.ts";
import { errorText, isRecord } from "../lang/mod.ts";

/** The one place that lists adapters: `agents.toml`'s `adapter` key picks one of these. */
const ADAPTERS: Record<string, AgentAdapter> = {
  claude: claudeAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
};

/** The agents.toml next to this file. */
export const BUILTIN_AGENTS_FILE: string = fileURLToPath(new URL("./agents.toml", import.meta.url));

/** A problem in an agents.toml; the message names the file and the key. */
export class AgentsFileError extends Error {
  override name = "AgentsFileError";
}

type KeyKind = "string" | "strings" | "boolean" | "map" | "inject" | "adapter" | "minutes" | "env_names";

const KEYS: Record<Exclude<keyof AgentConfig, "name">, KeyKind> = {
  display: "string",
  tag: "string",
  adapter: "adapter",
  tested: "boolean",
  exe: "strings",
  script: "strings",
  shared: "boolean",
  session_env: "string",
  pid_env: "string",
  entrypoint_env: "string",
  inject: "inject",
  keep_copies: "boolean",
  events: "map",
  notify_events: "map",
  command: "string",
  one_shot: "strings",
  trust_bypass: "string",
  stalled_minutes: "minutes",
  closeout_skill: "string",
  closeout_note: "string",
  skill_command: "string",
  interrupt_key: "string",
  one_shot_resume: "strings",
  launch_argv: "strings",
  resume_argv: "strings",
  model_argv: "strings",
  prompt_argv: "strings",
  usage_base_url: "string",
  launch_env: "env_names",
};
/** Keys a table may leave out, with the value it then has. */
const DEFAULTS: Partial<Record<keyof AgentConfig, unknown>> = {
  notify_events: {},
  trust_bypass: "",
  stalled_minutes: 5,
  // no closeout skill known: closeout is null (nobody can say), never "open"
  closeout_skill: "",
  // the generic sentence (lib/launch closeout.ts) unless the agent's table says why asm offers no closeout
  closeout_note: "",
  // how a person runs a skill in the agent's prompt: a slash command in every agent asm knows ("" in a table:
  // asm cannot start one there, and the closeout actions refuse)
  skill_command: "/{skill}",
  // every agent asm knows stops a turn on Escape (their status lines say "esc to interrupt" / "esc to cancel")
  interrupt_key: "Escape",
  one_shot_resume: [],
  // an agent without these can still be launched with its bare command; resume and models are then refused
  launch_argv: [],
  resume_argv: [],
  model_argv: [],
  prompt_argv: ["{prompt}"],
  // the real endpoint; tests point it at a loopback fake through $ASM_HOME/agents.toml
  usage_base_url: "",
  // an agent that names none gets only the built-in allow-list and the person's own names
  launch_env: [],
};
/** An environment variable name, or a `PREFIX*` pattern of them. */
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;
/** The name goes unquoted into every hook command (`asm-hook <name>`) and into file names. */
const AGENT_NAME = /^[a-z][a-z0-9_-]*$/;

function describe(value: unknown): string {
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  if (Array.isArray(value)) return "a list";
  if (value instanceof Date) return "a date";
  if (isRecord(value)) return "a table";
  return `${typeof value === "number" ? "the number" : "the value"} ${String(value)}`;
}

/** The sentence for a value of the wrong type, or null when it fits. */
function typeProblem(kind: KeyKind, value: unknown): string | null {
  switch (kind) {
    case "string":
      return typeof value === "string" ? null : `must be a string, not ${describe(value)}`;
    case "boolean":
      return typeof value === "boolean" ? null : `must be true or false, not ${describe(value)}`;
    case "minutes":
      return typeof value === "number" && Number.isFinite(value) && value > 0
        ? null
        : `must be a number of minutes above 0, not ${describe(value)}`;
    case "strings":
      return Array.isArray(value) && value.every((v) => typeof v === "string")
        ? null
        : `must be a list of strings, not ${describe(value)}`;
    case "env_names":
      return Array.isArray(value) && value.every((v) => typeof v === "string" && ENV_NAME_PATTERN.test(v))
        ? null
        : `must be a list of environment variable names (a trailing "*" matches a prefix), not ${
          Array.isArray(value) ? JSON.stringify(value) : describe(value)
        }`;
    case "map":
      return isRecord(value) && Object.values(value).every((v) => typeof v === "string")
        ? null
        : `must be a table of event names to strings, not ${describe(value)}`;
    case "inject":
      return value === "hook-specific-output" || value === "none"
        ? null
        : `must be "hook-specific-output" or "none", not ${describe(value)}`;
    case "adapter":
      if (typeof value !== "string") return `must be a string, not ${describe(value)}`;
      return value in ADAPTERS
        ? null
        : `is "${value}", which is not an adapter asm has (${Object.keys(ADAPTERS).join(", ")})`;
  }
}

function readTables(path: string): Record<string, unknown> {
  let parsed: Record<string, unknown>;
  try {
    parsed = parse(Deno.readTextFileSync(path));
  } catch (err) {
    const message = errorText(err).split("\n")[0];
    throw new AgentsFileError(`${path} is not valid TOML: ${message}`);
  }
  for (const [name, table] of Object.entries(parsed)) {
    if (!isRecord(table)) {
      throw new AgentsFileError(`${path}: "${name}" must be a table ([${name}]) describing one agent`);
    }
    if (!AGENT_NAME.test(name)) {
      throw new AgentsFileError(
        `${path}: the agent name "${name}" must be lowercase letters, digits, "-" or "_", starting with a letter`,
      );
    }
    for (const [key, value] of Object.entries(table)) {
      if (!(key in KEYS)) {
        throw new AgentsFileError(
          `${path}: ${name}.${key} is not a key asm knows (${Object.keys(KEYS).join(", ")})`,
        );
      }
      const problem = typeProblem(KEYS[key as keyof typeof KEYS], value);
      if (problem !== null) throw new AgentsFileError(`${path}: ${name}.${key} ${problem}`);
    }
  }
  return parsed;
}

/**
 * Reads the agents. A table in `$ASM_HOME/agents.toml` overrides the built-in one key by key (`events` and
 * `notify_events` are replaced whole, so an override can also drop an event); a new table adds an agent and
 * must then have every key. Throws {@link AgentsFileError} with a sentence naming the file and the key.
 */
export function loadAgents(options: { asmHome?: string; env?: Env } = {}): AgentConfig[] {
  const home = options.asmHome ?? asmHome(options.env ?? Deno.env.toObject());
  const files = [BUILTIN_AGENTS_FILE];
  const override = join(home, "agents.toml");
  try {
    if (Deno.statSync(override).isFile) files.push(override);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const merged = new Map<string, { table: Record<string, unknown>; file: string }>();
  for (const file of files) {
    for (const [name, table] of Object.entries(readTables(file))) {
      const known = merged.get(name);
      merged.set(name, {
        table: { ...known?.table, ...table as Record<string, unknown> },
        file: known?.file ?? file,
      });
    }
  }
  return [...merged].map(([name, { table, file }]) => {
    for (const key of Object.keys(KEYS)) {
      if (key in table) continue;
      if (key in DEFAULTS) {
        table[key] = structuredClone(DEFAULTS[key as keyof AgentConfig]);
        continue;
      }
      throw new AgentsFileError(
        `${file}: agent "${name}" has no ${key} (every agent needs all of: ` +
          `${Object.keys(KEYS).filter((k) => !(k in DEFAULTS)).join(", ")})`,
      );
    }
    return { name, ...table } as AgentConfig;
  });
}

/** The names of the adapters asm has. */
export function knownAdapters(): string[] {
  return Object.keys(ADAPTERS);
}

/** The whole adapter of an agent (by its `adapter` key); throws a sentence for an unknown one. */
export function adapterOf(agent: AgentConfig): AgentAdapter {
  const adapter = ADAPTERS[agent.adapter];
  if (!adapter) {
    throw new AgentsFileError(
      `asm has no adapter named "${agent.adapter}"; it has ${knownAdapters().join(", ")}`,
    );
  }
  return adapter;
}

/** The hook config adapter of an agent (by its `adapter` key, or the adapter's name). */
export function hookAdapter(agent: AgentConfig | string): HookConfigAdapter {
  const name = typeof agent === "string" ? agent : agent.adapter;
  const adapter = ADAPTERS[name]?.hookConfig;
  if (!adapter) {
    throw new AgentsFileError(
      `asm has no hook adapter named "${name}"; it has ${knownAdapters().join(", ")}`,
    );
  }
  return adapter;
}

/** One agent as `$ASM_HOME/hook-agents.json` carries it (docs/runbook.md section 3). */
export interface HookAgentEntry {
  exe: string[];
  script: string[];
  shared: boolean;
  events: Record<string, string>;
  session_env: string;
  pid_env: string;
  entrypoint_env: string;
  inject: AgentConfig["inject"];
}

/** The contents of `$ASM_HOME/hook-agents.json`: what the hook needs, events merged with notify_events. */
export function hookAgentsJson(agents: AgentConfig[]): { v: 1; agents: Record<string, HookAgentEntry> } {
  return {
    v: 1,
    agents: Object.fromEntries(agents.map((agent) => [agent.name, {
      exe: agent.exe,
      script: agent.script,
      shared: agent.shared,
      events: { ...agent.events, ...agent.notify_events },
      session_env: agent.session_env,
      pid_env: agent.pid_env,
      entrypoint_env: agent.entrypoint_env,
      inject: agent.inject,
    }])),
  };
}

/**
 * The drain's rule for an event whose session has no row yet: asks that agent's adapter, by the event's agent
 * name. Returns a reason to keep the event without applying it, or null.
 */
export function orphanEventReason(
  agents: AgentConfig[],
  env: Env,
): (event: OrphanEvent & { agent: string }) => string | null {
  const byName = new Map(agents.map((a) => [a.name, ADAPTERS[a.adapter]?.orphanRule]));
  return (event) => byName.get(event.agent)?.(event, env) ?? null;
}

/** Each agent as the plan-usage cache reads it: its names, its command, its endpoint's base and its reader. */
export function usageAgents(agents: readonly AgentConfig[]): UsageAgent[] {
  return agents.map((agent) => ({
    name: agent.name,
    display: agent.display,
    command: agent.command,
    baseUrl: agent.usage_base_url,
    source: adapterOf(agent).usage ?? null,
  }));
}

/** The offline (fake model server) setup of an agent's adapter, for tests; throws for an untested adapter. */
export function offlineSetup(agent: AgentConfig): OfflineSetup {
  const setup = ADAPTERS[agent.adapter]?.offline;
  if (!setup) throw new AgentsFileError(`asm has no offline test setup for the "${agent.adapter}" adapter`);
  return setup;
}
