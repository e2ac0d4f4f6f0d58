import assert from "node:assert/strict";
import { PaneView, type ViewFrame } from "./pane_view.ts";
import { testTmux, waitFor } from "./_test_utils.ts";
import type { PaneInfo } from "./terminal_host.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** Frames until one says `want` (its text), with every frame seen. */
async function framesUntil(view: PaneView, want: RegExp, seen: ViewFrame[] = []): Promise<ViewFrame[]> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const frame = await view.next();
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

Deno.test("a view asked for another size says the new size, paints again, and its output goes on", async () => {
  await using tmux = testTmux();
  const pane = await paneOf(tmux, ["sh", "-c", "exec cat"]);
  const view = await PaneView.open(tmux.host, pane, { stillProven: () => Promise.resolve(null) });
  try {
    const first = await view.next();
    assert.equal(first.kind, "paint");
    await view.resize(90, 20);
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
