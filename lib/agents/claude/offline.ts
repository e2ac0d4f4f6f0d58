/**
 * Claude Code against a loopback fake of the Anthropic Messages API, in a scratch HOME (agents/claude-code.md
 * section 0): no onboarding (it would call the real service), the dummy key pre-approved, folders pre-trusted.
 * For tests only.
 * @module
 */
import { join } from "node:path";
import type { OfflineSetup } from "../protocol.ts";

const KEY = "sk-test-dummy";

/** The scratch-home setup for Claude Code. */
export const claudeOffline: OfflineSetup = {
  fakeKind: "anthropic",
  // every variable it needs is its own (ANTHROPIC_*, CLAUDE_*, DISABLE_*)
  personEnv: [],
  prepare({ home, fakeUrl, trustFolders }) {
    Deno.mkdirSync(join(home, ".claude"), { recursive: true });
    const state = {
      hasCompletedOnboarding: true,
      theme: "dark",
      numStartups: 1,
      // the approved entry is the key's last 20 characters
      customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
      projects: Object.fromEntries(
        (trustFolders ?? []).map((
          f,
        ) => [f, { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true }]),
      ),
    };
    Deno.writeTextFileSync(join(home, ".claude.json"), JSON.stringify(state, null, 2) + "\n");
    return {
      ANTHROPIC_BASE_URL: fakeUrl,
      ANTHROPIC_API_KEY: KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
    };
  },
};
