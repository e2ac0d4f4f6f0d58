/**
 * `$ASM_HOME/bin/asm-hook`: the one command every agent runs (docs/runbook.md section 3). It is pure ASCII and
 * needs no quoting where it is called, so the agents can run it unquoted; everything it needs is baked in.
 * @module
 */
import { fileURLToPath } from "node:url";

/** `hooks/hook.ts` of this checkout, as an absolute path. */
export const HOOK_SCRIPT: string = fileURLToPath(new URL("../../hooks/hook.ts", import.meta.url));

/**
 * A POSIX sh word for any path, in ASCII: single quotes for printable ASCII, else the bytes as printf octal
 * escapes (`"$(printf '\303\251')"`), so a non-ASCII home folder still gives an ASCII script.
 */
export function shellWord(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return `'${value.replaceAll("'", `'\\''`)}'`;
  const bytes = new TextEncoder().encode(value);
  const escaped = [...bytes].map((b) =>
    /[A-Za-z0-9/._-]/.test(String.fromCharCode(b)) && b < 0x80
      ? String.fromCharCode(b)
      : `\\${b.toString(8).padStart(3, "0")}`
  ).join("");
  return `"$(printf '${escaped}')"`;
}

/** The wrapper's text. */
export function renderWrapper(options: { asmHome: string; denoPath: string; hookScript?: string }): string {
  const hookScript = options.hookScript ?? HOOK_SCRIPT;
  return [
    "#!/bin/sh",
    "# asm hook wrapper, written by `asm install`: asm-hook <agent> [event-hint] [json-arg]",
    "# everything the hook writes (events, its log, Deno's cache) is the user's alone; the hook starts nothing",
    "umask 077",
    `ASM_HOME=${shellWord(options.asmHome)}; export ASM_HOME`,
    `DENO_DIR=${shellWord(`${options.asmHome}/cache/deno`)}; export DENO_DIR`,
    "# who ran the hook: a hook whose parent is another by the time it looks was orphaned (its agent is gone)",
    "ASM_HOOK_PARENT=$PPID; export ASM_HOOK_PARENT",
    `exec ${shellWord(options.denoPath)} run -A --no-config --no-lock --no-prompt ${
      shellWord(hookScript)
    } "$@"`,
    "",
  ].join("\n");
}
