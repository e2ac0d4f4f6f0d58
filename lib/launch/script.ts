/**
 * The launcher script: pure ASCII POSIX sh, one per launch (`$ASM_HOME/launches/<token>.sh`). It sets the launch
 * token itself (a window opened through a terminal server inherits nothing from asm), exports the environment
 * the agent needs, changes to the folder and execs the shim. The prompt is never in it: the shim reads the
 * prompt file. Any value outside printable ASCII (a folder named in Greek, an emoji in a session name) is spelled
 * as printf octal escapes, so the file stays ASCII whatever the console's code page is.
 * @module
 */

/** What the script does, in order. */
export interface LauncherScript {
  token: string;
  /** The folder the agent runs in (absolute). */
  folder: string;
  /** Variables to export, in order; `ASM_LAUNCH_TOKEN` comes first and is not repeated here. */
  env: ReadonlyArray<readonly [string, string]>;
  /** The argv to exec (the shim and its arguments). */
  exec: readonly string[];
}

/** A name sh accepts in an assignment. */
export const ENV_NAME: RegExp = /^[A-Za-z_][A-Za-z0-9_]*$/;

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
  const lines = [
    "#!/bin/sh",
    `# asm launcher for ${script.token}: written by asm, pure ASCII. The prompt is not in this file; the shim`,
    "# reads it from the prompt file and hands it to the agent as one argument.",
  ];
  let spelled = 0;
  const word = (value: string): string => {
    if (PLAIN.test(value)) return quoted(value);
    const name = `asm_word_${++spelled}`;
    lines.push(`${name}=$(printf '${octal(value)}x'); ${name}=\${${name}%x}`);
    return `"$${name}"`;
  };
  const assign = (name: string, value: string) => {
    if (!ENV_NAME.test(name)) throw new Error(`"${name}" cannot be an environment variable name`);
    lines.push(`${name}=${word(value)}; export ${name}`);
  };
  assign("ASM_LAUNCH_TOKEN", script.token);
  for (const [name, value] of script.env) assign(name, value);
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
