/**
 * Launching and control: the ONE launch builder (token, environment and prompt files, ASCII launcher, shim), the
 * launch environment's allow-list, the terminal host (tmux), correlation and adoption (and the deletion of a
 * launch's files once it is done), and the actions (launch, resume, continue-with, end, send, focus).
 * @module
 */
export { type AgentArgv, agentArgv, ArgvError, type ArgvRequest, type LaunchKind } from "./argv.ts";
export {
  type BuildInput,
  buildLaunch,
  type LaunchEnvFile,
  LaunchInputError,
  type LaunchPlan,
  MAX_PROMPT_BYTES,
  SHIM_PATH,
  windowName,
  writeLaunchFiles,
} from "./builder.ts";
export { type ActionDeps, ActionRefused, agentNamed, type RefusalKind } from "./deps.ts";
export { BUILTIN_LAUNCH_ENV, launchEnv, launchEnvNames, TERMINAL_ENV } from "./env.ts";
export {
  type LaunchFiles,
  launchFiles,
  launchFilesDone,
  removeLaunchFile,
  removeLaunchFiles,
  sweepLaunchFiles,
} from "./files.ts";
export {
  type ContinueRequest,
  continueWith,
  DEFAULT_OPENER,
  type LaunchRecord,
  type LaunchRequest,
  launchSession,
  type ResumeRequest,
  resumeSession,
} from "./start.ts";
export {
  type EndResult,
  endSession,
  type FocusResult,
  focusSession,
  sendCommand,
  type SendResult,
  slashCommandProblem,
} from "./control.ts";
export {
  type AdoptionFacts,
  adoptionVerdict,
  type CorrelateDeps,
  correlateOnce,
  type CorrelateReport,
  LAUNCH_EXPIRY_MS,
  processesUnderToken,
} from "./correlate.ts";
export { handoverPrompt, type Predecessor } from "./handover.ts";
export { paneCarrying, type ProcessProof, proveRun, type RecordedRun } from "./proof.ts";
export { isPureAscii, renderLauncher } from "./script.ts";
export { actionDeps, CORRELATE_EVERY_MS, correlateForServer, type LaunchContext } from "./service.ts";
export {
  type OpenedWindow,
  type OpenRequest,
  type PaneInfo,
  type TerminalHost,
  TerminalHostError,
} from "./terminal_host.ts";
export {
  ASM_TMUX_SESSION,
  TMUX_SOCKET_ENV,
  tmuxClientEnv,
  type TmuxConfig,
  tmuxConfigFromEnv,
  tmuxHost,
  tmuxLiteral,
} from "./tmux.ts";
export { isToken, mintToken, TOKEN_PATTERN } from "./token.ts";
