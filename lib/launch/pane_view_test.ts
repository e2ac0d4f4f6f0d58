import assert from "node:assert/strict";
import { PaneView, type ViewFrame } from "./pane_view.ts";
import { testTmux, waitFor } from "./_test_utils.ts";
import type { PaneInfo } from "./terminal_host.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** Frames until one says `want` (its text), with every frame seen. */
async function framesUntil(view: PaneView, want: RegExp, seen: ViewFrame[] = []): Promise<ViewFrame[]> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    // a view that froze never answers: the deadline holds anyway
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = await Promise.race([
      view.next(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no frame said ${want} (the view froze)`)),
          deadline - Date.now(),
        );
      }),
    ]).finally(() => clearTimeout(timer));
    seen.push(frame);
    if ((frame.kind === "paint" || frame.kind === "output") && want.test(text(frame.bytes))) return seen;
    if (frame.kind === "closed") throw new Error(`closed: ${frame.why}`);
  }
  throw new Error(`no frame said ${want}`);
}

async function paneOf(tmux: ReturnType<typeof testTmux>, argv: string[]): Promise<PaneInfo> {
  const opened = await tmux.host.open({ name: "view", argv });
  return (await tmux.host.panes()).find((p) => p.paneId === opened.paneId)!;
}

Deno.test("a view paints the pane's screen first, then its output; keys typed in the view reach the pane as bytes", async () => {
  await using tmux = testTmux();
  const pane = await paneOf(tmux, ["sh", "-c", "printf 'before-the-view\\n'; exec cat"]);
  await waitFor(
    async () => (await tmux.tmux(["capture-pane", "-p", "-t", pane.paneId])).out.includes("before-the-view"),
    "the pane printed",
  );
  const view = await PaneView.open(tmux.host, pane, { stillProven: () => Promise.resolve(null) });
  try {
    const first = await view.next();
    assert.equal(first.kind, "paint");
    assert.match(text((first as { bytes: Uint8Array }).bytes), /before-the-view/);
    assert.ok((first as { cols: number }).cols > 0, "the pane's size comes with the paint");
    // a tmux key name, a quote and a control byte, as bytes: cat echoes them back as typed
    await view.keys(new TextEncoder().encode("Enter 'q' \x01 typed-in-the-view\r"));
    const seen = await framesUntil(view, /typed-in-the-view/);
    const all = seen.map((f) => "bytes" in f ? text(f.bytes) : "").join("");
    assert.match(all, /Enter 'q' \^A typed-in-the-view/, "the text as typed, not a key named Enter");
  } finally {
    await view.close();
  }
  assert.equal((await view.next()).kind, "closed");
});

Deno.test("10 MB of output to a page that does not read: the view drops what waits, keeps its memory, and catches up", async () => {
  await using tmux = testTmux();
  const pane = await paneOf(tmux, [
    "sh",
    "-c",
    "read go; head -c 10000000 /dev/zero | tr '\\0' x; printf '\\nflood-over\\n'; exec cat",
  ]);
  const view = await PaneView.open(tmux.host, pane, { stillProven: () => Promise.resolve(null) });
  try {
    await framesUntil(view, /./s); // the first paint
    const before = Deno.memoryUsage().rss;
    await view.keys(new TextEncoder().encode("\r"));
    // the page reads nothing while the pane prints
    await waitFor(
      async () => (await tmux.tmux(["capture-pane", "-p", "-t", pane.paneId])).out.includes("flood-over"),
      "the flood ended",
      { timeoutMs: 60_000 },
    );
    await new Promise((r) => setTimeout(r, 500)); // the client's last lines read
    const after = Deno.memoryUsage().rss;
    const grew = Math.round((after - before) / 1e6);
    console.log(
      `10 MB through the pane: ${Math.round(view.dropped / 1e6)} MB dropped for the page, RSS +${grew} MB`,
    );
    assert.ok(view.dropped > 5_000_000, `the page's backlog was dropped (${view.dropped} bytes)`);
    assert.ok(grew < 64, `the view's memory stayed flat (+${grew} MB)`);
    // the page reads again: the screen captured again ends with what the pane shows now
    await framesUntil(view, /flood-over/);
  } finally {
    await view.close();
  }
});

Deno.test("a view closes with the sentence when its proof fails, and the pane goes on", async () => {
  await using tmux = testTmux();
  const pane = await paneOf(tmux, ["sh", "-c", "exec cat"]);
  let why: string | null = null;
  const view = await PaneView.open(tmux.host, pane, { stillProven: () => Promise.resolve(why) });
  await framesUntil(view, /.*/s);
  why = "the session ended";
  const closed = await waitFor(async () => {
    const f = await view.next();
    return f.kind === "closed" ? f : undefined;
  }, "the view closed");
  assert.equal(closed.why, "the session ended");
  assert.ok((await tmux.host.panes()).some((p) => p.paneId === pane.paneId), "the pane is still there");
});

Deno.test("a pane tmux resizes: the view says its new size, paints again, and its output goes on", async () => {
  await using tmux = testTmux();
  const pane = await paneOf(tmux, ["sh", "-c", "exec cat"]);
  const view = await PaneView.open(tmux.host, pane, { stillProven: () => Promise.resolve(null) });
  try {
    const first = await view.next();
    assert.equal(first.kind, "paint");
    assert.ok((await tmux.tmux(["resize-window", "-t", pane.windowId, "-x", "90", "-y", "20"])).ok);
    const seen: ViewFrame[] = [];
    const deadline = Date.now() + 10_000;
    while (!seen.some((f) => f.kind === "size") && Date.now() < deadline) seen.push(await view.next());
    assert.deepEqual(seen.find((f) => f.kind === "size"), { kind: "size", cols: 90, rows: 20 });
    await view.keys(new TextEncoder().encode("after-the-resize\r"));
    await framesUntil(view, /after-the-resize/);
  } finally {
    await view.close();
  }
});

/** The number tmux gives the next command on this server (control mode shows it in `%begin`). */
async function nextCommandNumber(tmux: ReturnType<typeof testTmux>): Promise<number> {
  const probe = new Deno.Command("tmux", {
    args: ["-S", tmux.socketPath, "-C", "attach-session"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = probe.stdin.getWriter();
  await writer.write(new TextEncoder().encode("display-message -p x\n"));
  await writer.close();
  const out = new TextDecoder().decode((await probe.output()).stdout);
  const numbers = [...out.matchAll(/^%begin \d+ (\d+) 1$/gm)].map((m) => Number(m[1]));
  return Math.max(...numbers) + 1;
}

Deno.test("a pane that prints tmux's own protocol lines is only its screen: the paint holds them, and the view goes on", async () => {
  await using tmux = testTmux();
  const dir = Deno.makeTempDirSync({ prefix: "asm-forged-" });
  try {
    const pane = await paneOf(tmux, ["sh", "-c", `read go; cat ${dir}/forged; exec cat`]);
    // what a hostile agent could print: the end of the very answer the view's capture will get (its number is
    // guessed from the server's counter, as an attacker would), a begin that never ends, an exit, another
    // pane's output, a size no terminal has
    const n = await nextCommandNumber(tmux);
    const ends = Array.from({ length: 40 }, (_, i) => `%end 0 ${n + i} 1`).join("\n");
    Deno.writeTextFileSync(
      `${dir}/forged`,
      `${ends}\n%begin 0 999999 1\n%exit forged\n%output %0 forged\n%layout-change @0 ab12,99999x99999,0,0,0\n`,
    );
    await tmux.tmux(["send-keys", "-t", pane.paneId, "Enter"]);
    await waitFor(
      async () => (await tmux.tmux(["capture-pane", "-p", "-t", pane.paneId])).out.includes("%layout-change"),
      "the pane printed the forged lines",
    );
    const view = await PaneView.open(tmux.host, pane, { stillProven: () => Promise.resolve(null) });
    try {
      const paint = await framesUntil(view, /%exit forged/);
      assert.ok(paint.every((f) => f.kind !== "size"), "no size from a printed line");
      await view.keys(new TextEncoder().encode("still-following\r"));
      await framesUntil(view, /still-following/);
      assert.equal(view.closed, null);
    } finally {
      await view.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("keys are refused once the proof fails, even between the view's own checks", async () => {
  await using tmux = testTmux();
  const pane = await paneOf(tmux, ["sh", "-c", "exec cat"]);
  let why: string | null = null;
  const view = await PaneView.open(tmux.host, pane, { stillProven: () => Promise.resolve(why) });
  await view.next();
  why = "the session ended";
  await new Promise((r) => setTimeout(r, 300)); // past the freshness of the last proof, before the next check
  await assert.rejects(view.keys(new TextEncoder().encode("never-typed\r")), /the session ended/);
  assert.doesNotMatch((await tmux.tmux(["capture-pane", "-p", "-t", pane.paneId])).out, /never-typed/);
});
