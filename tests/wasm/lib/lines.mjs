// The lines an engine has printed, each with the time it arrived, and waits for the next one that
// matches. Shared by the in-process WebAssembly engine, the native engine behind a pipe and the
// stdio bridge.

/** How many of the last lines a timeout's message quotes. */
const QUOTED_LINES = 12;

export class LineLog {
  constructor() {
    /** @type {{ line: string, at: number }[]} */
    this.entries = [];
    /** Pending `waitFor` calls: `{ from, match, done }`. */
    this.waiters = new Set();
  }

  /** Records a line and wakes the waiters it satisfies. */
  push(line) {
    const entry = { line, at: performance.now(), index: this.entries.length };
    this.entries.push(entry);
    for (const waiter of [...this.waiters]) {
      if (entry.index >= waiter.from && waiter.match(line)) {
        waiter.done(entry);
      }
    }
  }

  /** The index the next line will have: pass it to `waitFor` or `linesFrom` later. */
  mark() {
    return this.entries.length;
  }

  /** The lines from index `from` on. */
  linesFrom(from = 0) {
    return this.entries.slice(from).map((entry) => entry.line);
  }

  /**
   * The first entry from index `from` on whose line satisfies `match`, as soon as there is one;
   * rejects after `timeoutMs` with the label and the last lines in the message.
   */
  waitFor(match, { from = 0, timeoutMs = 5000, label = "a line" } = {}) {
    const found = this.entries.slice(from).find((entry) => match(entry.line));
    if (found) {
      return Promise.resolve(found);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        from,
        match,
        done: (entry) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(entry);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        const tail = this.linesFrom(Math.max(from, this.entries.length - QUOTED_LINES));
        reject(
          new Error(`no ${label} within ${timeoutMs} ms; last lines:\n  ${tail.join("\n  ")}`),
        );
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}

/** Whether a line ends a search: `bestmove ...` or `checkmate ...`. */
export function isResult(line) {
  return line.startsWith("bestmove ") || line.startsWith("checkmate ");
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
