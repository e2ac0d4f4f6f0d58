/**
 * Claude's adapter: everything asm knows how to do with this agent, as one value the registry lists.
 * @module
 */
import type { AgentAdapter } from "../protocol.ts";
import { claudeHookConfig } from "./hook_config.ts";
import { claudeOffline } from "./offline.ts";

/** The Claude adapter. */
export const claudeAdapter: AgentAdapter = {
  hookConfig: claudeHookConfig,
  offline: claudeOffline,
};
