#!/usr/bin/env node
// A few moves against one of the web engine's presets in ShogiHome's own web app, driven in
// headless Chromium the way a player does it: Game, Offline Game, the preset picked from Gote's
// engine list, Start Game, then the moves clicked on the board (Sente, the human, plays them; one
// that is not legal in the game is skipped). Prints the record as ShogiHome shows it and the
// USI lines ShogiHome logged (its `setoption` lines and the engine's last `info` before each
// `bestmove`), and saves a screenshot of the page.
//
// ShogiHome's web app must be served with Hayate among its built-in engines (wasm/README.md, "In
// ShogiHome's web app"; e.g. `npx vite` in its checkout serves http://127.0.0.1:5173/).
//
//   node tools/wasm/shogihome-game.mjs URL [--preset NAME] [--moves "7g7f 2g2f ..."] [--plies N]
//                                          [--out FILE.png] [--chromium PATH]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { optionIn, playwright, repo } from "./cli.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => optionIn(args, name, fallback);
const url = args[0];
if (!url || url.startsWith("--")) {
  console.error(
    'usage: node tools/wasm/shogihome-game.mjs URL [--preset NAME] [--moves "7g7f ..."] [--plies N] [--out FILE] [--chromium PATH]',
  );
  process.exit(2);
}
const preset = option("--preset", "Hayate: beginner (level 0)");
const moves = option("--moves", "7g7f 2g2f 6i7h 2f2e 3i4h 5i6h 4i5h 3g3f 5g5f 8h7g").split(/\s+/);
const plies = Number(option("--plies", "10"));
const out = path.resolve(option("--out", path.join(repo, "target", "wasm", "shogihome-game.png")));
const chromiumPath = option("--chromium", "/usr/bin/chromium");

const { chromium } = await playwright();
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "hayate-shogihome-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath,
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
  viewport: { width: 1200, height: 760 },
});
const usiLines = [];
try {
  const page = browser.pages()[0] || (await browser.newPage());
  // ShogiHome logs each USI line it sends (`> `) and receives (`< `) on the console.
  page.on("console", (message) => {
    const match = /usi: sid=\d+: ([<>] .*)$/.exec(message.text());
    if (match) usiLines.push(match[1]);
  });
  await page.goto(url);
  await page.evaluate(() => localStorage.setItem("appSetting", JSON.stringify({ language: "en" })));
  await page.reload();
  await page.getByRole("button", { name: "Game", exact: true }).click();
  await page.getByText("Offline Game", { exact: true }).click();
  const start = page.getByRole("button", { name: "Start Game" });
  await start.waitFor();
  await page.waitForTimeout(1500);
  // Sente stays the human; Gote is the preset, picked from its engine list.
  await page.locator(".player-select .main").nth(1).click();
  await page.locator(".player-select").nth(1).locator("li.item", { hasText: preset }).click();
  await start.click();

  const rows = page.locator(".record-view .move-list .move-element");
  const waitRows = async (n, ms) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if ((await rows.count()) >= n) return true;
      await page.waitForTimeout(100);
    }
    return false;
  };
  // The board's 81 squares in the operation layer; square (file, rank) from their extent.
  const grid = async () => {
    const boxes = await page
      .locator(".board.operation > div:not([class])")
      .evaluateAll((elements) => elements.map((e) => e.getBoundingClientRect().toJSON()));
    const left = Math.min(...boxes.map((b) => b.left));
    const top = Math.min(...boxes.map((b) => b.top));
    const width = (Math.max(...boxes.map((b) => b.right)) - left) / 9;
    const height = (Math.max(...boxes.map((b) => b.bottom)) - top) / 9;
    return { left, top, width, height };
  };
  const click = async (g, square) => {
    const file = Number(square[0]);
    const rank = "abcdefghi".indexOf(square[1]) + 1;
    await page.mouse.click(g.left + (9 - file + 0.5) * g.width, g.top + (rank - 0.5) * g.height);
    await page.waitForTimeout(200);
  };
  // The board takes Sente's moves once the engine is ready and the game is on.
  const end = Date.now() + 60000;
  while (!usiLines.includes("> usinewgame")) {
    if (Date.now() > end) throw new Error("the engine did not start within 60 s");
    await page.waitForTimeout(100);
  }
  await page.waitForTimeout(500);
  for (const move of moves) {
    const before = await rows.count();
    if (before - 1 >= plies) break;
    const g = await grid();
    await click(g, move.slice(0, 2));
    await click(g, move.slice(2, 4));
    if (!(await waitRows(before + 1, 2000))) {
      await click(g, move.slice(2, 4)); // deselect
      console.log(`${move}: not played (not legal here)`);
      continue;
    }
    const sent = Date.now();
    if (!(await waitRows(before + 2, 60000))) throw new Error(`no reply to ${move} within 60 s`);
    console.log(`${move}: the engine replied after ${Date.now() - sent} ms`);
  }
  await page.waitForTimeout(500);
  await page.getByText("Search Log", { exact: true }).click();
  await page.waitForTimeout(500);
  const record = await rows.allInnerTexts();
  console.log(`record:\n${record.map((row) => `  ${row.replace(/\s+/g, " ")}`).join("\n")}`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await page.screenshot({ path: out });
  console.log(`screenshot: ${out}`);
} finally {
  await browser.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
// What reached the engine, and what it answered.
console.log("USI (ShogiHome's log):");
let lastInfo = null;
for (const line of usiLines) {
  if (line.startsWith("< info ") && !line.startsWith("< info string")) {
    lastInfo = line;
    continue;
  }
  if (line.startsWith("< option ")) continue;
  if (line.startsWith("< bestmove") && lastInfo) console.log(`  ${lastInfo}`);
  if (line.startsWith("> setoption") && !/SkillLevel|USI_LimitStrength|USI_Elo|Threads/.test(line))
    continue;
  console.log(`  ${line}`);
}
