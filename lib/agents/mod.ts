/**
 * The agents, as the rest of asm sees them: the registry (`agents.toml` and each agent's adapter, by name), the
 * types every adapter's capabilities speak (`protocol.ts`), how a process is recognised as an agent, and the
 * careful file writes the installer shares with the adapters. Nothing outside `lib/agents/` names an agent: it
 * reads an `AgentConfig` from the registry and asks for the agent's adapter.
 *
 * A read worker imports `transcripts.ts` directly: the registry would load every launcher, hook installer and
 * usage reader into it.
 * @module
 */
export type {
  ActivityReading,
  ActivityState,
  AgentAdapter,
  AgentConfig,
  CanaryOutcome,
  HookConfigAdapter,
  HookInstallOptions,
  InstallResult,
  LaunchCapability,
  LiveCarrier,
  LiveInfo,
  LiveQuery,
  LiveReport,
  OfflineSetup,
  OpenSessionRef,
  OrphanEvent,
  OrphanEventRule,
  ProcLookup,
  TrustReport,
  TrustState,
  UninstallResult,
} from "./protocol.ts";
export {
  adapterOf,
  hookAdapter,
  type HookAgentEntry,
  hookAgentsJson,
  loadAgents,
  offlineSetup,
  orphanEventReason,
  usageAgents,
} from "./registry.ts";
export { isAgentProcess } from "./glob.ts";
export {
  DEFAULT_JSON_LAYOUT,
  formatJson,
  type JsonLayout,
  readTextOrNull,
  wrapperPathProblem,
  writeFileAtomic,
} from "./hook_file.ts";
export { transcriptReader } from "./transcripts.ts";
