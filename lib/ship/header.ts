/**
 * The POSIX sh header of the one downloaded file (`dist/asm`): the header, then a gzip'd tar of the pinned Deno,
 * the source tree and the locked `node_modules`. Its first run unpacks the payload into a versioned cache folder
 * (checked against the checksum baked in, unpacked into a temporary folder and renamed, so two first runs at once
 * never see half a tree) and records the unpacked tree's sum; later runs exec from that folder once it proves to
 * be the user's alone: the base and version folders owned by the user and writable by no one else on every run,
 * and on the first run of each boot (or when the folder changed) every entry under it too and its files summed
 * again against the record. A tree that fails is moved aside with one line on stderr, never run, and unpacked
 * again; a base that fails is refused. It needs a POSIX shell, `tail`, `cksum`, `id`, `ls`, `find`, `sort`,
 * `chmod`, `tr` (`who` where there is no boot id) and a `tar` that reads gzip: no npm, no git, no network. Pure:
 * it renders text.
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
      'case "$base" in /*) ;; *) base="$(pwd)/$base" ;; esac',
      'short=$(printf %s "$payload_sha" | cut -c1-16)',
      'dir="$base/$ASM_VERSION-$short"',
      "# A cache is run only when it is the user's alone: the base and version folders the user's and writable by",
      "# no one else, every entry under them too, and the version folder's files those it was unpacked with (summed",
      "# again on the first run of each boot and whenever the folder changed). Anything else is moved aside, never",
      "# run and never deleted (it may not be ours to delete), and the payload is unpacked again.",
      "uid=$(id -u); why=''",
      "nl='",
      "'",
      "# o_uid, o_mode: the owner and mode string of $1 itself (`ls -n` is POSIX; a link is not followed)",
      "owner_mode() {",
      '  o_uid=""; o_mode=""; o_line=$(ls -ldn -- "$1" 2>/dev/null) || return 0',
      "  set -f; set -- $o_line; set +f; o_mode=${1:-}; o_uid=${3:-}",
      "}",
      "# why: why the folder $1 is not the user's alone (owned by someone else, or writable by its group or others)",
      "untrusted() {",
      '  why=""',
      '  if [ ! -d "$1" ]; then why="is not a folder"; return 0; fi',
      '  owner_mode "$1"',
      '  if [ "$o_uid" != "$uid" ]; then why="is owned by uid ${o_uid:-unknown}, not by you (uid $uid)"; return 0; fi',
      '  case "$o_mode" in ?????w*|????????w*) why="can be written by others than you (its mode is $o_mode)" ;; esac',
      "}",
      "# every regular file's path, size and CRC in a fixed order, summed: what was unpacked, as POSIX tools see it",
      "# (Deno's own cache and the two records are not the payload's)",
      "tree_sum() {",
      '  (cd "$1" && find . \\( -path ./.deno -o -path ./.unpacked -o -path ./.checked \\) -prune -o -type f \\',
      "    -exec cksum {} + | LC_ALL=C sort | cksum)",
      "}",
      "# why: what is wrong with the version folder's tree, checked whole",
      "check_tree() {",
      '  why=""',
      "  # Deno writes its cache under the person's umask: only the owner can reach it (the folder is 0700), so its",
      "  # group-writable entries are the owner's own doing, and are made private before the tree is judged",
      '  if [ -d "$dir/.deno" ] && [ ! -L "$dir/.deno" ]; then chmod -R go-w "$dir/.deno" 2>/dev/null || :; fi',
      '  found=$(find "$dir" ! -type l \\( ! -user "$uid" -o -perm -020 -o -perm -002 \\) -print 2>/dev/null) ||',
      '    found="${found:-$dir (it cannot be read in full)}"',
      '  if [ -n "$found" ]; then',
      "    found=$(printf %s \"${found%%\"$nl\"*}\" | tr -c '[:print:]' '?')",
      '    why="holds $found, which another user owns or others can write to"; return 0',
      "  fi",
      '  m_sha=""; m_sum=""',
      '  { IFS= read -r m_sha || :; IFS= read -r m_sum || :; } < "$dir/.unpacked"',
      '  if [ "$m_sha" != "$payload_sha" ] || [ -z "$m_sum" ]; then why="holds no record of what was unpacked into it"; return 0; fi',
      '  got=$(tree_sum "$dir")',
      '  if [ "$got" != "$m_sum" ]; then why="changed since it was unpacked (its files sum to $got, not $m_sum)"; fi',
      "}",
      "# moves the version folder out of the way (it may not be ours to delete) and says so, with why",
      "move_aside() {",
      '  to="$base/.aside-$ASM_VERSION-$short-$$"; n=0',
      '  while [ -e "$to" ] || [ -L "$to" ]; do n=$((n + 1)); to="$base/.aside-$ASM_VERSION-$short-$$-$n"; done',
      '  if ! mv "$dir" "$to"; then',
      '    echo "asm: $dir $why, and it could not be moved aside: move it out of $base yourself, then run asm again" >&2',
      "    exit 1",
      "  fi",
      '  echo "asm: did not run $dir: it $why. Moved it to $to (look at it, then delete it); unpacking again." >&2',
      "}",
      '[ -d "$base" ] || (umask 077 && mkdir -p "$base")',
      "# The base as the kernel finds it, links resolved, used from here on; every folder above it must be root's",
      "# or the user's, and writable by others only where sticky (as /tmp is): else another user could swap a",
      "# folder on the way between these checks and the exec, and have their tree run",
      "unsafe_above() {",
      '  set -- "$1"; p=$1',
      '  while [ "$p" != / ]; do p=${p%/*}; [ -n "$p" ] || p=/; set -- "$@" "$p"; done',
      '  shift; find "$@" -prune \\( \\( ! -user 0 ! -user "$uid" \\) -o \\( -perm -002 ! -perm -1000 \\) -o \\',
      "    \\( -perm -020 ! -perm -1000 \\) \\) -print 2>&1 | head -n 1",
      "}",
      'phys=$(cd -P -- "$base" 2>/dev/null && pwd -P) || phys=""',
      'if [ -z "$phys" ]; then echo "asm: cannot enter the cache folder $base" >&2; exit 1; fi',
      'base=$phys; dir="$base/$ASM_VERSION-$short"',
      'above=$(unsafe_above "$base")',
      'if [ -n "$above" ]; then',
      "  above=$(printf %s \"$above\" | tr -c '[:print:]' '?')",
      '  echo "asm: the cache folder $base lies under $above, which another user can change (not root\'s or yours, or writable by others without the sticky bit), so asm will not unpack into it or run from it: set XDG_CACHE_HOME to a private folder of yours (asm uses \\$XDG_CACHE_HOME/asm)" >&2',
      "  exit 1",
      "fi",
      "# this boot: its id, or where there is none another fact that changes with each boot, or nothing (check always)",
      'boot=""',
      'if [ -r /proc/sys/kernel/random/boot_id ]; then IFS= read -r boot < /proc/sys/kernel/random/boot_id || boot=""; fi',
      'if [ -z "$boot" ]; then boot=$(who -b 2>/dev/null) || boot=""; fi',
      "# .checked (0600) holds the boot whose first run checked the tree whole; its mtime is when",
      'seen=""; if [ ! -L "$dir" ] && [ -f "$dir/.checked" ]; then IFS= read -r seen < "$dir/.checked" || :; fi',
      "# The usual run, in one find: checked on this boot, the base and the version folder the user's and private,",
      "# and neither changed since. Anything else (an error too) takes the long way, which says what is wrong.",
      'if [ -n "$boot" ] && [ "$seen" = "$boot" ] && [ -z "$(find -H "$base/" "$dir" -prune \\( ! -type d -o \\',
      '  ! -user "$uid" -o -perm -020 -o -perm -002 -o -newer "$dir/.checked" \\) -print 2>&1)" ]; then',
      "  :",
      "else",
      "  # the base itself is judged where a link leads (a private folder linked in is fine), and refused, not moved",
      '  untrusted "$base/"',
      '  if [ -n "$why" ]; then',
      '    fix="set XDG_CACHE_HOME to a private folder of yours (asm uses \\$XDG_CACHE_HOME/asm)"',
      '    [ "$o_uid" != "$uid" ] || fix="make it yours alone (chmod go-w $base) or $fix"',
      '    echo "asm: the cache folder $base $why, so asm will not unpack into it or run from it: $fix" >&2',
      "    exit 1",
      "  fi",
      '  if [ -e "$dir" ] || [ -L "$dir" ]; then',
      '    if [ -L "$dir" ]; then why="is a link, not a folder"; else untrusted "$dir"; fi',
      '    if [ -z "$why" ] && [ ! -f "$dir/.unpacked" ]; then',
      "      # the user's own, without its marker: a first run cut short left it, and it goes",
      '      mv "$dir" "$base/.broken-$$-$short" && rm -rf "$base/.broken-$$-$short"',
      '    elif [ -z "$why" ]; then',
      "      # a new boot, or the folder changed since its check: the whole tree again",
      "      check_tree",
      '      if [ -z "$why" ]; then printf \'%s\\n\' "$boot" > "$dir/.checked" || :; fi',
      "    fi",
      '    if [ -n "$why" ]; then move_aside; fi',
      "  fi",
      "fi",
      'if [ ! -e "$dir" ]; then',
      '  got=$(tail -c +"$((payload_offset + 1))" "$self" | cksum)',
      '  if [ "$got" != "$payload_cksum" ]; then',
      '    echo "asm: this file is damaged (its payload checksum is $got, not $payload_cksum); download it again" >&2',
      "    exit 1",
      "  fi",
      "  # a first run killed mid-unpack left its folder: gone with its process, it goes (only the user's own)",
      '  for old in "$base"/.unpack-*; do',
      '    [ -d "$old" ] || continue; pid=${old#"$base/.unpack-"}; pid=${pid%%-*}',
      '    owner_mode "$old"; [ "$o_uid" = "$uid" ] || continue',
      '    kill -0 "$pid" 2>/dev/null || rm -rf "$old"',
      "  done",
      '  tmp="$base/.unpack-$$-$ASM_VERSION-$short"',
      "  trap 'rm -rf \"$tmp\"' EXIT; trap 'rm -rf \"$tmp\"; exit 130' INT TERM HUP",
      '  rm -rf "$tmp"; (umask 077 && mkdir "$tmp")',
      "  # -o: the files are the user's, whoever owned them in the archive (tar run as root keeps owners otherwise)",
      '  if ! tail -c +"$((payload_offset + 1))" "$self" | tar -xozf - -C "$tmp"; then',
      '    rm -rf "$tmp"; echo "asm: unpacking into $base failed (is there room?)" >&2; exit 1',
      "  fi",
      "  # nothing in it writable by others (tar run as root keeps the archive's modes), the folder the user's alone,",
      "  # Deno's cache folder made now (made later, it would change the folder's mtime), the sum and the boot record",
      '  mkdir "$tmp/.deno"; chmod -R go-w "$tmp"; chmod 700 "$tmp"; (umask 077 && : > "$tmp/.checked")',
      '  sum=$(tree_sum "$tmp"); printf \'%s\\n%s\\n\' "$payload_sha" "$sum" > "$tmp/.unpacked"',
      "  # the rename, which another first run may win: its tree is as good as ours, and ours, moved inside it, goes",
      '  mv "$tmp" "$dir" 2>/dev/null || true',
      '  rm -rf "$tmp" "$dir/$(basename "$tmp")"',
      '  if [ ! -f "$dir/.unpacked" ]; then echo "asm: could not unpack into $dir" >&2; exit 1; fi',
      '  printf \'%s\\n\' "$boot" > "$dir/.checked" || :',
      "  trap - EXIT INT TERM HUP",
      "fi",
      "# Deno's own caches stay in asm's folder: a run never touches the person's Deno cache",
      'ASM_CALLER_CWD=$(pwd); ASM_DENO="$dir/deno"; ASM_FILE="$self"; DENO_DIR="$dir/.deno"',
      "# asm reaches nothing but 127.0.0.1: Deno's own check for a newer release would go out",
      "DENO_NO_UPDATE_CHECK=1",
      "export ASM_VERSION ASM_COMMIT ASM_CALLER_CWD ASM_DENO ASM_FILE DENO_DIR DENO_NO_UPDATE_CHECK",
      'cd "$dir/src"',
      'exec "$dir/deno" run --quiet --node-modules-dir=manual -A --frozen --no-prompt main.ts "$@"',
      "exit 1",
      "}",
      "",
    ].join("\n");
  const length = new TextEncoder().encode(text(0)).length;
  return text(length);
}
