import assert from "node:assert/strict";
import { renderHeader } from "./header.ts";

const FACTS = {
  version: "0.5.0",
  commit: "e811775fadfb",
  sha256: "ab".repeat(32),
  cksum: "3676373959 48757682",
};

Deno.test("the header names the byte its payload starts at, whatever that offset's digits", () => {
  const text = renderHeader(FACTS);
  const bytes = new TextEncoder().encode(text).length;
  const offset = text.match(/^payload_offset=(\d+) *$/m);
  assert.ok(offset, "the offset line is there");
  assert.equal(Number(offset[1]), bytes);
  assert.ok(text.startsWith("#!/bin/sh\n") && text.endsWith("exit 1\n}\n"));
  assert.match(text, /^ASM_COMMIT='e811775fadfb'$/m);
});

Deno.test("a value that is not plain never reaches the shell header", () => {
  assert.throws(() => renderHeader({ ...FACTS, commit: "x'; rm -rf ~; '" }), /not a plain value/);
  assert.throws(() => renderHeader({ ...FACTS, version: "$(id)" }), /not a plain value/);
});

Deno.test("a copy cut short anywhere in the header runs none of it: a syntax error, nothing unpacked", async () => {
  const text = renderHeader(FACTS);
  const root = Deno.makeTempDirSync({ prefix: "asm-header-" });
  try {
    // every line end after the shebang's (a file of the shebang alone holds nothing to run)
    const cuts = [...text.matchAll(/\n/g)].map((m) => m.index! + 1).filter((at) =>
      at > 10 && at < text.length
    );
    const ran: string[] = [];
    for (const at of cuts) {
      const file = `${root}/cut`;
      Deno.writeTextFileSync(file, text.slice(0, at));
      const out = await new Deno.Command("/bin/sh", {
        args: [file, "--version"],
        env: { HOME: root, PATH: "/usr/bin:/bin" },
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (out.success || new TextDecoder().decode(out.stdout) !== "") ran.push(`cut at byte ${at}`);
    }
    console.log(`${cuts.length} cuts at line ends: ${ran.length} ran anything`);
    assert.deepEqual(ran, []);
    assert.throws(() => Deno.statSync(`${root}/.cache`), Deno.errors.NotFound, "nothing unpacked");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

/** What the stand-in payload's main.ts prints: the tree the header was meant to run. */
const PAYLOAD_RAN = "the payload ran";
/** A planted tree's main.ts: it says so and leaves a file in HOME, which no test may ever find. */
const PLANTED_MAIN = 'echo "the planted tree ran"; : > "$HOME/planted-ran"\n';
const BOOT_ID_FILE = "/proc/sys/kernel/random/boot_id";

/**
 * A one file whose payload stands in for asm's: its `deno` is a sh script that runs `src/main.ts` as sh, and that
 * main.ts writes into Deno's cache folder under a umask of 002, as Deno does for a person whose umask that is.
 */
async function standInFile(root: string): Promise<string> {
  const stage = `${root}/stage`;
  Deno.mkdirSync(`${stage}/src`, { recursive: true });
  Deno.writeTextFileSync(
    `${stage}/deno`,
    '#!/bin/sh\nwhile [ "$1" != main.ts ]; do shift; done; shift\nexec /bin/sh ./main.ts "$@"\n',
    { mode: 0o755 },
  );
  Deno.chmodSync(`${stage}/deno`, 0o755);
  Deno.writeTextFileSync(
    `${stage}/src/main.ts`,
    `umask 002; mkdir -p "$DENO_DIR/gen"; echo cached > "$DENO_DIR/gen/emit"\necho "${PAYLOAD_RAN}: $*"\n`,
  );
  const tar = await new Deno.Command("tar", {
    args: ["-czf", `${root}/payload.tgz`, "-C", stage, "deno", "src"],
  })
    .output();
  assert.ok(tar.success, "tar packed the stand-in payload");
  const payload = Deno.readFileSync(`${root}/payload.tgz`);
  const sha256 = [...new Uint8Array(await crypto.subtle.digest("SHA-256", payload))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const cksum = new TextDecoder().decode(
    (await new Deno.Command("sh", { args: ["-c", 'cksum < "$1"', "sh", `${root}/payload.tgz`] }).output())
      .stdout,
  ).trim();
  const header = new TextEncoder().encode(renderHeader({ ...FACTS, sha256, cksum }));
  const file = `${root}/asm`;
  Deno.writeFileSync(file, new Uint8Array([...header, ...payload]), { mode: 0o755 });
  Deno.chmodSync(file, 0o755);
  return file;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the one file in `home` (its cache under it) with `shell` (default: its own #!/bin/sh). */
async function runIn(
  file: string,
  home: string,
  args: string[],
  shell: string[] = [],
  env: Record<string, string> = {},
): Promise<Ran> {
  const [cmd, ...pre] = shell.length > 0 ? shell : [file];
  const out = await new Deno.Command(cmd, {
    args: [...pre, ...(shell.length > 0 ? [file] : []), ...args],
    env: { HOME: home, PATH: "/usr/bin:/bin", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** The stand-in's cache folders: the base, and the version folder its first run unpacks into. */
function cacheOf(home: string): { base: string; dir: string } {
  const base = `${home}/.cache/asm`;
  const names = [...Deno.readDirSync(base)].map((e) => e.name).filter((n) => !n.startsWith("."));
  assert.equal(names.length, 1, `one version folder: ${names}`);
  return { base, dir: `${base}/${names[0]}` };
}

/** Makes the next run the first of another boot, as far as the cache's record says. */
function anotherBoot(dir: string): void {
  Deno.writeTextFileSync(`${dir}/.checked`, "a boot long gone\n");
}

/**
 * The planted tree was not run, the payload was, and stderr says in one line what was moved aside and why; the
 * moved tree is kept (with the planted main.ts) and a fresh one took its place. Returns where it went.
 */
function assertMovedAside(ran: Ran, home: string, dir: string, why: RegExp): string {
  assert.equal(ran.code, 0, ran.stderr);
  assert.ok(!ran.stdout.includes("planted"), `the planted tree printed: ${ran.stdout}`);
  assert.throws(
    () => Deno.statSync(`${home}/planted-ran`),
    Deno.errors.NotFound,
    "the planted main.ts never ran",
  );
  assert.match(ran.stdout, new RegExp(`^${PAYLOAD_RAN}: `));
  const lines = ran.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, ran.stderr);
  const said = lines[0].match(
    /^asm: did not run (\S+): it (.*)\. Moved it to (\S+) \(look at it, then delete it\); unpacking again\.$/,
  );
  assert.ok(said, `one plain line says what was moved and why: ${lines[0]}`);
  assert.equal(said[1], dir);
  assert.match(said[2], why);
  assert.equal(Deno.readTextFileSync(`${said[3]}/src/main.ts`), PLANTED_MAIN, "moved aside, not deleted");
  assert.match(Deno.readTextFileSync(`${dir}/src/main.ts`), new RegExp(PAYLOAD_RAN), "unpacked again");
  return said[3];
}

/** A scratch folder with the stand-in file, removed after `fn`. */
async function withStandIn(fn: (file: string, root: string) => Promise<void>): Promise<void> {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-header-cache-" }));
  try {
    await fn(await standInFile(root), root);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
}

Deno.test("a first run unpacks into a folder only its user can write and records the tree's sum; a second run execs straight from it", async () => {
  await withStandIn(async (file, root) => {
    const home = `${root}/home`;
    Deno.mkdirSync(home);
    const first = await runIn(file, home, ["one"]);
    assert.deepEqual([first.code, first.stdout, first.stderr], [0, `${PAYLOAD_RAN}: one\n`, ""]);
    const { base, dir } = cacheOf(home);
    assert.equal(Deno.statSync(base).mode! & 0o777, 0o700, "the base it made is private");
    assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
    const [sha, sum, ...rest] = Deno.readTextFileSync(`${dir}/.unpacked`).split("\n");
    assert.match(sha, /^[0-9a-f]{64}$/);
    assert.match(sum, /^\d+ \d+$/, "the tree's cksum");
    assert.deepEqual(rest, [""]);
    assert.equal(
      Deno.statSync(`${dir}/.checked`).mode! & 0o777,
      0o600,
      "only the owner can write the record",
    );
    const boot = Deno.readTextFileSync(BOOT_ID_FILE);
    assert.equal(Deno.readTextFileSync(`${dir}/.checked`), boot, "this boot is recorded as checked");

    // a normal run: nothing summed (the record is not rewritten), nothing moved, the same tree run
    const checkedAt = Deno.statSync(`${dir}/.checked`).mtime!.getTime();
    const second = await runIn(file, home, ["two"]);
    assert.deepEqual([second.code, second.stdout, second.stderr], [0, `${PAYLOAD_RAN}: two\n`, ""]);
    assert.equal(Deno.statSync(`${dir}/.checked`).mtime!.getTime(), checkedAt, "no check on a normal run");
    assert.deepEqual([...Deno.readDirSync(base)].map((e) => e.name), [dir.slice(base.length + 1)]);

    // the first run of another boot sums the tree again: the same tree runs, Deno's cache (written under a
    // umask of 002) made private rather than counted against it
    assert.equal(Deno.statSync(`${dir}/.deno/gen`).mode! & 0o020, 0o020, "Deno's cache is group-writable");
    anotherBoot(dir);
    const reboot = await runIn(file, home, ["three"]);
    assert.deepEqual([reboot.code, reboot.stdout, reboot.stderr], [0, `${PAYLOAD_RAN}: three\n`, ""]);
    assert.equal(Deno.readTextFileSync(`${dir}/.checked`), boot, "checked again, on this boot");
    assert.equal(Deno.statSync(`${dir}/.deno/gen`).mode! & 0o022, 0);
    assert.deepEqual([...Deno.readDirSync(base)].map((e) => e.name), [dir.slice(base.length + 1)]);
  });
});

Deno.test("a planted cache tree is moved aside and never run: the payload is unpacked again and runs", async (t) => {
  await withStandIn(async (file, root) => {
    const home = `${root}/home`;
    Deno.mkdirSync(home);
    assert.equal((await runIn(file, home, ["first"])).stderr, "");
    const { dir } = cacheOf(home);
    const plant = () => Deno.writeTextFileSync(`${dir}/src/main.ts`, PLANTED_MAIN);

    await t.step({
      name: "a version folder owned by another user (uid 65534)",
      ignore: Deno.uid() !== 0, // only root can give a folder away; CI runs as root
      fn: async () => {
        plant();
        Deno.chownSync(dir, 65534, 65534);
        const aside = assertMovedAside(
          await runIn(file, home, ["x"]),
          home,
          dir,
          new RegExp(`^is owned by uid 65534, not by you \\(uid ${Deno.uid()}\\)$`),
        );
        assert.equal(Deno.statSync(aside).uid, 65534, "someone else's tree is moved, never deleted");
      },
    });
    await t.step("a group-writable version folder", async () => {
      plant();
      Deno.chmodSync(dir, 0o770);
      assertMovedAside(
        await runIn(file, home, ["x"]),
        home,
        dir,
        /^can be written by others than you \(its mode is drwxrwx---\)$/,
      );
    });
    await t.step("a file changed after unpack, on the first run of the next boot", async () => {
      plant();
      // the same boot: not summed again (the check runs once per boot), and the changed tree is what runs
      const same = await runIn(file, home, ["x"]);
      assert.equal(same.stdout, "the planted tree ran\n");
      Deno.removeSync(`${home}/planted-ran`);
      anotherBoot(dir);
      assertMovedAside(
        await runIn(file, home, ["x"]),
        home,
        dir,
        /^changed since it was unpacked \(its files sum to \d+ \d+, not \d+ \d+\)$/,
      );
    });
    await t.step(
      "a file added beside the tree, which changes the folder's mtime, on the same boot",
      async () => {
        plant();
        Deno.writeTextFileSync(`${dir}/added`, "x");
        assertMovedAside(await runIn(file, home, ["x"]), home, dir, /^changed since it was unpacked/);
      },
    );
    await t.step({
      name: "an entry deep in the tree owned by another user, on the next boot",
      ignore: Deno.uid() !== 0,
      fn: async () => {
        plant();
        Deno.chownSync(`${dir}/src`, 65534, 65534);
        anotherBoot(dir);
        assertMovedAside(
          await runIn(file, home, ["x"]),
          home,
          dir,
          /^holds \S+\/src, which another user owns or others can write to$/,
        );
      },
    });
    await t.step("an entry deep in the tree writable by others, on the next boot", async () => {
      plant();
      Deno.chmodSync(`${dir}/src/main.ts`, 0o666);
      anotherBoot(dir);
      assertMovedAside(
        await runIn(file, home, ["x"]),
        home,
        dir,
        /^holds \S+\/src\/main\.ts, which another user owns or others can write to$/,
      );
    });
    await t.step("a link in place of the version folder, to a tree of the user's own", async () => {
      const elsewhere = `${root}/elsewhere`;
      Deno.renameSync(dir, elsewhere);
      Deno.writeTextFileSync(`${elsewhere}/src/main.ts`, PLANTED_MAIN);
      Deno.symlinkSync(elsewhere, dir);
      const ran = await runIn(file, home, ["x"]);
      const aside = ran.stderr.match(/Moved it to (\S+) /)?.[1];
      assert.ok(aside && Deno.lstatSync(aside).isSymlink, `the link itself was moved: ${ran.stderr}`);
      Deno.removeSync(aside);
      Deno.symlinkSync(elsewhere, aside); // what assertMovedAside reads through
      assertMovedAside(ran, home, dir, /^is a link, not a folder$/);
    });
  });
});

Deno.test("a cache base another user owns, or others can write to, is refused with a sentence naming XDG_CACHE_HOME", async () => {
  await withStandIn(async (file, root) => {
    const home = `${root}/home`;
    const base = `${home}/.cache/asm`;
    Deno.mkdirSync(base, { recursive: true });
    Deno.chmodSync(base, 0o777);
    const shared = await runIn(file, home, ["x"]);
    assert.equal(shared.code, 1);
    assert.equal(shared.stdout, "");
    assert.equal(
      shared.stderr,
      `asm: the cache folder ${base} can be written by others than you (its mode is drwxrwxrwx), so asm will not ` +
        `unpack into it or run from it: make it yours alone (chmod go-w ${base}) or set XDG_CACHE_HOME to a ` +
        "private folder of yours (asm uses $XDG_CACHE_HOME/asm)\n",
    );
    assert.deepEqual([...Deno.readDirSync(base)], [], "nothing unpacked");
    if (Deno.uid() === 0) {
      Deno.chmodSync(base, 0o700);
      Deno.chownSync(base, 65534, 65534);
      const theirs = await runIn(file, home, ["x"]);
      assert.equal(theirs.code, 1);
      assert.match(
        theirs.stderr,
        /^asm: the cache folder \S+ is owned by uid 65534, not by you \(uid 0\), so asm will not unpack into it or run from it: set XDG_CACHE_HOME to a private folder of yours \(asm uses \$XDG_CACHE_HOME\/asm\)\n$/,
      );
      assert.deepEqual([...Deno.readDirSync(base)], [], "nothing unpacked");
    }
    // a base that others can write to after a checked run is refused too: a run on the same boot sees it
    const later = `${root}/later`;
    Deno.mkdirSync(later);
    assert.equal((await runIn(file, later, ["x"])).stderr, "");
    Deno.chmodSync(`${later}/.cache/asm`, 0o775);
    const opened = await runIn(file, later, ["x"]);
    assert.deepEqual([opened.code, opened.stdout], [1, ""]);
    assert.match(
      opened.stderr,
      /^asm: the cache folder \S+ can be written by others than you \(its mode is drwxrwxr-x\)/,
    );

    // a private folder linked in as the base is the user's: judged where the link leads
    Deno.removeSync(base);
    Deno.mkdirSync(`${root}/private`, { mode: 0o700 });
    Deno.symlinkSync(`${root}/private`, base);
    const linked = await runIn(file, home, ["x"]);
    assert.deepEqual([linked.code, linked.stdout, linked.stderr], [0, `${PAYLOAD_RAN}: x\n`, ""]);
  });
});

Deno.test("the cache's checks run the same under dash and under bash in POSIX mode", async () => {
  const shells = [["dash"], ["bash", "--posix"]].filter(([cmd]) =>
    ["/bin", "/usr/bin"].some((dir) => {
      try {
        return Deno.statSync(`${dir}/${cmd}`).isFile;
      } catch {
        return false;
      }
    })
  );
  assert.ok(shells.length > 0, "a POSIX shell to run the header with");
  for (const shell of shells) {
    await withStandIn(async (file, root) => {
      const home = `${root}/home`;
      Deno.mkdirSync(home);
      const first = await runIn(file, home, ["one"], shell);
      assert.deepEqual([first.code, first.stdout, first.stderr], [0, `${PAYLOAD_RAN}: one\n`, ""], shell[0]);
      const { dir } = cacheOf(home);
      Deno.writeTextFileSync(`${dir}/src/main.ts`, PLANTED_MAIN);
      anotherBoot(dir);
      assertMovedAside(await runIn(file, home, ["two"], shell), home, dir, /^changed since it was unpacked/);
    });
  }
});

Deno.test("a cache under a folder another user can change (writable by others, not sticky) is refused; under a sticky one it runs", async () => {
  await withStandIn(async (file, root) => {
    const home = `${root}/home`;
    Deno.mkdirSync(home);
    // XDG_CACHE_HOME shared and not sticky: another user could swap asm's own private base for a link to theirs
    // between the checks and the exec (the audit ran a planted deno 4 times in 100 so)
    const shared = `${root}/shared`;
    Deno.mkdirSync(shared);
    Deno.chmodSync(shared, 0o777);
    const refused = await runIn(file, home, ["x"], [], { XDG_CACHE_HOME: shared });
    assert.deepEqual([refused.code, refused.stdout], [1, ""]);
    assert.equal(
      refused.stderr,
      `asm: the cache folder ${shared}/asm lies under ${shared}, which another user can change (not root's or ` +
        "yours, or writable by others without the sticky bit), so asm will not unpack into it or run from it: set " +
        "XDG_CACHE_HOME to a private folder of yours (asm uses $XDG_CACHE_HOME/asm)\n",
    );
    assert.deepEqual([...Deno.readDirSync(`${shared}/asm`)], [], "nothing unpacked");
    // the same folder sticky (as /tmp is): nobody but its owner may rename what is in it, and asm runs
    Deno.chmodSync(shared, 0o1777);
    const ran = await runIn(file, home, ["x"], [], { XDG_CACHE_HOME: shared });
    assert.deepEqual([ran.code, ran.stdout, ran.stderr], [0, `${PAYLOAD_RAN}: x\n`, ""]);
    // a link on the way is judged where it leads: the shared folder reached through a link is still refused
    Deno.chmodSync(shared, 0o777);
    Deno.symlinkSync(shared, `${home}/via-link`);
    const linked = await runIn(file, home, ["x"], [], { XDG_CACHE_HOME: `${home}/via-link` });
    assert.equal(linked.code, 1);
    assert.match(linked.stderr, new RegExp(`lies under ${shared}, which another user can change`));
  });
});
