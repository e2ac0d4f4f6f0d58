/**
 * The launcher script: pure ASCII POSIX sh, one per launch (`$ASM_HOME/launches/<token>.sh`). It sets the launch
 * token itself (a window opened through a terminal server inherits nothing from asm), changes to the folder and
 * execs the shim. Neither the prompt nor the environment is in it: the shim reads the prompt file and the
 * environment file (and deletes the latter). The folder and the arguments are single-quoted sh words; one outside
 * printable ASCII (a folder named in Greek) is spelled as printf octal escapes, so the file stays ASCII whatever
 * the console's code page is, and no character of it is ever read as shell syntax.
 * @module
 */
import { isToken } from "./token.ts";

/** What the script does, in order. */
export interface LauncherScript {
  token: string;
  /** The folder the agent runs in (absolute). */
  folder: string;
  /** The argv to exec (the shim and its arguments). */
  exec: readonly string[];
}

const PLAIN = /^[\x20-\x7e]*$/;

/** A single-quoted sh word, for printable ASCII only. */
function quoted(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The bytes of `value` as a printf format: octal escapes for everything but `[A-Za-z0-9/._-]`. */
function octal(value: string): string {
  return [...new TextEncoder().encode(value)].map((b) =>
    b < 0x80 && /[A-Za-z0-9/._-]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `\\${b.toString(8).padStart(3, "0")}`
  ).join("");
}

/**
 * Renders the script. Values outside printable ASCII go through a variable assigned from printf, with a trailing
 * `x` that is then cut off, because `$(...)` would otherwise eat trailing newlines.
 */
export function renderLauncher(script: LauncherScript): string {
  if (!isToken(script.token)) throw new Error(`"${script.token}" is not a launch token`);
  const lines = [
    "#!/bin/sh",
    `# asm launcher for ${script.token}: written by asm, pure ASCII. Neither the prompt nor the environment is in`,
    "# this file; the shim reads them from the launch's own files and hands them to the agent.",
  ];
  let spelled = 0;
  const word = (value: string): string => {
    if (PLAIN.test(value)) return quoted(value);
    const name = `asm_word_${++spelled}`;
    lines.push(`${name}=$(printf '${octal(value)}x'); ${name}=\${${name}%x}`);
    return `"$${name}"`;
  };
  // the token is the one value this file holds: the hook finds it in the environment, or on a command line
  lines.push(`ASM_LAUNCH_TOKEN=${quoted(script.token)}; export ASM_LAUNCH_TOKEN`);
  lines.push(`cd ${word(script.folder)} || exit 1`);
  const argv = script.exec.map(word);
  lines.push(`exec ${argv.join(" ")}`, "");
  return lines.join("\n");
}

/** True when every character of `text` is ASCII. */
export function isPureAscii(text: string): boolean {
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(text);
}
