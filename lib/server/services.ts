/**
 * The background services beyond the drain, each on its own timer (DESIGN.md: drain 2 s, poll 5 s, import
 * 15 min, sweep 20 s). A new service adds itself to SERVICES.
 * @module
 */
import type { ServerContext } from "./router.ts";

/** A periodic job of the server. Runs never overlap themselves; an error is logged and the timer carries on. */
export interface Service {
  name: string;
  everyMs: number;
  run(ctx: ServerContext): void | Promise<void>;
}

/** The services the server starts, in order. */
export const SERVICES: readonly Service[] = [];
