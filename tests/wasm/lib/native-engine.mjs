// A USI engine in a child process (the native binary, or the stdio bridge), with the same
// `send` / `request` / `log` surface as the in-process WebAssembly engine.
import { spawn } from "node:child_process";
import fs from "node:fs";
import readline from "node:readline";
import { LineLog } from "./lines.mjs";

export class ProcessEngine {
  /** Spawns `command args`; its stdout lines go to `log`, its stderr lines too as `ERR ...`. */
  constructor(command, args = [], { cwd } = {}) {
    if (!fs.existsSync(command)) {
      throw new Error(`no engine at ${command}`);
    }
    this.log = new LineLog();
    this.child = spawn(command, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    this.exited = new Promise((resolve) => {
      // "close" comes after the exit and the end of its output, so no line is still on its way.
      this.child.on("close", (code, signal) => resolve({ code, signal }));
    });
    readline
      .createInterface({ input: this.child.stdout })
      .on("line", (line) => this.log.push(line));
    readline
      .createInterface({ input: this.child.stderr })
      .on("line", (line) => this.log.push(`ERR ${line}`));
    // A write after the child has gone must not end the test run with EPIPE.
    this.child.stdin.on("error", () => {});
  }

  send(line) {
    this.child.stdin.write(`${line}\n`);
  }

  request(line, match, options = {}) {
    const from = this.log.mark();
    this.send(line);
    return this.log.waitFor(match, { from, ...options });
  }

  /** Sends `quit` and waits for the exit; kills the child after `graceMs`. */
  async quit(graceMs = 3000) {
    this.send("quit");
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    const status = await this.exited;
    clearTimeout(timer);
    return status;
  }
}
