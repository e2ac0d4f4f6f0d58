/**
 * Launching and control: the ONE launch builder (token, environment and prompt files, ASCII launcher, shim), the
 * launch environment's allow-list, the terminal host (tmux), correlation and adoption (and the deletion of a
 * launch's files once it is done), and the actions (launch, resume, continue-with, end, send, focus).
 * @module
 */
export { type LaunchKind, oneShotArgv, type OneShotRequest, resumeCommandLine, shellWord } from "./argv.ts";
export { SHIM_PATH } from "./builder.ts";
export { type ActionDeps, ActionRefused, type RefusalKind } from "./deps.ts";
export {
  type ContinueRequest,
  continueWith,
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
  provenPane,
  provenPanes,
  sendCommand,
  type SendResult,
  sharedRefusal,
  UNSEEN_END_NOTE,
} from "./control.ts";
export {
  closeoutCommand,
  closeoutCommands,
  closeoutLive,
  closeoutNotes,
  closeoutSession,
} from "./closeout.ts";
export type { CorrelateReport } from "./correlate.ts";
export { paneCarrying } from "./proof.ts";
export {
  actionDeps,
  CORRELATE_EVERY_MS,
  correlateForServer,
  type LaunchContext,
  panesForServer,
} from "./service.ts";
export {
  type OpenedWindow,
  type OpenRequest,
  type PaneInfo,
  type TerminalHost,
  TerminalHostError,
} from "./terminal_host.ts";
export { type TmuxConfig, tmuxConfigFromEnv, tmuxHost } from "./tmux.ts";
export { type ViewFrame } from "./pane_view.ts";
export { launchPane, MAX_VIEWS, NAMED_KEYS, namedKey, ViewRegistry, type ViewTarget } from "./views.ts";
