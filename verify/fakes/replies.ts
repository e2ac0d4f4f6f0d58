/**
 * Reply selection shared by the three fake model servers.
 *
 * Each server turns its own wire format into a {@link Turn} (what the user typed, whether a tool already
 * ran, which tools are offered) and asks a {@link ReplyBook} for a {@link Decision}; it then writes the
 * decision in its own wire format. The choice itself ({@link decideReply}) is pure: no clock, no I/O.
 *
 * Order, first match wins:
 * 1. script rules (`match` is a regex tested on the last user text);
 * 2. `FAIL_HTTP:<code>` in the last user text: that HTTP status; `RETRY:<code>x<n>`: that status, marked
 *    retryable, for the first n requests carrying that text (an overloaded API the agent retries), then on;
 * 3. a tool already ran after the last user text: text quoting its output;
 * 4. `USE_TOOL` in the last user text: the agent's shell tool, once;
 * 5. `USE_SKILL <name>` in the last user text: the agent's own way to run that skill ({@link Turn.skillCall}), once;
 * 6. the default text `Mock reply #N: <excerpt>`.
 * `SLOW:<ms>` in the last user text delays whichever reply is chosen; `STREAM_SLOW:<ms>` holds a streamed reply
 * that long after its first event ({@link streamHoldMs}).
 *
 * @module
 */
import { errorText } from "../../lib/lang/mod.ts";

/** What a script rule answers. `command` fills the agent's own shell-tool input; `input` replaces it. */
export type Reply =
  | { text: string }
  | { tool: { name?: string; input?: Record<string, unknown>; command?: string } }
  | { status: number; message?: string };

/** A script rule: when `match` (a regex, flag `s`) finds the last user text, answer `reply`. */
export interface ReplyRule {
  /** A regular expression (flag `s`) tested on the last user text. */
  match: string;
  /** What to answer when it matches. */
  reply: Reply;
  /** Extra wait before answering, added to `SLOW:` and the server's delay. */
  delayMs?: number;
}

/** One model request, reduced to what reply selection needs. Each server builds it from its own format. */
export interface Turn {
  /** Every typed text in the request, oldest first; injected context (reminders, environment) left out. */
  userTexts: string[];
  /** The output of a tool call made after the last user text, or null when none ran yet. */
  toolOutput: string | null;
  /** Names of the tools the request offers. */
  tools: string[];
  /** The offered tool that runs shell commands, or null when the request offers none. */
  shellTool: string | null;
  /**
   * How the agent's model runs a skill, when the request offers a way: the tool to call and its input, where
   * {@link SKILL_PLACEHOLDER} in a string stands for the skill's name. Absent or null: `USE_SKILL` answers text.
   */
  skillCall?: { name: string; input: Record<string, unknown> } | null;
}

/** What stands for the skill's name in {@link Turn.skillCall}'s input. */
export const SKILL_PLACEHOLDER = "{skill}";

/** What to answer. `delayMs` is the total wait before answering; `numbered` marks a default reply. */
export type Decision =
  | { kind: "text"; text: string; delayMs: number; numbered: boolean }
  | { kind: "tool"; name: string; input: Record<string, unknown> | null; command: string; delayMs: number }
  | { kind: "fail"; status: number; message: string; delayMs: number; retryable?: boolean };

/** The command a `USE_TOOL` turn runs: harmless, and its output is easy to find in a transcript. */
export const MOCK_SHELL_COMMAND = "echo mock-tool-ran";

/** The rules and counters of one fake server. */
export interface ReplyBook {
  /** Notes the turn's user texts and chooses the reply. */
  decide(turn: Turn): Decision;
  /** Notes the turn's user texts without choosing a reply (side requests such as Gemini's router). */
  see(turn: Turn): void;
  /** Every distinct user text seen so far, in the order first seen. */
  userTexts(): string[];
}

/** Options of {@link createReplyBook}. */
export interface ReplyBookOptions {
  /** Rules tried in order before the built-in triggers. */
  script?: ReplyRule[];
  /** Added to every reply's delay. */
  delayMs?: number;
}

/** A script rule with its regex compiled once. */
export interface CompiledRule {
  /** The rule's `match`, compiled. */
  pattern: RegExp;
  /** The rule's reply. */
  reply: Reply;
  /** The rule's delay, 0 when absent. */
  delayMs: number;
}

/** Makes the reply book of one server; throws a plain sentence when a script rule is malformed. */
export function createReplyBook(options: ReplyBookOptions = {}): ReplyBook {
  const rules = compileRules(options.script ?? []);
  const baseDelayMs = options.delayMs ?? 0;
  const seen: string[] = [];
  const seenSet = new Set<string>();
  let defaults = 0;
  // failures already answered per last user text (RETRY:<code>x<n>)
  const failures = new Map<string, number>();

  function see(turn: Turn): void {
    for (const text of turn.userTexts) {
      if (seenSet.has(text)) continue;
      seenSet.add(text);
      seen.push(text);
    }
  }

  return {
    decide(turn) {
      see(turn);
      const last = turn.userTexts.at(-1) ?? "";
      const decision = decideReply(turn, rules, defaults + 1, failures.get(last) ?? 0);
      if (decision.kind === "fail" && decision.retryable) failures.set(last, (failures.get(last) ?? 0) + 1);
      // the counter moves only on default replies, so "#1" is the first plain answer whatever came before
      if (decision.kind === "text" && decision.numbered) defaults++;
      return { ...decision, delayMs: decision.delayMs + baseDelayMs };
    },
    see,
    userTexts: () => [...seen],
  };
}

/** Compiles script rules; the error names the broken rule. */
export function compileRules(script: ReplyRule[]): CompiledRule[] {
  return script.map((rule, i) => {
    let pattern: RegExp;
    try {
      pattern = new RegExp(rule.match, "s");
    } catch (err) {
      throw new Error(
        `script rule ${i + 1} has an invalid match regex (${errorText(err)}); fix the rule`,
      );
    }
    if (!rule.reply || !("text" in rule.reply || "tool" in rule.reply || "status" in rule.reply)) {
      throw new Error(`script rule ${i + 1} needs a reply of {text}, {tool} or {status}; fix the rule`);
    }
    return { pattern, reply: rule.reply, delayMs: rule.delayMs ?? 0 };
  });
}

/**
 * Chooses the reply to one turn (pure). `n` is the number the next default reply carries.
 * A tool reply is only given when the tool is offered and none ran since the last user text, so a tool is
 * asked for once and the agent then gets text.
 */
export function decideReply(turn: Turn, rules: CompiledRule[], n: number, failedBefore = 0): Decision {
  const last = turn.userTexts.at(-1) ?? "";
  // not the SLOW of STREAM_SLOW
  const slowMs = Number(/(?<![A-Z_])SLOW:(\d+)/.exec(last)?.[1] ?? 0);
  const retry = /RETRY:(\d{3})x(\d+)/.exec(last);
  if (retry && failedBefore < Number(retry[2])) {
    const status = Number(retry[1]);
    return { kind: "fail", status, message: `mock overloaded ${status}`, delayMs: slowMs, retryable: true };
  }
  const toolAllowed = (name: string | null): name is string =>
    name !== null && turn.toolOutput === null && turn.tools.includes(name);

  for (const rule of rules) {
    if (!rule.pattern.test(last)) continue;
    const delayMs = slowMs + rule.delayMs;
    const reply = rule.reply;
    if ("text" in reply) return { kind: "text", text: reply.text, delayMs, numbered: false };
    if ("status" in reply) {
      return {
        kind: "fail",
        status: reply.status,
        message: reply.message ?? `mock failure ${reply.status}`,
        delayMs,
      };
    }
    const name = reply.tool.name ?? turn.shellTool;
    if (!toolAllowed(name)) continue;
    const command = reply.tool.command ?? MOCK_SHELL_COMMAND;
    return { kind: "tool", name, input: reply.tool.input ?? null, command, delayMs };
  }

  const failCode = /FAIL_HTTP:(\d{3})/.exec(last)?.[1];
  if (failCode) {
    return { kind: "fail", status: Number(failCode), message: `mock failure ${failCode}`, delayMs: slowMs };
  }
  if (turn.toolOutput !== null) {
    const text = `Mock saw tool output: ${excerpt(turn.toolOutput)}`;
    return { kind: "text", text, delayMs: slowMs, numbered: false };
  }
  if (/USE_TOOL/.test(last) && toolAllowed(turn.shellTool)) {
    return { kind: "tool", name: turn.shellTool, input: null, command: MOCK_SHELL_COMMAND, delayMs: slowMs };
  }
  const skill = /USE_SKILL\s+([\w.-]+)/.exec(last)?.[1];
  const call = turn.skillCall ?? null;
  if (skill !== undefined && call !== null && toolAllowed(call.name)) {
    const input = withSkill(call.input, skill) as Record<string, unknown>;
    return { kind: "tool", name: call.name, input, command: MOCK_SHELL_COMMAND, delayMs: slowMs };
  }
  return { kind: "text", text: `Mock reply #${n}: ${excerpt(last)}`, delayMs: slowMs, numbered: true };
}

/**
 * How long a streamed reply to `turn` is held after its first event: `STREAM_SLOW:<ms>` in the last user text,
 * else 0. The agent has its 200 and the answer has begun, so a turn shows as working (not waiting for a reply).
 */
export function streamHoldMs(turn: Turn): number {
  return Number(/STREAM_SLOW:(\d+)/.exec(turn.userTexts.at(-1) ?? "")?.[1] ?? 0);
}

/** `value` with the skill's name put in for {@link SKILL_PLACEHOLDER} in every string it holds. */
function withSkill(value: unknown, skill: string): unknown {
  if (typeof value === "string") return value.split(SKILL_PLACEHOLDER).join(skill);
  if (Array.isArray(value)) return value.map((v) => withSkill(v, skill));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withSkill(v, skill)]));
  }
  return value;
}

/**
 * A one-line excerpt: whitespace collapsed, at most 81 characters. A long text keeps its head and its tail,
 * because agents put injected context before the prompt (Gemini's hook context) or after it.
 */
export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= 80 ? flat : `${flat.slice(0, 40)}…${flat.slice(-40)}`;
}
