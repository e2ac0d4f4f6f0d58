/**
 * Gemini's adapter: everything asm knows how to do with this agent, as one value the registry lists.
 * @module
 */
import type { AgentAdapter } from "../protocol.ts";
import { geminiHookConfig } from "./hook_config.ts";
import { geminiOffline } from "./offline.ts";

/** The Gemini adapter. */
export const geminiAdapter: AgentAdapter = {
  hookConfig: geminiHookConfig,
  offline: geminiOffline,
};
