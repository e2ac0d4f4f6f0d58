import assert from "node:assert/strict";
import { join } from "node:path";
import { identityOf, LINUX_PROC, type ProcInfo, readProc } from "../../procs/mod.ts";
import { builtinAgent, tempHomes, writeFile } from "../_test_utils.ts";
import { geminiLive, geminiLiveFrom } from "./live.ts";
import { geminiDir } from "./discover.ts";

const ref = (id: string, pid: number, procStart: number) => ({
  agentSessionId: id,
  transcriptPath: null,
  runs: [{ pid, procStart }],
});

Deno.test("an open session is Gemini's own only while its run is a Gemini process with the recorded ticks", () => {
  const node = (pid: number, ticks: number, script: string): ProcInfo => ({
    pid,
    ppid: 1,
    startTicks: ticks,
    exe: "/usr/bin/node",
    argv: ["/usr/bin/node", "--max-old-space-size=12052", script],
  });
  const procs = new Map([
    [10, node(10, 100, "/x/@google/gemini-cli/bundle/gemini.js")],
    [20, node(20, 200, "/x/other/server.js")],
    [30, node(30, 999, "/x/@google/gemini-cli/bundle/gemini.js")],
  ]);
  const report = geminiLiveFrom(
    [
      ref("gemini-child", 10, 100),
      ref("plain-node", 20, 200),
      ref("reused-pid", 30, 300),
      ref("gone", 40, 400),
    ],
    procs,
    (p) => p.argv.some((a) => a.endsWith("/@google/gemini-cli/bundle/gemini.js")),
  );
  assert.deepEqual([...report.sessions.keys()], ["gemini-child"]);
  assert.equal(report.sessions.get("gemini-child")!.activity, null, "the hooks speak for Gemini's activity");
  assert.equal(report.carriers.size, 0, "nothing Gemini writes lists the sessions a process carries");
});

Deno.test(
  "geminiLive recognises a real node process by the realpath of its gemini.js script, and reads a failed " +
    "turn from its own chat file only",
  async () => {
    using homes = tempHomes();
    const bundle = join(homes.root, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js");
    writeFile(bundle, "setTimeout(() => {}, 30_000);\n");
    // the agent is run through its .bin link, as npm installs it; the proof is where the link resolves
    Deno.mkdirSync(join(homes.root, "node_modules", ".bin"));
    const link = join(homes.root, "node_modules", ".bin", "gemini");
    Deno.symlinkSync(bundle, link);
    const other = join(homes.root, "other.js");
    writeFile(other, "setTimeout(() => {}, 30_000);\n");
    const gemini = new Deno.Command("node", { args: [link] }).spawn();
    const plain = new Deno.Command("node", { args: [other] }).spawn();
    try {
      const query = {
        agent: builtinAgent(homes, "gemini"),
        env: homes.env,
        procs: { get: (p: number) => readProc(p) ?? undefined },
        open: [
          ref("the-cli", gemini.pid, identityOf(gemini.pid)!.procStart),
          ref("not-the-cli", plain.pid, identityOf(plain.pid)!.procStart),
        ],
        proc: LINUX_PROC,
      };
      // node rewrites its argv only after it starts; wait until /proc shows the script
      for (let i = 0; i < 100 && !(readProc(gemini.pid)?.argv.includes(link)); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual([...geminiLive(query).sessions.keys()], ["the-cli"]);
      assert.equal(geminiLive(query).sessions.get("the-cli")!.activity, null, "no chat yet: the hooks speak");

      // the chat Gemini CLI 0.61 wrote for a turn the API answered 400
      const captured = Deno.readTextFileSync(
        join(import.meta.dirname!, "../../../verify/fixtures/turn_trouble/gemini/failed-400.chat.jsonl"),
      );
      const chat = join(
        geminiDir(homes.env),
        "tmp",
        "proj",
        "chats",
        "session-2026-12-04T18-57-375775b7.jsonl",
      );
      writeFile(chat, captured);
      const withChat = (path: string) => ({ ...query, open: [{ ...query.open[0], transcriptPath: path }] });
      assert.deepEqual(geminiLive(withChat(chat)).sessions.get("the-cli")!.activity, {
        state: "failed",
        raw: "error",
        reason:
          '[API Error: {"error":{"code":400,"message":"mock failure 400","status":"INVALID_ARGUMENT"}}]',
        at: "2026-12-04T18:57:11.998Z",
      });
      // a hook's path outside Gemini's folder is not read, whatever it holds
      const elsewhere = join(homes.root, "elsewhere.jsonl");
      writeFile(elsewhere, captured);
      assert.equal(geminiLive(withChat(elsewhere)).sessions.get("the-cli")!.activity, null);
    } finally {
      for (const child of [gemini, plain]) {
        child.kill("SIGKILL");
        await child.status;
      }
    }
  },
);
