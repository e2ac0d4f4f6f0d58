#!/bin/sh
# asm bootstrap: ensures the pinned Deno, then runs main.ts with the arguments given.
# Deno comes from PATH when it is the pinned version, else it is installed with npm into .tools/.
set -eu
DENO_VERSION=2.9.6
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
deno_bin=""
if command -v deno >/dev/null 2>&1; then
  case "$(deno --version 2>/dev/null | head -n 1)" in
    "deno $DENO_VERSION "*) deno_bin=$(command -v deno) ;;
  esac
fi
if [ -z "$deno_bin" ]; then
  deno_bin="$here/.tools/node_modules/.bin/deno"
  if ! "$deno_bin" --version 2>/dev/null | head -n 1 | grep -q "^deno $DENO_VERSION "; then
    if ! command -v npm >/dev/null 2>&1; then
      echo "asm needs Deno $DENO_VERSION; npm was not found to install it. Install Node.js and npm, or put deno $DENO_VERSION on PATH." >&2
      exit 1
    fi
    echo "asm: installing Deno $DENO_VERSION into .tools/ ..." >&2
    npm install --prefix "$here/.tools" --no-audit --no-fund --loglevel=error "deno@$DENO_VERSION" >&2
  fi
fi
export ASM_DENO="$deno_bin"
# asm reaches nothing but 127.0.0.1: Deno's own check for a newer release would go out (through any proxy)
DENO_NO_UPDATE_CHECK=1; export DENO_NO_UPDATE_CHECK
# the folder the person ran ./asm from (commands like "launch" default to it); main.ts runs from the repo
ASM_CALLER_CWD=$(pwd); export ASM_CALLER_CWD
cd "$here"
# the locked npm dependencies (node_modules/ is local and git-ignored)
if [ ! -d "$here/node_modules" ] || [ "$here/deno.lock" -nt "$here/node_modules" ]; then
  "$deno_bin" install --frozen --quiet >&2 && touch "$here/node_modules"
fi
# node_modules is complete here (installed just above when the lock moved): asm itself only reads it, so it never
# waits for the node_modules lock another deno holds (and never prints that it waits, on a command's own output)
exec "$deno_bin" run --quiet --node-modules-dir=manual -A --frozen main.ts "$@"
