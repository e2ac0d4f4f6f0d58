/**
 * Fake model servers on 127.0.0.1 that the real Claude Code, Codex and Gemini CLI talk to offline.
 *
 * ```ts
 * const fake = await startFake("anthropic", { script: [{ match: "ping", reply: { text: "pong" } }] });
 * // ... run the agent with the environment below, pointed at fake.url ...
 * assert(fake.userTexts().some((t) => t.includes("ping")));
 * await fake.close();
 * ```
 *
 * Prompt triggers (see replies.ts): `SLOW:<ms>`, `USE_TOOL` (the agent's shell tool once, then text),
 * `USE_SKILL <name>` (the agent's own way to run that skill once, then text), `FAIL_HTTP:<code>`; otherwise
 * `Mock reply #N: <excerpt>`.
 *
 * What each real agent needs against its fake (verified by hand with the pinned versions):
 *
 * Claude Code 2.1.328, from a scratch cwd (about 1 s per run):
 * ```sh
 * env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=$TMP_HOME \
 *   ANTHROPIC_BASE_URL=$URL ANTHROPIC_API_KEY=sk-test-dummy \
 *   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
 *   claude -p "hello" --output-format json --allowedTools Bash </dev/null
 * ```
 * - It only calls `POST /v1/messages?beta=true` (always streamed). `result` is the mock text.
 * - `USE_TOOL` runs Bash `echo mock-tool-ran`; Claude approves that read-only command even without
 *   `--allowedTools Bash`, but a rule's own command (`touch x`) needs the flag.
 * - `USE_SKILL <name>` calls the `Skill` tool; Claude loads `~/.claude/skills/<name>/SKILL.md` and writes its
 *   "Base directory for this skill" marker.
 * - `FAIL_HTTP:429`/`5xx`: one request, rc 1, `is_error:true`, `api_error_status`, because the fake sends
 *   `x-should-retry: false` (without it Claude retries with backoff for minutes). `FAIL_HTTP:400`: Claude
 *   fires about six quick variants of the request, then rc 1, still about 1 s.
 *
 * Codex 0.169.0 (about 1 s per run), `$CODEX_HOME/config.toml`:
 * ```toml
 * model = "mock-model"
 * model_provider = "mock"
 * [model_providers.mock]
 * name = "Mock OpenAI"
 * base_url = "<fake.url>/v1"
 * wire_api = "responses"
 * env_key = "MOCK_API_KEY"
 * request_max_retries = 0   # without these two, FAIL_HTTP:500 is retried 30 times over 25 s
 * stream_max_retries = 0
 * ```
 * ```sh
 * env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=$TMP_HOME CODEX_HOME=$TMP_HOME \
 *   MOCK_API_KEY=sk-mock-not-real codex exec --skip-git-repo-check "hello" </dev/null
 * ```
 * - The final message is on stdout; stderr warns about PATH aliases under /tmp, bubblewrap and missing model
 *   metadata (all harmless).
 * - `USE_TOOL` runs `exec_command` in the default read-only sandbox, no flag needed; the answer quotes its
 *   output.
 * - `USE_SKILL <name>` reads `$CODEX_HOME/skills/<name>/SKILL.md` with `exec_command` (Codex has no skill tool;
 *   that read is no skill marker). The skill body Codex loads for a `$name` in the prompt is not a user text.
 * - Every rollout `token_count` carries `rate_limits` (primary 12.5 % / 300 min, secondary 40 % / 10080 min,
 *   `resets_at` in absolute epoch seconds) copied from the `x-codex-*` headers. `FAIL_HTTP:429` is not
 *   retried.
 *
 * Gemini CLI 0.61.0 (3 to 5 s per run), `$HOME/.gemini/settings.json`:
 * ```json
 * {"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false},
 *  "telemetry": {"enabled": false}, "ide": {"enabled": false, "hasSeenNudge": true},
 *  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false, "maxAttempts": 1}}
 * ```
 * ```sh
 * env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=$TMP_HOME TMPDIR=$TMP_DIR GEMINI_API_KEY=dummy \
 *   GOOGLE_GEMINI_BASE_URL=$URL gemini --skip-trust -p "hello" </dev/null
 * ```
 * - `selectedType` is required: the base URL alone selects "gateway" auth, which `-p` rejects (rc 41).
 *   Without `--skip-trust` (or a `trustedFolders.json`) an untrusted cwd exits 55.
 * - Each turn is two requests: the model router (`generateContent`, JSON mode, answered with
 *   {@link ROUTER_REPLY} and no reply number) and the turn (`streamGenerateContent?alt=sse`).
 * - `USE_TOOL` needs `--yolo`: headless Gemini does not offer `run_shell_command` otherwise (the fake then
 *   answers text). So does `USE_SKILL <name>`, which calls `activate_skill` (`~/.gemini/skills/<name>/SKILL.md`).
 * - `maxAttempts: 1` makes `FAIL_HTTP:429`/`5xx` one request and rc 1 in about 7 s; the default retries with
 *   backoff for over a minute. Every API error writes `gemini-client-error-*.json` into the OS temp folder,
 *   hence `TMPDIR`.
 *
 * @module
 */

import { answerAnthropic } from "./anthropic.ts";
import { answerGemini } from "./gemini.ts";
import { answerOpenai } from "./openai.ts";
import { createReplyBook, type ReplyBook, type ReplyRule } from "./replies.ts";
import { type FakeCall, type RecordedRequest, serveRecorded } from "./server.ts";
import { errorText } from "../../lib/lang/mod.ts";

export type { RecordedRequest } from "./server.ts";
export type { Reply, ReplyRule } from "./replies.ts";
export { MOCK_SHELL_COMMAND } from "./replies.ts";
export { ROUTER_REPLY } from "./gemini.ts";
export { parseSse, type SseEvent } from "./sse.ts";

/** The API a fake speaks: Anthropic Messages (Claude), OpenAI Responses (Codex), Gemini v1beta. */
export type FakeKind = "anthropic" | "openai" | "gemini";

/** Options of {@link startFake}. */
export interface FakeOptions {
  /** Rules tried before the built-in triggers, first match wins. */
  script?: ReplyRule[];
  /** Added to the delay of every model reply. */
  delayMs?: number;
  /** 0 or absent: any free port. */
  port?: number;
  /** Append every request to this file as one JSON line. */
  logPath?: string;
}

/** A running fake model server. */
export interface FakeServer {
  /** The API this fake speaks. */
  kind: FakeKind;
  /** `http://127.0.0.1:PORT`, no trailing slash (Codex's base_url wants `${url}/v1`). */
  url: string;
  /** The port it listens on. */
  port: number;
  /** Every request so far, credentials removed. */
  requests(): RecordedRequest[];
  /** Every distinct user/prompt text seen in model requests, injected context left out. */
  userTexts(): string[];
  /** All request bodies joined, for "did this marker reach the model" assertions. */
  bodyText(): string;
  /** Stops the server (a sleeping reply is cut short) and frees the port. */
  close(): Promise<void>;
}

const ANSWERS: Record<FakeKind, (call: FakeCall, book: ReplyBook) => Promise<Response>> = {
  anthropic: answerAnthropic,
  openai: answerOpenai,
  gemini: answerGemini,
};

/**
 * Starts a fake of `kind` on 127.0.0.1. Rejects with a plain sentence on an unknown kind, a malformed rule
 * or a busy port.
 */
export function startFake(kind: FakeKind, options: FakeOptions = {}): Promise<FakeServer> {
  // run inside a promise so that a synchronous throw (bad rule, busy port) becomes a rejection
  return Promise.resolve().then(() => {
    if (!Object.hasOwn(ANSWERS, kind)) {
      throw new Error(`unknown fake kind "${kind}"; use anthropic, openai or gemini`);
    }
    const book = createReplyBook({ script: options.script, delayMs: options.delayMs });
    const answer = ANSWERS[kind];
    const server = serveRecorded((call) => answer(call, book), {
      port: options.port,
      logPath: options.logPath,
    });
    return { kind, ...server, userTexts: book.userTexts };
  });
}

const USAGE = "usage: deno run -A verify/fakes/mod.ts anthropic|openai|gemini [--port N] [--log FILE] " +
  "[--script RULES.json] [--delay MS]";

/** The command line: start one fake, print its url, run until SIGINT or SIGTERM. */
async function main(args: string[]): Promise<void> {
  const [kind, ...rest] = args;
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    if (!/^--(port|log|script|delay)$/.test(rest[i]) || rest[i + 1] === undefined) {
      console.error(USAGE);
      Deno.exit(2);
    }
    flags[rest[i].slice(2)] = rest[i + 1];
  }
  if (!Object.hasOwn(ANSWERS, kind ?? "")) {
    console.error(USAGE);
    Deno.exit(2);
  }
  const script = flags.script ? JSON.parse(await Deno.readTextFile(flags.script)) as ReplyRule[] : undefined;
  const fake = await startFake(kind as FakeKind, {
    port: flags.port ? Number(flags.port) : 0,
    logPath: flags.log,
    script,
    delayMs: flags.delay ? Number(flags.delay) : 0,
  });
  console.log(fake.url);
  const stop = async () => {
    await fake.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (err) {
    console.error(`fake server did not start: ${errorText(err)}`);
    Deno.exit(1);
  }
}
