/**
 * `asm open`: opens the running server's page in the person's browser, with a one-time code in the address's
 * fragment (`/#code=...`) that the page trades for asm's key. Neither the token nor the code is ever in a process
 * argument (`/proc/<pid>/cmdline` is world-readable, and a user `allowed_uids` lets in could trade a code read
 * there first): the browser is given a private file (`$ASM_HOME/open/<random>.html`, 0600 in a 0700 folder) that
 * sends it on to the address. The code works once, for 60 s, and only for a connection of this user.
 * @module
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { asmHome } from "../config/paths.ts";
import { callServer, runningServer } from "../server/client.ts";
import { CODE_TTL_MS } from "../server/codes.ts";
import { errorText } from "../lang/mod.ts";

/** Options of {@link openCli}. */
export interface OpenOptions {
  env?: Record<string, string>;
  /** print the address instead of opening a browser */
  print?: boolean;
  out?: (line: string) => void;
}

/** The program that opens an address: `$BROWSER` (its first entry), else the platform's opener. */
export function opener(env: Record<string, string | undefined>): string[] | null {
  const browser = env.BROWSER?.split(":")[0]?.trim();
  if (browser) return [browser];
  if (Deno.build.os === "darwin") return ["open"];
  if (Deno.build.os === "linux") return ["xdg-open"];
  return null;
}

/** Asks the running server for a code and opens its page; the exit code (0 opened, 1 could not). */
export async function openCli(options: OpenOptions = {}): Promise<number> {
  const env = options.env ?? Deno.env.toObject();
  const out = options.out ?? ((line: string) => console.log(line));
  const home = asmHome(env);
  const server = runningServer(home);
  if (server === null) {
    out(`asm open: asm is not running for ${home}; start it with \`asm serve\`, then run this again`);
    return 1;
  }
  let res: Response;
  try {
    res = await callServer(server, "/api/open-code", { method: "POST", signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    out(
      `asm open: asm holds ${home} on port ${server.port} but did not answer (${errorText(err)}); ` +
        "`asm doctor` says why, `asm restart` starts it again",
    );
    return 1;
  }
  const body = await res.json().catch(() => ({ error: `the server answered ${res.status} without JSON` }));
  if (!res.ok) {
    out(`asm open: the server refused: ${body.error ?? res.status}`);
    return 1;
  }
  const url = String(body.url);
  if (options.print) {
    out(url);
    return 0;
  }
  const argv = opener(env);
  if (argv === null) {
    out("asm open: no browser opener on this platform; set BROWSER, or run `asm open --print`");
    return 1;
  }
  let page: string;
  try {
    page = writeOpenPage(home, url);
  } catch (err) {
    out(
      `asm open: could not write the page that carries the key (${errorText(err)}); run \`asm open --print\``,
    );
    return 1;
  }
  try {
    const child = new Deno.Command(argv[0], {
      args: [...argv.slice(1), pathToFileURL(page).href],
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    // a browser may stay in the foreground for as long as it runs: give it a moment, then let it be
    const status = await Promise.race([
      child.status,
      new Promise<null>((r) => setTimeout(() => r(null), 3000)),
    ]);
    if (status === null) child.unref();
    else if (!status.success) {
      // no desktop to open it on (a server over ssh, say): the address itself, to open where there is one
      out(
        `asm open: ${
          argv[0]
        } could not open the page (exit ${status.code}); open this address instead: ${url}`,
      );
      return 1;
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    out(`asm open: "${argv[0]}" was not found; set BROWSER to your browser, or run \`asm open --print\``);
    return 1;
  }
  out(`asm open: opened asm's page (port ${server.port}) in your browser`);
  return 0;
}

/** The folder of the pages `asm open` hands the browser. */
export function openPagesFolder(home: string): string {
  return join(home, "open");
}

/**
 * Writes a page that sends the browser on to `url` (0600, in a 0700 folder of the data folder, under a random
 * name) and returns its path; pages older than a code's life are removed first (their codes are dead by then).
 */
export function writeOpenPage(home: string, url: string): string {
  const folder = openPagesFolder(home);
  Deno.mkdirSync(folder, { recursive: true, mode: 0o700 });
  Deno.chmodSync(folder, 0o700);
  for (const entry of Deno.readDirSync(folder)) {
    if (!entry.isFile || !entry.name.endsWith(".html")) continue;
    const path = join(folder, entry.name);
    try {
      if (Date.now() - (Deno.lstatSync(path).mtime?.getTime() ?? 0) > CODE_TTL_MS) Deno.removeSync(path);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  const name = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0"))
    .join("");
  const path = join(folder, `${name}.html`);
  // the address is asm's own (127.0.0.1, a port, a base64url code): nothing in it needs escaping, and JSON
  // quoting keeps it a string whatever it held
  const target = JSON.stringify(url);
  const html = [
    "<!doctype html>",
    '<meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>asm</title>',
    `<script>location.replace(${target.replaceAll("<", "\\u003c")})</script>`,
    "<p>Opening asm's page&hellip; if nothing happens, run <code>asm open --print</code> and open the address it " +
    "prints.</p>",
    "",
  ].join("\n");
  Deno.writeTextFileSync(path, html, { mode: 0o600, createNew: true });
  return path;
}
