/**
 * Codex's older versions for the old-version fixtures (docs/agents/codex_old_versions.md): each is driven offline
 * against the loopback fake (verify/fakes/openai.ts), headless (`codex exec`, its resume, `codex review`) and, where
 * a version records only its interactive sessions or to show the interactive source, in its terminal UI (tmux);
 * the rollouts and the thread index asm reads are copied into the fixture tree.
 *
 * The formats (read from the published packages and their binaries, then run): the TypeScript CLI
 * (0.1.2504172351 to 0.1.2505172129) saves a session only from its terminal UI, as one pretty-printed JSON
 * document `sessions/rollout-<day>-<id>.json` rewritten whole on every item; the Rust CLI (the default from
 * 0.1.2505191453) appends `rollout-<time>-<id>.jsonl`, bare lines up to 0.29.0 (a `{id, timestamp}` head, response
 * items, `{"record_type":"state"}`), the `{timestamp, type, payload}` envelope from 0.34.0, `source` in its
 * session_meta from 0.44.0, the thread index `state_5.sqlite` from 0.107.0 and `thread_source` from 0.133.0.
 *
 * ```sh
 * deno run -A verify/old_versions/mod.ts codex
 * ```
 * @module
 */

import { basename, dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { GenerateOptions, OldVersions } from "./mod.ts";
import { startFake } from "../fakes/mod.ts";
import { filesOf } from "./files.ts";

/** The prompts the fixtures type; the test reads them back as first messages and titles. */
export const CODEX_OLD_PROMPTS = {
  first: "Say hello from the first session",
  second: "Say hello from the second session",
  resumed: "And one more thing",
  tui: "Hello from the terminal UI",
};

/** The TypeScript CLI: it needs Node 22 (this machine has 20), so it runs under Deno, which reports a newer one. */
const TS_ERA = "0.1.2505172129";

/** How one installed version is run in the scratch world. */
interface Runner {
  /** Runs the version headless (stdin closed) in the project folder; throws on a non-zero exit. */
  headless(args: string[]): Promise<void>;
  /** Types each prompt into the version's terminal UI in tmux, each after the previous reply, then quits. */
  interactive(args: string[], prompts: string[]): Promise<void>;
}

function runner(o: GenerateOptions, url: string, scratch: string): Runner {
  const ts = o.version.version === TS_ERA;
  const env: Record<string, string> = {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: o.home,
    CODEX_HOME: join(o.home, ".codex"),
    LANG: "C.UTF-8",
    TMPDIR: scratch,
    // the Rust versions' provider (config.toml) reads this key; the TypeScript CLI reads OpenAI's own variables
    MOCK_API_KEY: "sk-mock-not-real",
    OPENAI_API_KEY: "sk-mock-not-real",
    OPENAI_BASE_URL: `${url}/v1`,
    DENO_DIR: join(scratch, "deno"),
  };
  const command = ts
    ? [
      Deno.execPath(),
      "run",
      "-A",
      "--node-modules-dir=manual",
      join(o.prefix, "node_modules", "@openai", "codex", "bin", "codex.js"),
      "-m",
      "mock-model",
    ]
    : [join(o.prefix, "node_modules", ".bin", "codex")];
  return {
    async headless(args) {
      const out = await new Deno.Command(command[0], {
        args: [...command.slice(1), ...args],
        cwd: o.project,
        clearEnv: true,
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(120_000),
      }).output();
      if (!out.success) {
        const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
        throw new Error(`codex ${args.join(" ")} exited ${out.code}: ${text.slice(-2000)}`);
      }
    },
    async interactive(args, prompts) {
      const socket = `asm-old-codex-${Deno.pid}`;
      const tmux = (...a: string[]) =>
        new Deno.Command("tmux", { args: ["-L", socket, ...a], stdout: "piped", stderr: "piped" }).output();
      const pane = async () => new TextDecoder().decode((await tmux("capture-pane", "-p", "-t", "c")).stdout);
      const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const waitFor = async (what: string, test: (text: string) => boolean) => {
        const until = Date.now() + 60_000;
        while (Date.now() < until) {
          if (test(await pane())) return;
          await pause(300);
        }
        throw new Error(`codex (interactive): no ${what} within 60 s; the screen:\n${await pane()}`);
      };
      const line = [
        "env",
        "-i",
        ...Object.entries({ ...env, TERM: "xterm-256color" }).map(([k, v]) => `${k}=${v}`),
      ]
        .concat(command, args).map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
      const started = await tmux(
        "new-session",
        "-d",
        "-x",
        "160",
        "-y",
        "45",
        "-s",
        "c",
        "-c",
        o.project,
        line,
      );
      if (!started.success) throw new Error(`tmux: ${new TextDecoder().decode(started.stderr)}`);
      try {
        // the TypeScript UI's session box, the Rust UI's banner: the composer takes keys from then on
        await waitFor("composer", (text) => /localhost session:|OpenAI Codex \(v/.test(text));
        await pause(1000);
        for (const prompt of prompts) {
          await tmux("send-keys", "-t", "c", "-l", prompt);
          await pause(300);
          await tmux("send-keys", "-t", "c", "Enter");
          // the fake's reply quotes the prompt after its number
          await waitFor(
            `answer to "${prompt}"`,
            (text) => new RegExp(`Mock reply #\\d+: ${prompt}`).test(text),
          );
        }
        // the TypeScript CLI saves its file after each item, without waiting: let the last save land
        await pause(2000);
        const until = Date.now() + 20_000;
        while (Date.now() < until && (await tmux("has-session", "-t", "c")).success) {
          await tmux("send-keys", "-t", "c", "C-c");
          await pause(700);
        }
      } finally {
        await tmux("kill-server");
      }
    },
  };
}

/** The rollout a run just wrote: the one file under sessions/ that was not there before. */
function newRollout(sessions: string, before: string[]): string {
  const added = filesOf(sessions).filter((f) => !before.includes(f));
  if (added.length !== 1) throw new Error(`expected one new rollout, found ${JSON.stringify(added)}`);
  return join(sessions, added[0]);
}

/** The thread id a rollout's file name ends with. */
function threadIdOf(path: string): string {
  const id = basename(path).match(/([0-9a-f]{8}-[0-9a-f-]{27})\.jsonl?$/)?.[1];
  if (id === undefined) throw new Error(`no thread id in ${path}`);
  return id;
}

async function git(project: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-C", project, "-c", "user.name=asm", "-c", "user.email=asm@localhost", ...args],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

/** The sessions each version is driven through (see the PLAN's reasons). */
async function drive(o: GenerateOptions, run: Runner): Promise<void> {
  const p = CODEX_OLD_PROMPTS;
  const sessions = join(o.home, ".codex", "sessions");
  const exec = (...args: string[]) => run.headless(["exec", ...args]);
  switch (o.version.version) {
    case TS_ERA:
      // -q (its headless mode) saves nothing: only the terminal UI writes a session file
      await run.interactive([], [p.first, p.resumed]);
      await run.interactive([], [p.second]);
      return;
    case "0.29.0": {
      const before = filesOf(sessions);
      await exec(p.first);
      const first = newRollout(sessions, before);
      await exec(p.second);
      // no resume command yet: the config key copies the old conversation into a new rollout
      await run.headless(["-c", `experimental_resume="${first}"`, "exec", p.resumed]);
      return;
    }
    case "0.42.0": {
      const before = filesOf(sessions);
      await exec(p.first);
      const first = threadIdOf(newRollout(sessions, before));
      await exec(p.second);
      await exec("resume", first, p.resumed);
      return;
    }
    case "0.120.0": {
      const before = filesOf(sessions);
      await exec(p.first);
      const first = threadIdOf(newRollout(sessions, before));
      await run.interactive([], [p.tui, p.resumed]);
      await exec("resume", first, p.resumed);
      // a review runs in a sub-agent thread of its own: the {"subagent": "review"} source
      await Deno.writeTextFile(join(o.project, "notes.txt"), "one line to review\n");
      await run.headless(["review", "--uncommitted"]);
      return;
    }
    default:
      throw new Error(`no sessions planned for codex ${o.version.version}`);
  }
}

/** Copies what asm reads: the rollouts, and the thread index as one file (its write-ahead log folded in). */
function copyOut(o: GenerateOptions): void {
  const codex = join(o.home, ".codex");
  for (const rel of filesOf(join(codex, "sessions"))) {
    const to = join(o.out, "home", ".codex", "sessions", rel);
    Deno.mkdirSync(join(to, ".."), { recursive: true });
    Deno.copyFileSync(join(codex, "sessions", rel), to);
  }
  for (const e of Deno.readDirSync(codex)) {
    if (!e.isFile || !/^state_\d+\.sqlite$/.test(e.name)) continue;
    const db = new DatabaseSync(join(codex, e.name));
    try {
      db.exec(`VACUUM INTO '${join(o.out, "home", ".codex", e.name).replaceAll("'", "''")}'`);
    } finally {
      db.close();
    }
  }
}

async function generate(o: GenerateOptions): Promise<void> {
  const fake = await startFake("openai");
  // beside the HOME, at a fixed path: Codex names its temp folder in the sandbox text of every rollout
  const scratch = join(dirname(o.home), "tmp");
  await Deno.mkdir(scratch, { recursive: true });
  try {
    await Deno.mkdir(join(o.home, ".codex"), { recursive: true });
    // the provider every Rust version reads; the project trusted so the terminal UI asks nothing first
    await Deno.writeTextFile(
      join(o.home, ".codex", "config.toml"),
      [
        'model = "mock-model"',
        'model_provider = "mock"',
        "[model_providers.mock]",
        'name = "Mock OpenAI"',
        `base_url = "${fake.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "MOCK_API_KEY"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        `[projects."${o.project}"]`,
        'trust_level = "trusted"',
        "",
      ].join("\n"),
    );
    // a git folder: the TypeScript UI asks before it works outside one, and a review needs one
    await git(o.project, "init", "-q");
    await drive(o, runner(o, fake.url, scratch));
    copyOut(o);
  } finally {
    await fake.close();
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}

/** Codex's older versions, oldest first: each one stands before a change of what its files say. */
export const PLAN: OldVersions = {
  agent: "codex",
  pkg: "@openai/codex",
  versions: [
    {
      version: TS_ERA,
      why:
        "the last TypeScript CLI: one JSON document per session, rewritten whole, no cwd, model or times " +
        "per item; its terminal UI only (-q saves nothing)",
    },
    {
      version: "0.29.0",
      why:
        "the last rollout before the envelope: bare lines, a {id, timestamp} head, record_type state lines, " +
        "the folder only inside the <environment_context> text, resume copies into a new rollout",
    },
    {
      version: "0.42.0",
      why:
        "the envelope and turn_context, before session_meta's source: exec and the terminal UI write the " +
        "same originator, so nothing says headless",
    },
    {
      version: "0.120.0",
      why: "source (exec, cli, {subagent: review}) and the thread index state_5.sqlite, before thread_source",
    },
  ],
  generate,
};
