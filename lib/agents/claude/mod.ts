/**
 * Claude's adapter: everything asm knows how to do with this agent, as one value the registry lists.
 * @module
 */
import type { AgentAdapter } from "../protocol.ts";
import { claudeLaunch } from "./launch.ts";
import { claudeHookConfig } from "./hook_config.ts";
import { claudeOffline } from "./offline.ts";
import { claudeLive } from "./live.ts";
import { claudeTranscripts } from "./transcript.ts";
import { claudeUsage } from "./usage.ts";

/** The Claude adapter. */
export const claudeAdapter: AgentAdapter = {
  // Claude Code's idle_prompt notification comes a minute after its turn ends, while it sits at its prompt: the
  // fact another agent's turn end says, so it reads Idle, never "Waiting on you"
  attention: (event, kind) => event === "Notification" && kind === "idle_prompt" ? null : undefined,
  hookConfig: claudeHookConfig,
  launch: claudeLaunch,
  offline: claudeOffline,
  live: claudeLive,
  transcripts: claudeTranscripts,
  usage: claudeUsage,
};
