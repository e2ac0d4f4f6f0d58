/**
 * The command line's way to the running server: the writer lock names the server's port (only a process holding
 * it in `serve` mode answers requests) and `$ASM_HOME/token` is the key every API call carries as its Bearer.
 * `asm open`, `asm launch` and its siblings, and `asm import` all call the server through this.
 * @module
 */
import { join } from "node:path";
import { currentHolder } from "./lock.ts";

/** A server this user can call. */
export interface ServerAddress {
  port: number;
  token: string;
}

/** The running server of `asmHome` with its token, or null when none serves it. */
export function runningServer(asmHome: string): ServerAddress | null {
  const holder = currentHolder(asmHome);
  if (!holder || holder.port === null || holder.mode !== "serve") return null;
  let token: string;
  try {
    token = Deno.readTextFileSync(join(asmHome, "token")).trim();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  return token ? { port: holder.port, token } : null;
}

/** A request to the server with its token as the Bearer. */
export function callServer(server: ServerAddress, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${server.token}`);
  return fetch(`http://127.0.0.1:${server.port}${path}`, { ...init, headers });
}
