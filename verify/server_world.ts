/**
 * A server world for route tests: asm's server with the app's routes (`routes/mod.ts`) and no background
 * services, over a scratch data folder and agent homes the test hands in (lib/history's `importWorld()` in its
 * tests), with the install token on every call. It lives in `verify/` because it knows the routes: nothing in
 * `lib/` may.
 * @module
 */
import { type RunningServer, startServer } from "../lib/server/mod.ts";
import { ROUTES } from "../routes/mod.ts";

/** The scratch folders a server world runs over; disposed of after the server when it can be. */
export interface ServerHomes {
  asmHome: string;
  /** Where the agents' folders are (HOME, CODEX_HOME, GEMINI_CLI_HOME). */
  env: Record<string, string>;
  [Symbol.asyncDispose]?(): Promise<void>;
}

/** A running server over a test's homes; `await using` closes the server, then the homes. */
export interface ServerWorld<W extends ServerHomes> {
  world: W;
  server: RunningServer;
  /** A GET with the token, its JSON body. */
  get(path: string): Promise<Record<string, unknown>>;
  /** A POST with `token` (default: the install token) as the Bearer. */
  post(path: string, token?: string): Promise<Response>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Runs `setup` on `world` (e.g. places fixtures), then starts the server over it (its own ledger connection). */
export async function serverWorld<W extends ServerHomes>(
  world: W,
  setup: (world: W) => void = () => {},
): Promise<ServerWorld<W>> {
  let server: RunningServer;
  try {
    setup(world);
    server = startServer({
      asmHome: world.asmHome,
      port: 0,
      env: world.env,
      services: [],
      routes: ROUTES,
      mode: "testing",
    });
  } catch (err) {
    await world[Symbol.asyncDispose]?.();
    throw err;
  }
  return {
    world,
    server,
    get: async (path) => await (await server.api(path)).json(),
    post: (path, token = server.token) =>
      fetch(`${server.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}` } }),
    async [Symbol.asyncDispose]() {
      await server.close();
      await world[Symbol.asyncDispose]?.();
    },
  };
}

/** Waits until the server's import is done; returns its status. */
export async function importDone(
  get: (path: string) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const status = await get("/api/import");
    if (!status.running) return status;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the import did not finish within 5 s");
}
