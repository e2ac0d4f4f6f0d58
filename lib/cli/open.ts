/**
 * `asm open`: opens the running server's page in the person's browser, with a one-time code in the address's
 * fragment (`/#code=...`) that the page trades for asm's key. The token itself is never in a URL or a process
 * argument (`/proc/<pid>/cmdline` is world-readable); the code in the browser's argument works once, for 60 s,
 * and only for a connection of this user.
 * @module
 */
import { asmHome } from "../config/paths.ts";
import { callServer, runningServer } from "../server/client.ts";
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
  try {
    const child = new Deno.Command(argv[0], {
      args: [...argv.slice(1), url],
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
