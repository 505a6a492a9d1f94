// The example page (wasm/example/) in headless Chromium: the engine in a module Web Worker, a few moves
// of the engine against itself checked legal by tsshogi here in Node, the analysis display, the
// nps in the browser, the ?engine= and ?preset= parameters (a strength level's options reach the
// engine), and a screenshot (target/wasm/screenshot.png).
//
// node --test-reporter=spec browser.test.mjs   (HAYATE_WASM_DIR; HAYATE_CHROMIUM, else
// /usr/bin/chromium; without a Chromium the test is skipped unless HAYATE_REQUIRE_BROWSER=1)
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium } from "playwright-core";
import { REPO, SCREENSHOT, WASM_DIR } from "./lib/paths.mjs";
import { STARTPOS, checkLine, playUsi, positionOf } from "./lib/rules.mjs";
import { startServer } from "./lib/static-server.mjs";
import { parseBestmove, parseInfoLine } from "./lib/usi-text.mjs";
import { readManifest } from "./lib/wasm-engine.mjs";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
// HAYATE_CHROMIUM, when set, is the only browser tried.
const SEARCHED = process.env.HAYATE_CHROMIUM ? [process.env.HAYATE_CHROMIUM] : CANDIDATES;
const CHROMIUM = SEARCHED.find((file) => fs.existsSync(file));
const REQUIRED = process.env.HAYATE_REQUIRE_BROWSER === "1";
const PLIES = 6;
const BYOYOMI_MS = 300;
const MOVETIME_MS = 3000;
const FIRST_STOP_AFTER_MS = 300;
const STOP_LIMIT_MS = 500;
// The presets of the levels (wasm/js/manifest.mjs): level 0 stops its search at about 128 nodes
// (docs/options.md, "Strength levels"); at full strength a second is some hundred thousand.
const BEGINNER = { id: "hayate-beginner-v1", level: 0, nodeLimit: 2000 };
const CLUB = { id: "hayate-club-v1", level: 10 };

function report(text) {
  console.log(`# measured: ${text}`);
}

/** Lines the page's engine printed from index `from` on. */
function linesFrom(page, from) {
  return page.evaluate((start) => window.hayatePage.lines.slice(start), from);
}

/** Sends `line` through the page and waits for the search's answer; the lines from the send. */
async function request(page, line, timeoutMs) {
  const from = await page.evaluate(() => window.hayatePage.lines.length);
  const sent = performance.now();
  await page.evaluate((text) => window.hayatePage.send(text), line);
  await page.waitForFunction(
    (start) =>
      window.hayatePage.lines
        .slice(start)
        .some((l) => l.startsWith("bestmove ") || l.startsWith("checkmate ")),
    from,
    { timeout: timeoutMs, polling: 10 },
  );
  return { lines: await linesFrom(page, from), ms: performance.now() - sent };
}

/** The analysis fields as the page shows them. */
function display(page) {
  return page.evaluate(() =>
    Object.fromEntries(
      ["depth", "score", "nodes", "nps", "pv", "bestmove"].map((id) => [
        id,
        document.getElementById(id).textContent,
      ]),
    ),
  );
}

/** Checks that `preset`'s values were sent as `setoption` lines before `isready`. */
async function assertPresetSent(page, preset) {
  const sent = await page.evaluate(() => window.hayatePage.sent);
  const ready = sent.indexOf("isready");
  assert.ok(ready > 0, "isready sent");
  for (const [name, value] of Object.entries(preset.values || {})) {
    const at = sent.indexOf(`setoption name ${name} value ${value}`);
    assert.ok(at >= 0 && at < ready, `setoption name ${name} value ${value} before isready`);
  }
}

/** Opens the page with `query`, collecting its errors; waits for `state` (default "ready"). */
async function openPage(context, origin, query = "", state = "ready") {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") {
      errors.push(`console: ${message.text()}`);
    }
  });
  const opened = performance.now();
  await page.goto(`${origin}/wasm/example/index.html${query}`);
  await page.waitForFunction((wanted) => window.hayatePage?.state() === wanted, state, {
    timeout: 60000,
  });
  return { page, errors, ms: performance.now() - opened };
}

if (!CHROMIUM && REQUIRED) {
  it("finds Chromium (HAYATE_REQUIRE_BROWSER=1)", () => {
    assert.fail(`no Chromium at ${SEARCHED.join(", ")}`);
  });
} else {
  const skip = CHROMIUM
    ? false
    : `no Chromium at ${SEARCHED.join(", ")} (apt-get install chromium, or set HAYATE_CHROMIUM)`;
  describe("the example page in Chromium", { skip, timeout: 180000 }, () => {
    let server;
    let browser;
    let context;
    let main;

    before(async () => {
      server = await startServer({
        "/wasm/example/": path.join(REPO, "wasm", "example"),
        "/target/wasm/hayate/": WASM_DIR,
        "/engine-copy/": WASM_DIR,
      });
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
      context = await browser.newContext({ viewport: { width: 1000, height: 640 } });
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    it("loads ../../target/wasm/hayate/ in a worker and shows its id name", async () => {
      main = await openPage(context, server.origin);
      report(`page load to readyok in Chromium ${main.ms.toFixed(0)} ms`);
      const name = await main.page.textContent("#engine-name");
      assert.equal(name, readManifest(WASM_DIR).name);
      assert.ok(
        (await main.page.textContent("#engine-url")).endsWith("/target/wasm/hayate/"),
        "the default engine folder",
      );
      // Without ?preset=, the manifest's first preset (full strength), as the list shows.
      const [first] = readManifest(WASM_DIR).presets;
      assert.equal(await main.page.evaluate(() => window.hayatePage.preset()), first.id);
      assert.equal(await main.page.inputValue("#preset"), first.id);
      await assertPresetSent(main.page, first);
    });

    it(`plays ${PLIES} plies against itself at byoyomi ${BYOYOMI_MS} ms, all legal`, async () => {
      const { page } = main;
      const position = positionOf(STARTPOS);
      const moves = [];
      await page.evaluate(() => window.hayatePage.send("usinewgame"));
      for (let ply = 0; ply < PLIES; ply++) {
        const command = moves.length
          ? `position startpos moves ${moves.join(" ")}`
          : "position startpos";
        await page.evaluate((text) => window.hayatePage.send(text), command);
        const { lines } = await request(page, `go btime 0 wtime 0 byoyomi ${BYOYOMI_MS}`, 10000);
        const best = parseBestmove(lines.at(-1));
        assert.ok(best, `ply ${ply + 1}: ${lines.at(-1)}`);
        assert.equal(playUsi(position, best.move), null, `ply ${ply + 1}`);
        moves.push(best.move);
      }
      console.log(`# browser game: position startpos moves ${moves.join(" ")}`);
    });

    it("shows depth, score, nodes, nps and a PV that update, until Stop", async () => {
      const { page } = main;
      await page.fill("#sfen", "not an sfen");
      await page.click("#analyse");
      assert.ok(await page.isVisible("#error"), "an error for a bad SFEN");
      await page.fill("#sfen", STARTPOS);
      await page.click("#analyse");
      assert.ok(!(await page.isVisible("#error")), "the error cleared");
      const shown = () =>
        page.waitForFunction(
          () =>
            ["depth", "score", "pv"].every((id) => document.getElementById(id).textContent !== "–"),
          null,
          { timeout: 10000 },
        );
      await shown();
      const first = await display(page);
      await page.waitForFunction(
        // Deeper, not only a new selective depth ("13 / 16" then "13 / 17").
        (before) =>
          Number.parseInt(document.getElementById("depth").textContent, 10) >
            Number.parseInt(before.depth, 10) &&
          document.getElementById("nodes").textContent !== before.nodes,
        first,
        { timeout: 15000, polling: 20 },
      );
      const later = await display(page);
      for (const shot of [first, later]) {
        assert.match(shot.score, /^([+-]?\d+ cp|mate|mated)/, `score ${shot.score}`);
        assert.match(shot.nodes, /^[\d,]+$/);
        assert.match(shot.nps, /^[\d,]+$/);
        assert.equal(checkLine(STARTPOS, shot.pv.split(" ")), null, `PV ${shot.pv}`);
      }
      assert.ok(Number.parseInt(later.depth, 10) > Number.parseInt(first.depth, 10), "deeper");
      assert.equal(await page.evaluate(() => window.hayatePage.state()), "thinking");
      await page.click("#stop");
      await page.waitForFunction(() => window.hayatePage.state() === "ready", null, {
        timeout: 2000,
      });
      const stopped = await display(page);
      assert.equal(checkLine(STARTPOS, [stopped.bestmove.split(" ")[0]]), null, stopped.bestmove);
      console.log(`# analysis display: ${JSON.stringify(stopped)}`);
      fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      console.log(`# screenshot: ${SCREENSHOT}`);
    });

    it(`reports its nps on the start position at go movetime ${MOVETIME_MS}`, async () => {
      const { page } = main;
      await page.evaluate(() => window.hayatePage.send("position startpos"));
      const { lines, ms } = await request(page, `go movetime ${MOVETIME_MS}`, MOVETIME_MS + 7000);
      const infos = lines.map(parseInfoLine).filter((info) => info?.nps !== undefined);
      assert.ok(infos.length > 0, "an info line with nps");
      const last = infos.at(-1);
      report(
        `browser nps ${last.nps} (depth ${last.depth}, nodes ${last.nodes}, time ${last.time} ms; ` +
          `bestmove after ${ms.toFixed(0)} ms)`,
      );
      assert.ok(last.nps > 0);
      assert.equal(checkLine(STARTPOS, [parseBestmove(lines.at(-1)).move]), null);
    });

    it("left no page, console or worker error", async () => {
      assert.deepEqual(main.errors, []);
      assert.deepEqual(await main.page.evaluate(() => window.hayatePage.errors), []);
    });

    it("answers Stop in under 500 ms in the first analysis of a fresh page", async () => {
      // A fresh page compiles the module anew: its first search runs the coldest code.
      const fresh = await openPage(context, server.origin);
      const latency = await fresh.page.evaluate(async (wait) => {
        const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
        document.getElementById("analyse").click();
        await pause(wait);
        const from = window.hayatePage.lines.length;
        const clicked = performance.now();
        document.getElementById("stop").click();
        while (!window.hayatePage.lines.slice(from).some((l) => l.startsWith("bestmove "))) {
          await pause(1);
        }
        return performance.now() - clicked;
      }, FIRST_STOP_AFTER_MS);
      report(
        `browser, fresh page: Stop ${FIRST_STOP_AFTER_MS} ms into the first analysis answered after ${latency.toFixed(0)} ms`,
      );
      assert.deepEqual(fresh.errors, []);
      await fresh.page.close();
      assert.ok(latency < STOP_LIMIT_MS, `${latency} ms`);
    });

    it(`plays at the level of ?preset=${BEGINNER.id}: a search of under ${BEGINNER.nodeLimit} nodes`, async () => {
      const preset = readManifest(WASM_DIR).presets.find((p) => p.id === BEGINNER.id);
      assert.ok(preset, `${BEGINNER.id} in the manifest`);
      assert.equal(preset.values?.SkillLevel, BEGINNER.level);
      const { page, errors } = await openPage(context, server.origin, `?preset=${BEGINNER.id}`);
      assert.equal(await page.evaluate(() => window.hayatePage.preset()), BEGINNER.id);
      assert.equal(await page.inputValue("#preset"), BEGINNER.id);
      await assertPresetSent(page, preset);
      await page.evaluate(() => window.hayatePage.send("position startpos"));
      const { lines, ms } = await request(page, "go btime 0 wtime 0 byoyomi 1000", 10000);
      const infos = lines.map(parseInfoLine).filter((info) => info?.nodes !== undefined);
      assert.ok(infos.length > 0, "info lines with nodes");
      const nodes = Math.max(...infos.map((info) => info.nodes));
      const lines4 = Math.max(...infos.map((info) => info.multipv ?? 1));
      report(
        `browser, ${BEGINNER.id}: go byoyomi 1000 answered after ${ms.toFixed(0)} ms, ` +
          `${nodes} nodes, depth ${infos.at(-1).depth}, ${lines4} lines; ${lines.at(-1)}`,
      );
      assert.ok(nodes < BEGINNER.nodeLimit, `${nodes} nodes at level ${BEGINNER.level}`);
      // The low levels search four lines and play one of them.
      assert.equal(lines4, 4, "MultiPV 4 at a low level");
      assert.equal(checkLine(STARTPOS, [parseBestmove(lines.at(-1)).move]), null);
      // Another preset from the list: the page reloads with it.
      await Promise.all([
        page.waitForURL((url) => url.searchParams.get("preset") === CLUB.id),
        page.selectOption("#preset", CLUB.id),
      ]);
      await page.waitForFunction(() => window.hayatePage?.state() === "ready", null, {
        timeout: 60000,
      });
      assert.equal(await page.evaluate(() => window.hayatePage.preset()), CLUB.id);
      await assertPresetSent(page, { values: { SkillLevel: CLUB.level } });
      assert.deepEqual(errors, []);
      const unknown = await openPage(context, server.origin, "?preset=no-such-preset", "failed");
      assert.match(await unknown.page.textContent("#error"), /No preset no-such-preset/);
      await page.close();
      await unknown.page.close();
    });

    it("loads the engine named by ?engine=, and says so when there is none", async () => {
      const copy = await openPage(context, server.origin, "?engine=../../engine-copy/");
      assert.equal(await copy.page.textContent("#engine-name"), readManifest(WASM_DIR).name);
      assert.ok((await copy.page.textContent("#engine-url")).endsWith("/engine-copy/"));
      assert.deepEqual(copy.errors, []);
      const missing = await openPage(context, server.origin, "?engine=../../nowhere/", "failed");
      assert.ok(await missing.page.isVisible("#error"), "an error is shown");
      assert.match(await missing.page.textContent("#error"), /engine\.json: HTTP 404/);
    });
  });
}
