// The USI steps every test takes with an engine: the handshake, isready, and one search.
import { isResult } from "./lines.mjs";

/** `usi` until `usiok`: the lines in between, `usiok` included. */
export async function handshake(engine, timeoutMs = 10000) {
  const from = engine.log.mark();
  await engine.request("usi", (line) => line === "usiok", { timeoutMs, label: "usiok" });
  return engine.log.linesFrom(from).filter((line) => !line.startsWith("ERR "));
}

/** `isready` until `readyok`; resolves to the `readyok` entry (its `at` is the arrival time). */
export function ready(engine, timeoutMs = 10000) {
  return engine.request("isready", (line) => line === "readyok", { timeoutMs, label: "readyok" });
}

/**
 * Sends `position` then `go`, waits for the result; resolves to `{ result, lines, ms }`: the
 * `bestmove`/`checkmate` line, every line of the search and the time from `go` to the result.
 */
export async function search(engine, position, go, timeoutMs = 10000) {
  engine.send(position);
  const from = engine.log.mark();
  const sent = performance.now();
  const entry = await engine.request(go, isResult, { timeoutMs, label: `answer to ${go}` });
  return {
    result: entry.line,
    lines: engine.log.linesFrom(from).slice(0, entry.index - from + 1),
    ms: entry.at - sent,
  };
}
