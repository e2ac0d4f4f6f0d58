/**
 * The command line reaches its own server directly, whatever proxy the shell names: each command that calls the
 * server (`asm open`, `health`, `doctor`, `import`, `launch`, `restart`) works with a recording proxy in every
 * proxy variable, and the proxy receives nothing (no token, no prompt, no folder).
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { asm, servedHome, spawnServe, until } from "./_test_utils.ts";
import { currentHolder } from "../server/lock.ts";
import { directFetch } from "../server/client.ts";

/** A proxy that records every connection it gets (and the first bytes each sent), and answers 502. */
function recordingProxy() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const received: string[] = [];
  const done = (async () => {
    for await (const conn of listener) {
      const buf = new Uint8Array(4096);
      const n = await conn.read(buf).catch(() => null);
      received.push(new TextDecoder().decode(buf.subarray(0, n ?? 0)));
      await conn.write(new TextEncoder().encode("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n"))
        .catch(() => 0);
      conn.close();
    }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    received,
    async close() {
      listener.close();
      await done.catch(() => {});
    },
  };
}

Deno.test("every command that calls the server works behind a proxy in every variable, and the proxy receives nothing", async () => {
  const proxy = recordingProxy();
  const served = servedHome("asm-proxy-");
  const env = {
    ...served.env,
    HTTP_PROXY: proxy.url,
    http_proxy: proxy.url,
    HTTPS_PROXY: proxy.url,
    https_proxy: proxy.url,
    ALL_PROXY: proxy.url,
    all_proxy: proxy.url,
    // the variable a person sets to keep local traffic local: it names localhost, never 127.0.0.1
    NO_PROXY: "localhost",
    no_proxy: "localhost",
  };
  const server = spawnServe(env);
  let pid = server.pid;
  let answered = false;
  const ask = () =>
    void directFetch(served.port, "/api/health").then(async (r) => {
      await r.body?.cancel();
      answered = r.ok;
    }).catch(() => {});
  try {
    await until(
      "the server to hold the port",
      () => currentHolder(served.asmHome)?.port === served.port ? true : null,
    );
    await until("the server to answer", () => answered ? true : (ask(), null));
    const run = async (args: string[]) => ({ args, ...(await asm(args, env)) });

    const open = await run(["open", "--print"]);
    assert.equal(open.code, 0, open.text);
    assert.match(open.text, new RegExp(`^http://127\\.0\\.0\\.1:${served.port}/#code=`, "m"));

    const health = await run(["health"]);
    assert.equal(health.code, 0, health.text);
    assert.match(health.text, /Hook events +ok/, "the server's own health, not a failed call");

    const doctor = await run(["doctor"]);
    assert.match(doctor.text, /Hook events/, `the doctor read the server's health: ${doctor.text}`);
    assert.doesNotMatch(doctor.text, /did not answer|502|Bad Gateway/);

    const imported = await run(["import"]);
    assert.equal(imported.code, 0, imported.text);

    const folder = join(served.root, "work");
    Deno.mkdirSync(folder);
    const launch = await run([
      "launch",
      "--agent",
      "nosuchagent",
      "--folder",
      folder,
      "--prompt",
      "secret prompt",
    ]);
    assert.equal(launch.code, 1, launch.text);
    assert.match(launch.text, /^asm launch: .*nosuchagent/m, "the server's own refusal, naming the agent");
    assert.doesNotMatch(launch.text, /502|Bad Gateway|without JSON/);

    const restart = await run(["restart"]);
    assert.equal(restart.code, 0, restart.text);
    assert.match(restart.text, new RegExp(`asm is serving on http://127\\.0\\.0\\.1:${served.port}`));
    const after = currentHolder(served.asmHome);
    assert.ok(after !== null && after.pid !== server.pid, "a new server owns the port");
    pid = after!.pid;

    assert.deepEqual(
      proxy.received,
      [],
      `the proxy received nothing; outputs: ${
        JSON.stringify([open, health, doctor, imported, launch, restart].map((r) => r.text.slice(0, 300)))
      }`,
    );
  } finally {
    try {
      Deno.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
    await server.status;
    await until(
      "the restarted server to go",
      () => currentHolder(served.asmHome) === null ? true : null,
      20_000,
    )
      .catch(() => {});
    await proxy.close();
    Deno.removeSync(served.root, { recursive: true });
  }
});

Deno.test("no command-line module calls its server with a bare fetch: every call goes through directFetch", () => {
  const root = new URL("../../", import.meta.url).pathname;
  const offenders: string[] = [];
  for (const dir of ["lib/cli", "lib/cutover", "lib/doctor", "lib/install", "lib/server"]) {
    for (const entry of Deno.readDirSync(join(root, dir))) {
      // client.ts is directFetch itself
      if (!entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts") || entry.name === "client.ts") {
        continue;
      }
      const text = Deno.readTextFileSync(join(root, dir, entry.name));
      text.split("\n").forEach((line, i) => {
        if (/(^|[^.\w])fetch\(/.test(line)) offenders.push(`${dir}/${entry.name}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  assert.deepEqual(offenders, [], "a bare fetch() would go through any proxy the shell names");
});
