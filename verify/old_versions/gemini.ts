/**
 * Gemini CLI's older versions for the old-version fixtures (docs/agents/gemini_old_versions.md): each is driven
 * offline against the loopback fake (verify/fakes/gemini.ts), headless (`-p`, `--resume`, `--list-sessions`) and
 * interactive (in tmux), and the files asm reads are copied into the fixture tree.
 *
 * The formats (read from the published packages): before 0.4.0 the CLI recorded no chats at all; 0.4.0 to 0.38.x
 * write one pretty-printed JSON document per session, `tmp/<project>/chats/session-<minute>-<id8>.json`,
 * rewritten whole on every change (`tmp/<sha256 of the folder>/` up to 0.28, `tmp/<folder name>/` with
 * `projects.json` from 0.29); 0.39.0 switched to append-only JSONL with `$set` records from its first release
 * (there is no JSONL without `$set`), and it resumes a `.json` session into `<same name>.jsonl` beside it.
 * `/chat save <tag>` writes `tmp/<project>/checkpoint-<tag>.json` (`{history: [{role, parts}]}` from 0.16; a
 * bare list before): a copy of the conversation, not a session, kept here to show it makes no row.
 *
 * ```sh
 * deno run -A verify/old_versions/mod.ts gemini
 * ```
 * @module
 */

import { dirname, join } from "node:path";
import type { GenerateOptions, OldVersions } from "./mod.ts";
import { startFake } from "../fakes/mod.ts";
import { filesOf } from "./files.ts";

/**
 * Settings every version accepts: API-key auth (the base URL alone selects an auth type `-p` rejects in the
 * later versions), and nothing that phones home.
 */
const SETTINGS = {
  security: { auth: { selectedType: "gemini-api-key" } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  ide: { enabled: false, hasSeenNudge: true },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 1 },
};

/** The last version that writes `.json` chats: 0.39.1's fixture starts a session with it, then resumes it. */
const LAST_JSON = "0.38.2";

/** How one installed version is run in the scratch world. */
interface Runner {
  /** Runs `gemini <args>` headless (stdin closed) with the version at `bin`; throws on a non-zero exit. */
  headless(bin: string, args: string[]): Promise<string>;
  /** Types each prompt into an interactive session in tmux, each after the previous reply, then `/quit`. */
  interactive(bin: string, prompts: string[]): Promise<void>;
}

function runner(o: GenerateOptions, url: string, scratch: string): Runner {
  const env: Record<string, string> = {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: o.home,
    GEMINI_CLI_HOME: o.home,
    // API errors write report files into the OS temp folder: keep them out of the fixture and of /tmp
    TMPDIR: scratch,
    LANG: "C.UTF-8",
    GEMINI_API_KEY: "dummy-not-a-key",
    GOOGLE_GEMINI_BASE_URL: url,
    // headless runs of 0.39 and later exit 55 in an untrusted folder; older versions ignore it
    GEMINI_CLI_TRUST_WORKSPACE: "true",
  };
  return {
    async headless(bin, args) {
      const out = await new Deno.Command(bin, {
        args,
        cwd: o.project,
        clearEnv: true,
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout);
      if (!out.success) {
        const err = new TextDecoder().decode(out.stderr).slice(-1500);
        throw new Error(`gemini ${args.join(" ")} exited ${out.code}: ${text}${err}`);
      }
      return text;
    },
    async interactive(bin, prompts) {
      const socket = `asm-old-gemini-${Deno.pid}`;
      const tmux = (...args: string[]) =>
        new Deno.Command("tmux", { args: ["-L", socket, ...args], stdout: "piped", stderr: "piped" })
          .output();
      const pane = async () => new TextDecoder().decode((await tmux("capture-pane", "-p", "-t", "g")).stdout);
      const waitFor = async (what: string, test: (text: string) => boolean) => {
        const until = Date.now() + 60_000;
        while (Date.now() < until) {
          if (test(await pane())) return;
          await new Promise((r) => setTimeout(r, 300));
        }
        throw new Error(`gemini (interactive): no ${what} within 60 s; the screen:\n${await pane()}`);
      };
      const type = async (text: string) => {
        await tmux("send-keys", "-t", "g", "-l", text);
        await new Promise((r) => setTimeout(r, 300));
        await tmux("send-keys", "-t", "g", "Enter");
      };
      const line = [
        "env",
        "-i",
        ...Object.entries({ ...env, TERM: "xterm-256color" }).map(([k, v]) => `${k}=${v}`),
      ]
        .concat(bin).map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
      const started = await tmux(
        "new-session",
        "-d",
        "-x",
        "200",
        "-y",
        "50",
        "-s",
        "g",
        "-c",
        o.project,
        line,
      );
      if (!started.success) throw new Error(`tmux: ${new TextDecoder().decode(started.stderr)}`);
      try {
        const ready = (text: string) => text.includes("Type your message");
        for (const prompt of prompts) {
          await waitFor("prompt line", ready);
          await type(prompt);
          // the fake's reply quotes the prompt after a colon; a slash command prints its own line
          await waitFor(
            `answer to "${prompt}"`,
            (text) => prompt.startsWith("/") ? /checkpoint saved/i.test(text) : text.includes(`: ${prompt}`),
          );
        }
        await waitFor("prompt line", ready);
        await type("/quit");
        const until = Date.now() + 30_000;
        while (Date.now() < until && (await tmux("has-session", "-t", "g")).success) {
          await new Promise((r) => setTimeout(r, 300));
        }
      } finally {
        await tmux("kill-server");
      }
    },
  };
}

/**
 * The files asm reads (the chats, each folder's `logs.json` and `.project_root`, `projects.json`), and the
 * `/chat save` checkpoints (to show they make no row); nothing else of the scratch home.
 */
const KEPT = [
  /^\.gemini\/projects\.json$/,
  /^\.gemini\/tmp\/[^/]+\/(\.project_root|logs\.json|checkpoint-[^/]+\.json)$/,
  /^\.gemini\/tmp\/[^/]+\/chats\/.+$/,
];

function copyKept(home: string, out: string): string[] {
  const kept = filesOf(home).filter((rel) => KEPT.some((re) => re.test(rel)));
  for (const rel of kept) {
    const to = join(out, "home", rel);
    Deno.mkdirSync(dirname(to), { recursive: true });
    Deno.copyFileSync(join(home, rel), to);
  }
  return kept;
}

function writeSettings(o: GenerateOptions): void {
  const dir = join(o.home, ".gemini");
  Deno.mkdirSync(dir, { recursive: true });
  Deno.writeTextFileSync(join(dir, "settings.json"), JSON.stringify(SETTINGS, null, 2));
  // interactive versions with folder trust ask about the folder first; the answer they would write
  Deno.writeTextFileSync(join(dir, "trustedFolders.json"), JSON.stringify({ [o.project]: "TRUST_FOLDER" }));
}

/** What each version is driven through (the sessions are described in docs/agents/gemini_old_versions.md). */
async function drive(o: GenerateOptions, run: Runner): Promise<void> {
  const bin = join(o.prefix, "node_modules", ".bin", "gemini");
  const v = o.version.version;
  if (v === "0.8.2") {
    // no --resume in this version
    await run.headless(bin, ["-p", "first prompt alpha"]);
    await run.interactive(bin, ["interactive prompt beta", "interactive prompt gamma"]);
    return;
  }
  if (v === "0.39.1") {
    // a person who upgraded mid-session: the session starts in the last .json version, goes on in this one
    const old = await o.install(LAST_JSON);
    await run.headless(join(old, "node_modules", ".bin", "gemini"), ["-p", "prompt before the upgrade"]);
    await run.headless(bin, ["--resume", "latest", "-p", "prompt after the upgrade"]);
    await run.headless(bin, ["-p", "fresh prompt delta"]);
    return;
  }
  await run.headless(bin, ["-p", "first prompt alpha"]);
  await run.headless(bin, ["--resume", "latest", "-p", "second prompt beta"]);
  // lists the sessions, and writes a model-made summary into the latest one with more than one prompt
  await run.headless(bin, ["--list-sessions"]);
  await run.headless(bin, ["--yolo", "-p", "USE_TOOL third prompt gamma"]);
  await run.interactive(bin, ["interactive prompt delta", "interactive prompt epsilon", "/chat save mytag"]);
}

/** Gemini CLI's older versions, oldest first. */
export const PLAN: OldVersions = {
  agent: "gemini",
  pkg: "@google/gemini-cli",
  versions: [
    {
      version: "0.8.2",
      why:
        "an early .json chat: tmp/<sha256 of the folder>/chats, user content a plain string, no summary, " +
        "no --resume",
    },
    {
      version: "0.26.0",
      why: "a .json chat with --resume and a summary, still in the hashed folder (no projects.json)",
    },
    {
      version: LAST_JSON,
      why: "the last .json version: tmp/<folder name>/ with projects.json, kind, content as parts",
    },
    {
      version: "0.39.1",
      why: "the first JSONL version (with $set from the start), resuming a 0.38.2 .json session into a " +
        ".jsonl beside it",
    },
  ],
  async generate(o) {
    writeSettings(o);
    const scratch = await Deno.makeTempDir({ prefix: "asm-old-gemini-" });
    const fake = await startFake("gemini");
    try {
      await drive(o, runner(o, fake.url, scratch));
    } finally {
      await fake.close();
      await Deno.remove(scratch, { recursive: true }).catch(() => {});
    }
    const kept = copyKept(o.home, o.out);
    console.log(`gemini ${o.version.version}: kept ${kept.length} files\n  ${kept.join("\n  ")}`);
  },
};
