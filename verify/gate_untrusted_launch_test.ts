/**
 * Security issue 11, the launch half, with the REAL agents (the two that start fastest) in real tmux windows
 * against their loopback fakes, in ONE world shared by every step:
 *
 * - launch, resume and continue-with into folders named with tmux formats (`#(...)`, `#{...}`), shell
 *   substitutions (`$(...)`, backticks), `;` and both quotes run nothing (no marker file appears anywhere), and
 *   each shim starts in exactly its folder;
 * - a variable planted in the server's environment that no allow-list names is in no file under `$ASM_HOME`, in
 *   no process's command line and in no process's environment, while one the person's `[launch] env` names is in
 *   each agent's environment (and on disk nowhere);
 * - a launch's launcher, prompt and environment files are gone once it is matched.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { AgentConfig } from "../lib/agents/mod.ts";
import { SHIM_PATH } from "../lib/launch/mod.ts";
import { launchRow } from "../lib/ledger/mod.ts";
import { type LiveSession, type LiveWorld, liveWorld, testedAgents } from "./live_world.ts";
import { pathExists } from "../lib/files/mod.ts";

const MARK = `asmmark${crypto.randomUUID().slice(0, 8)}`;
/** Each folder name holds commands that would leave a marker file named `<MARK><n>` if anything ran them. */
const FOLDERS = {
  tmux: `tmux #(touch ${MARK}1) #{pane_id} #{?pane_id,#(touch ${MARK}2),} ##(touch ${MARK}3)`,
  shell:
    `shell $(touch ${MARK}4) \`touch ${MARK}5\` ; touch ${MARK}6 ; ' ; touch ${MARK}7 ; " ; touch ${MARK}8 "`,
};
const SECRET = `planted-${crypto.randomUUID()}`;
const ALLOWED = `allowed-${crypto.randomUUID()}`;

/** The two agents that start fastest (Gemini CLI takes several times as long), else the first two tested. */
function cheapestAgents(): [AgentConfig, AgentConfig] {
  const tested = testedAgents();
  const pick = ["claude", "codex"].map((n) => tested.find((a) => a.name === n)).filter((a) =>
    a !== undefined
  );
  const two = pick.length === 2 ? pick : tested.slice(0, 2);
  assert.equal(two.length, 2, "two tested agents");
  return [two[0], two[1]];
}

/** One start through the server, once its shim runs. */
interface Started {
  token: string;
  folder: string;
  panePid: number;
}

/**
 * POSTs a start, then waits for the pane's process to become the shim and checks the shim's working folder is
 * the folder, and that the environment file is already gone.
 */
async function start(
  w: LiveWorld,
  path: string,
  body: Record<string, unknown>,
  folder: string,
): Promise<Started> {
  const res = await w.post(path, { ...body, bypass_hook_trust: true });
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  const token = String(res.body.token);
  const panePid = launchRow(w.server.ledger, token)?.pane_pid;
  assert.ok(typeof panePid === "number", "the launch recorded its pane's process");
  const cwd = await w.until(
    () => {
      const argv = readProcFile(panePid, "cmdline")?.split("\0") ?? [];
      if (!argv.includes(SHIM_PATH)) return undefined;
      return Deno.readLinkSync(`/proc/${panePid}/cwd`);
    },
    `the shim of ${token} running in its pane`,
    30_000,
  );
  assert.equal(cwd, folder, "the shim starts in exactly the folder");
  await w.until(
    () => !pathExists(join(w.asmHome, "launches", `${token}.env`)),
    `the shim of ${token} deleting its environment file`,
    10_000,
  );
  return { token, folder, panePid };
}

function readProcFile(pid: number | string, name: string): string | null {
  try {
    return new TextDecoder().decode(Deno.readFileSync(`/proc/${pid}/${name}`));
  } catch {
    return null; // gone, or another user's
  }
}

/** Every regular file under `dir`, recursively (links are not followed). */
function* filesUnder(dir: string): Generator<string> {
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* filesUnder(path);
    else if (entry.isFile) yield path;
  }
}

/** Every name under `dir` (recursively) that starts with the marker prefix. */
function markersUnder(dir: string, recursive: boolean): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.name.startsWith(MARK)) found.push(join(dir, entry.name));
    if (recursive && entry.isDirectory) found.push(...markersUnder(join(dir, entry.name), true));
  }
  return found;
}

/** The agent's environment, as the kernel has it. */
function environOf(session: LiveSession): string[] {
  const text = readProcFile(session.pid, "environ");
  assert.ok(text !== null, `the agent process ${session.pid} is readable`);
  return text.split("\0");
}

Deno.test({
  name:
    "untrusted folder names run nothing through tmux or a shell, and a launch carries only its allow-listed " +
    "environment, through a file that is deleted",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const [first, second] = cheapestAgents();
    const w = await liveWorld([first, second], {
      folders: Object.values(FOLDERS),
      serverEnv: { ASM_PLANTED_SECRET: SECRET, ASM_ALLOWED_CANARY: ALLOWED },
      launchEnv: ["ASM_ALLOWED_CANARY"],
    });
    const tmuxFolder = w.folders.get(FOLDERS.tmux)!;
    const shellFolder = w.folders.get(FOLDERS.shell)!;
    const starts: Started[] = [];
    const sessions: LiveSession[] = [];
    try {
      const prompts = [
        `asm untrusted first ${crypto.randomUUID()}`,
        `asm untrusted second ${crypto.randomUUID()}`,
      ];
      const launched: { agent: AgentConfig; other: AgentConfig; live: LiveSession; prompt: string }[] = [];

      await t.step(
        "a launch into each folder starts its shim there, with the allow-listed variable only",
        async () => {
          const pairs = [
            { agent: first, other: second, folder: tmuxFolder, prompt: prompts[0] },
            { agent: second, other: first, folder: shellFolder, prompt: prompts[1] },
          ];
          await Promise.all(pairs.map(async (p) => {
            const s = await start(w, "/api/launch", {
              agent: p.agent.name,
              folder: p.folder,
              prompt: p.prompt,
            }, p.folder);
            starts.push(s);
            const live = await w.waitLive(s.token);
            sessions.push(live);
            launched.push({ agent: p.agent, other: p.other, live, prompt: p.prompt });
            console.log(`  ${p.agent.display}: live ${live.ms} ms after the launch request`);
          }));
          for (const live of sessions) {
            const environ = environOf(live);
            assert.equal(
              environ.includes(`ASM_ALLOWED_CANARY=${ALLOWED}`),
              true,
              "the person's name reached it",
            );
            assert.equal(environ.some((v) => v.includes(SECRET)), false, "the planted secret did not");
            assert.equal(
              environ.some((v) => v.startsWith("ASM_TMUX_SOCKET=")),
              false,
              "nor asm's own settings",
            );
          }
        },
      );

      await t.step(
        "RESUME and CONTINUE WITH of sessions recorded in those folders start their shims there",
        async () => {
          await Promise.all(launched.map(async ({ agent, other, live, prompt }) => {
            const row = () => w.server.ledger.session(live.asmId);
            // a resume needs the agent's own transcript, written with the first turn
            await w.until(() => {
              w.drain();
              const path = row()?.transcript_path ?? null;
              return path !== null && pathExists(path) && Deno.readTextFileSync(path).includes(prompt);
            }, `${agent.display}'s first turn in its transcript`);
            assert.equal(
              row()?.cwd,
              starts.find((s) => s.token === launchOf(w, live))?.folder,
              "the session's recorded folder is the untrusted name",
            );
            const ended = await w.post(`/api/sessions/${live.asmId}/end`);
            assert.equal(ended.status, 200, JSON.stringify(ended.body));
            w.drain();
            const folder = row()!.cwd!;
            const [resumed, continued] = await Promise.all([
              start(
                w,
                `/api/sessions/${live.asmId}/resume`,
                { prompt: `resumed ${crypto.randomUUID()}` },
                folder,
              ),
              start(
                w,
                `/api/sessions/${live.asmId}/continue`,
                { agent: other.name, prompt: `continued ${crypto.randomUUID()}` },
                folder,
              ),
            ]);
            starts.push(resumed, continued);
            for (const s of [resumed, continued]) sessions.push(await w.waitLive(s.token));
          }));
          for (const live of sessions.slice(2)) {
            const environ = environOf(live);
            assert.equal(environ.includes(`ASM_ALLOWED_CANARY=${ALLOWED}`), true);
            assert.equal(environ.some((v) => v.includes(SECRET)), false);
          }
        },
      );

      await t.step("nothing in the folder names ran: no marker file anywhere", async () => {
        // a tmux job or a shell would have run in one of these: the world, the server's and the test's working
        // folder, the tmux server's, the system's temporary folder, the real home
        const tmuxPid = (await w.tmux(["display-message", "-p", "#{pid}"])).out.trim();
        const places: [string, boolean][] = [
          [w.root, true],
          [Deno.cwd(), false],
          [Deno.readLinkSync(`/proc/${tmuxPid}/cwd`), false],
          ["/tmp", false],
          [Deno.env.get("HOME") ?? "/", false],
        ];
        const found = places.flatMap(([dir, recursive]) => {
          try {
            return markersUnder(dir, recursive);
          } catch (err) {
            if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied) return [];
            throw err;
          }
        });
        assert.deepEqual(found, []);
      });

      await t.step(
        "the planted secret is in no file under ASM_HOME, no command line and no environment",
        () => {
          const needles = [SECRET, ALLOWED].map((s) => new TextEncoder().encode(s));
          for (const path of filesUnder(w.asmHome)) {
            const bytes = Deno.readFileSync(path);
            for (const needle of needles) {
              assert.equal(indexOf(bytes, needle), -1, `${path} holds an environment value`);
            }
          }
          let environs = 0;
          for (const entry of Deno.readDirSync("/proc")) {
            if (!/^\d+$/.test(entry.name)) continue;
            const cmdline = readProcFile(entry.name, "cmdline") ?? "";
            assert.equal(
              cmdline.includes(SECRET) || cmdline.includes(ALLOWED),
              false,
              `pid ${entry.name}'s argv`,
            );
            const environ = readProcFile(entry.name, "environ");
            if (environ === null) continue;
            environs++;
            assert.equal(environ.includes(SECRET), false, `pid ${entry.name}'s environment: ${cmdline}`);
          }
          assert.ok(environs > sessions.length, "the scan read the agents' environments");
        },
      );

      await t.step("after the sessions, nothing under ASM_HOME is open to group or others", async () => {
        w.drain(); // the drained events move to processed/ too
        const found = await new Deno.Command("find", { args: [w.asmHome, "-perm", "/077"], stdout: "piped" })
          .output();
        assert.ok(found.success, "find ran");
        assert.deepEqual(new TextDecoder().decode(found.stdout).split("\n").filter(Boolean), []);
        assert.ok([...filesUnder(join(w.asmHome, "processed"))].length > 0, "the check saw drained events");
      });

      await t.step("a matched launch's launcher, prompt and environment files are gone", async () => {
        await w.until(
          () => {
            w.drain();
            const left = starts.filter((s) => {
              const row = launchRow(w.server.ledger, s.token);
              return row?.matched_asm_id === null ||
                ["sh", "prompt", "env"].some((ext) =>
                  pathExists(join(w.asmHome, "launches", `${s.token}.${ext}`))
                );
            });
            return left.length === 0;
          },
          "every launch matched and its files deleted by the server's launches service",
          20_000,
        );
      });
    } finally {
      await w.close();
    }
  },
});

/** The token of the launch that started `live`. */
function launchOf(w: LiveWorld, live: LiveSession): string | undefined {
  const row = w.server.ledger.query(
    "SELECT launch_token FROM runs WHERE asm_id = ? AND pid = ? ORDER BY run_id LIMIT 1",
    live.asmId,
    live.pid,
  )[0];
  return row ? String(row.launch_token) : undefined;
}

/** Where `needle` starts in `bytes`, or -1. */
function indexOf(bytes: Uint8Array, needle: Uint8Array): number {
  const first = needle[0];
  for (
    let i = bytes.indexOf(first);
    i !== -1 && i <= bytes.length - needle.length;
    i = bytes.indexOf(first, i + 1)
  ) {
    let j = 1;
    while (j < needle.length && bytes[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}
