/**
 * Codex's adapter: everything asm knows how to do with this agent, as one value the registry lists.
 * @module
 */
import type { AgentAdapter } from "../protocol.ts";
import { codexHookConfig } from "./hook_config.ts";
import { codexOffline } from "./offline.ts";
import { codexOrphanRule } from "./rollouts.ts";

/** The Codex adapter. */
export const codexAdapter: AgentAdapter = {
  hookConfig: codexHookConfig,
  offline: codexOffline,
  orphanRule: codexOrphanRule,
};
