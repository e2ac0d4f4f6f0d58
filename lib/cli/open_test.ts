import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../server/mod.ts";
import { authRoutes } from "../../routes/api/auth.ts";
import { asm, servedHome } from "./_test_utils.ts";
import { openPagesFolder, writeOpenPage } from "./open.ts";

/** Every process's command line now, as text (arguments joined by spaces). */
function commandLines(): string[] {
  const lines: string[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      lines.push(Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).replaceAll("\0", " "));
    } catch {
      // gone meanwhile
    }
  }
  return lines;
}

Deno.test("asm open hands the browser a private page, never the code: no command line holds it while it opens", async () => {
  const served = servedHome("asm-open-");
  const server = startServer({ asmHome: served.asmHome, port: 0, services: [], routes: authRoutes });
  // a browser that keeps its argument, copies the page it was given, and stays a moment (as browsers do)
  const browser = join(served.root, "browser.sh");
  const given = join(served.root, "given.txt");
  const copy = join(served.root, "page.html");
  Deno.writeTextFileSync(
    browser,
    `#!/bin/sh\nprintf '%s' "$1" > '${given}'\ncat "\${1#file://}" > '${copy}'\nsleep 1.5\n`,
    { mode: 0o700 },
  );
  try {
    const seen = new Set<string>();
    let running = true;
    const watching = (async () => {
      while (running) {
        for (const line of commandLines()) seen.add(line);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const out = await asm(["open"], { ...served.env, BROWSER: browser });
    running = false;
    await watching;
    assert.equal(out.code, 0, out.text);
    assert.match(out.text, /opened asm's page/);
    const argument = Deno.readTextFileSync(given);
    assert.match(argument, /^file:\/\//, `the browser was given a file: ${argument}`);
    const page = fileURLToPath(argument);
    assert.equal(join(page, ".."), openPagesFolder(served.asmHome), "in the data folder's open/ folder");
    assert.equal(Deno.statSync(page).mode! & 0o777, 0o600, "readable by this user alone");
    assert.equal(Deno.statSync(openPagesFolder(served.asmHome)).mode! & 0o777, 0o700);
    const html = Deno.readTextFileSync(copy);
    const code = html.match(/#code=([A-Za-z0-9_-]{43})/)?.[1];
    assert.ok(code, `the page carries the code: ${html}`);
    assert.ok(seen.size > 10, `the process table was read while asm open ran (${seen.size} command lines)`);
    assert.ok([...seen].some((l) => l.includes(browser)), "the browser's own command line was among them");
    assert.deepEqual([...seen].filter((l) => l.includes(code!)), [], "no command line held the code");
    // and the page's code is the key: the page trades it once
    const trade = await server.api("/api/token", {
      method: "POST",
      headers: { origin: server.url, "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
    assert.deepEqual(await trade.json(), { token: server.token });
  } finally {
    await server.close();
    Deno.removeSync(served.root, { recursive: true });
  }
});

Deno.test("a page of asm open outlives its code by no more than the next open", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-open-pages-" });
  try {
    const old = writeOpenPage(home, "http://127.0.0.1:1/#code=old");
    const past = new Date(Date.now() - 61_000);
    Deno.utimeSync(old, past, past);
    const fresh = writeOpenPage(home, "http://127.0.0.1:1/#code=new");
    const names = [...Deno.readDirSync(openPagesFolder(home))].map((e) =>
      join(openPagesFolder(home), e.name)
    );
    assert.deepEqual(names, [fresh], "the dead code's page went; the new one is there");
    assert.match(Deno.readTextFileSync(fresh), /location\.replace\("http:\/\/127\.0\.0\.1:1\/#code=new"\)/);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
