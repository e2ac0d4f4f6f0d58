/**
 * The POSIX sh header of the one downloaded file (`dist/asm`): the header, then a gzip'd tar of the pinned Deno,
 * the source tree and the locked `node_modules`. Its first run unpacks the payload into a versioned cache folder
 * (checked against the checksum baked in, unpacked into a temporary folder and renamed, so two first runs at once
 * never see half a tree); later runs exec straight from that folder. It needs a POSIX shell, `tail`, `cksum` and
 * a `tar` that reads gzip: no npm, no git, no network. Pure: it renders text.
 * @module
 */

/** What the header is told about its payload. */
export interface HeaderFacts {
  /** asm's version (`lib/config/version.ts`). */
  version: string;
  /** The commit the file was built from (short hash), or "unknown". */
  commit: string;
  /** The payload's sha256, hex: the cache folder is named by it. */
  sha256: string;
  /** The payload as POSIX `cksum` prints it (`<crc> <bytes>`): what a first run checks, with POSIX tools. */
  cksum: string;
}

/** Digits of the payload offset: fixed, so the header's length does not depend on the offset it names. */
const OFFSET_DIGITS = 10;

/** A value safe inside single quotes in sh (the facts are ours, but a commit string is checked anyway). */
function quoted(value: string): string {
  if (!/^[A-Za-z0-9 ._+-]*$/.test(value)) throw new Error(`not a plain value for the header: ${value}`);
  return `'${value}'`;
}

/** The header's text, padded so the payload starts at the byte it names. */
export function renderHeader(facts: HeaderFacts): string {
  const text = (offset: number) =>
    [
      "#!/bin/sh",
      "{",
      "# asm, the AI Session Manager: one file. This shell header unpacks the payload below (the pinned Deno, the",
      "# source and its locked node_modules) once into a versioned cache folder, then runs asm from it.",
      "# One brace group: sh reads all of it before it runs any of it, so a copy cut short inside the header fails",
      "# with a syntax error instead of running half a header.",
      "set -eu",
      `ASM_VERSION=${quoted(facts.version)}`,
      `ASM_COMMIT=${quoted(facts.commit)}`,
      `payload_sha=${quoted(facts.sha256)}`,
      `payload_cksum=${quoted(facts.cksum)}`,
      // padded with spaces after the number (a leading zero would read as octal)
      `payload_offset=${String(offset).padEnd(OFFSET_DIGITS, " ")}`,
      'case "${1:-}" in --version) echo "asm $ASM_VERSION ($ASM_COMMIT)"; exit 0 ;; esac',
      'self=$0; case "$self" in /*) ;; *) self="$(pwd)/$self" ;; esac',
      'if [ -z "${HOME:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ]; then echo "asm: HOME is not set" >&2; exit 1; fi',
      'base="${XDG_CACHE_HOME:-$HOME/.cache}/asm"',
      'short=$(printf %s "$payload_sha" | cut -c1-16)',
      'dir="$base/$ASM_VERSION-$short"',
      'if [ ! -f "$dir/.unpacked" ]; then',
      '  mkdir -p "$base"',
      '  got=$(tail -c +"$((payload_offset + 1))" "$self" | cksum)',
      '  if [ "$got" != "$payload_cksum" ]; then',
      '    echo "asm: this file is damaged (its payload checksum is $got, not $payload_cksum); download it again" >&2',
      "    exit 1",
      "  fi",
      "  # a first run killed mid-unpack left its folder: gone with its process, it goes",
      '  for old in "$base"/.unpack-*; do',
      '    [ -d "$old" ] || continue; pid=${old#"$base/.unpack-"}; pid=${pid%%-*}',
      '    kill -0 "$pid" 2>/dev/null || rm -rf "$old"',
      "  done",
      '  tmp="$base/.unpack-$$-$ASM_VERSION-$short"',
      "  trap 'rm -rf \"$tmp\"' EXIT; trap 'rm -rf \"$tmp\"; exit 130' INT TERM HUP",
      '  rm -rf "$tmp"; mkdir "$tmp"',
      '  if ! tail -c +"$((payload_offset + 1))" "$self" | tar -xzf - -C "$tmp"; then',
      '    rm -rf "$tmp"; echo "asm: unpacking into $base failed (is there room?)" >&2; exit 1',
      "  fi",
      '  echo "$payload_sha" > "$tmp/.unpacked"',
      "  # a folder left without its marker (a copy cut short) goes aside; then the rename, which another first",
      "  # run may win: its tree is as good as ours, and ours, moved inside it, goes",
      '  if [ -d "$dir" ] && [ ! -f "$dir/.unpacked" ]; then mv "$dir" "$base/.broken-$$-$short" && rm -rf "$base/.broken-$$-$short"; fi',
      '  mv "$tmp" "$dir" 2>/dev/null || true',
      '  rm -rf "$tmp" "$dir/$(basename "$tmp")"',
      '  if [ ! -f "$dir/.unpacked" ]; then echo "asm: could not unpack into $dir" >&2; exit 1; fi',
      "  trap - EXIT INT TERM HUP",
      "fi",
      "# Deno's own caches stay in asm's folder: a run never touches the person's Deno cache",
      'ASM_CALLER_CWD=$(pwd); ASM_DENO="$dir/deno"; ASM_FILE="$self"; DENO_DIR="$dir/.deno"',
      "export ASM_VERSION ASM_COMMIT ASM_CALLER_CWD ASM_DENO ASM_FILE DENO_DIR",
      'cd "$dir/src"',
      'exec "$dir/deno" run --quiet --node-modules-dir=manual -A --frozen --no-prompt main.ts "$@"',
      "exit 1",
      "}",
      "",
    ].join("\n");
  const length = new TextEncoder().encode(text(0)).length;
  return text(length);
}
