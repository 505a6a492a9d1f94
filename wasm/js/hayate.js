// Hayate as a WebAssembly engine: the glue between the module (hayate.wasm, the Rust front end
// `hayate::web`) and its host, in the shape of ShogiHome's engine ABI
// (`shogihome-wasm-engine/1`, the `-sMODULARIZE -sEXPORT_ES6` shape of an Emscripten build):
//
//   const engine = await createHayate({ printErr, locateFile });
//   engine.addMessageListener((line) => ...);
//   engine.postMessage("usi");
//
// One thread, no SharedArrayBuffer. The lines sent wait in an inbox that the module reads; a
// search runs inside the module's `hayate_run` and, every few milliseconds, pauses: the import
// `hayate_pause` unwinds the module's stack into a buffer (binaryen's asyncify, applied at build
// time), `hayate_run` returns, and the search is resumed later by rewinding that stack, either
// from `poll()` (ShogiHome calls it every 10 ms while the engine thinks) or by this module's own
// scheduling when the host never calls it. After `quit` or `terminate()` nothing is printed.
// The net comes as a data file that the host writes with `FS.writeFile` before `isready`
// (`writeDataFiles` below does what ShogiHome's worker does).

const PAUSE_IDLE = 0; // nothing runs: lines are handled as they come
const PAUSE_RUNNING = 1; // the module is executing
const PAUSE_UNWINDING = 2; // the module asked to pause and is unwinding its stack
const PAUSE_SUSPENDED = 3; // a search is paused, its stack saved
const PAUSE_REWINDING = 4; // the module is rewinding its stack to go on

/** The bytes at `url`: a file (Node.js) or a fetch. */
async function fetchBytes(url) {
  if (url.startsWith("file:")) {
    const fs = await import("node:fs/promises");
    return fs.readFile(new URL(url));
  }
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`cannot load ${url}: HTTP ${response.status}`);
  }
  return response.arrayBuffer();
}

/** Calls `fn` soon, after the host's pending events (a macrotask, not a microtask). */
function makeSoon() {
  if (typeof setImmediate === "function") {
    return (fn) => {
      const handle = setImmediate(fn);
      return () => clearImmediate(handle);
    };
  }
  // Browsers and workers: a message to ourselves runs after the events already queued, without
  // the 4 ms clamp of nested timeouts.
  const channel = new MessageChannel();
  const pending = new Map();
  let next = 0;
  channel.port1.onmessage = (event) => {
    const fn = pending.get(event.data);
    pending.delete(event.data);
    if (fn) fn();
  };
  return (fn) => {
    const id = next++;
    pending.set(id, fn);
    channel.port2.postMessage(id);
    return () => pending.delete(id);
  };
}

export default async function createHayate(moduleArg = {}) {
  const printErr = moduleArg.printErr ?? ((line) => console.error(line));
  const locateFile = moduleArg.locateFile ?? ((path) => new URL(path, import.meta.url).href);
  const soon = makeSoon();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  const listeners = new Set();
  /** The files the host wrote with `FS.writeFile` (the manifest's dataFiles), by path. */
  const files = new Map();
  /** Lines sent and not yet taken by the module, encoded. */
  const inbox = [];
  let state = PAUSE_IDLE;
  /** Milliseconds the paused search asked to wait before it goes on. */
  let pauseDelay = 0;
  /** Cancels the scheduled resumption, if any. */
  let cancelResume = null;
  /** True once `quit` was sent: nothing more is printed. */
  let silent = false;
  /** True once the module has quit, was terminated or failed: it never runs again. */
  let dead = false;

  let exports = null;
  let pauseBuffer = 0;
  let pauseBufferEnd = 0;
  const bytes = (ptr, len) => new Uint8Array(exports.memory.buffer, ptr, len);

  const imports = {
    env: {
      hayate_now_ms: () => performance.now(),
      hayate_write: (ptr, len) => {
        if (silent || dead) return;
        const line = decoder.decode(bytes(ptr, len));
        for (const listener of [...listeners]) {
          listener(line);
        }
      },
      hayate_log: (ptr, len) => {
        if (!dead) printErr(decoder.decode(bytes(ptr, len)));
      },
      hayate_pause: (delayMs) => {
        if (state === PAUSE_REWINDING) {
          // Back where the search paused: it goes on.
          exports.asyncify_stop_rewind();
          state = PAUSE_RUNNING;
          return;
        }
        // asyncify's data: where the saved stack starts and ends, then the space for it.
        const words = new Uint32Array(exports.memory.buffer, pauseBuffer, 2);
        words[0] = pauseBuffer + 8;
        words[1] = pauseBufferEnd;
        pauseDelay = delayMs;
        state = PAUSE_UNWINDING;
        exports.asyncify_start_unwind(pauseBuffer);
      },
      hayate_file_len: (ptr, len) => {
        const file = files.get(decoder.decode(bytes(ptr, len)));
        return file ? file.length : -1;
      },
      hayate_file_read: (ptr, len, dst) => {
        const file = files.get(decoder.decode(bytes(ptr, len)));
        bytes(dst, file.length).set(file);
      },
      hayate_inbox_len: () => inbox.length,
      hayate_inbox_line_len: (i) => inbox[i].length,
      hayate_inbox_read: (i, ptr) => bytes(ptr, inbox[i].length).set(inbox[i]),
      hayate_inbox_remove: (i) => {
        inbox.splice(i, 1);
      },
    },
  };

  const source = await fetchBytes(locateFile("hayate.wasm"));
  // In a worker or Node.js, compile synchronously: V8 then runs the baseline code at once and
  // tiers up in the background, whereas after an asynchronous compile it held the event loop
  // for half a second at the first search (waiting for its optimised code), and `stop` with it.
  // A page's main thread may not compile a module this large synchronously.
  const instance =
    typeof document === "undefined"
      ? new WebAssembly.Instance(new WebAssembly.Module(source), imports)
      : (await WebAssembly.instantiate(source, imports)).instance;
  exports = instance.exports;
  pauseBuffer = exports.hayate_pause_buffer();
  if (pauseBuffer === 0) {
    throw new Error("hayate: not enough memory for the engine's pause buffer");
  }
  pauseBufferEnd = pauseBuffer + exports.hayate_pause_buffer_bytes();

  /** Runs the module (first entry or resumption) and sees how it came back. */
  function enter() {
    try {
      const quit = exports.hayate_run();
      if (state === PAUSE_UNWINDING) {
        exports.asyncify_stop_unwind();
        state = PAUSE_SUSPENDED;
        // Terminated meanwhile: the paused search is never resumed.
        if (!dead) schedule(pauseDelay);
      } else {
        state = PAUSE_IDLE;
        if (quit) dead = true;
      }
    } catch (error) {
      // A trap (the engine's panic message went to printErr first): the module cannot go on.
      if (!dead) printErr(`hayate: the engine stopped: ${error}`);
      dead = true;
    }
  }

  function resume() {
    if (cancelResume) {
      cancelResume();
      cancelResume = null;
    }
    if (state !== PAUSE_SUSPENDED || dead) return;
    state = PAUSE_REWINDING;
    exports.asyncify_start_rewind(pauseBuffer);
    enter();
  }

  function schedule(delayMs) {
    if (cancelResume) cancelResume();
    if (delayMs > 0) {
      const handle = setTimeout(resume, delayMs);
      cancelResume = () => clearTimeout(handle);
    } else {
      cancelResume = soon(resume);
    }
  }

  const engine = {
    postMessage(command) {
      if (dead || silent) return;
      const line = String(command).replace(/[\r\n]+$/, "");
      if (line.trim() === "quit") silent = true;
      inbox.push(encoder.encode(line));
      if (state === PAUSE_IDLE) {
        state = PAUSE_RUNNING;
        enter();
      } else if (state === PAUSE_SUSPENDED && pauseDelay > 0) {
        // A search waiting out `go ponder` / `go infinite`: look at the line now.
        schedule(0);
      }
    },
    addMessageListener(listener) {
      listeners.add(listener);
    },
    removeMessageListener(listener) {
      listeners.delete(listener);
    },
    terminate() {
      dead = true;
      silent = true;
      inbox.length = 0;
      listeners.clear();
      if (cancelResume) cancelResume();
      cancelResume = null;
    },
    poll() {
      if (state === PAUSE_SUSPENDED && !dead) resume();
    },
    // The part of Emscripten's FS a host needs to hand the engine its data files (ShogiHome's
    // worker writes the manifest's dataFiles here before it sends `usi`). Folders are implied.
    FS: {
      mkdirTree() {},
      writeFile(path, data) {
        files.set(String(path), typeof data === "string" ? encoder.encode(data) : new Uint8Array(data));
      },
    },
  };
  return engine;
}

/**
 * Writes the data files the folder's engine.json lists (the net) into `engine.FS`, fetched from
 * the folder, as ShogiHome's worker does: for pages and tools that load the module themselves.
 * `folderURL` is the engine folder's URL (a `file:` URL in Node.js), ending in "/".
 */
export async function writeDataFiles(engine, folderURL) {
  const manifestURL = new URL("engine.json", folderURL).href;
  const manifest = JSON.parse(new TextDecoder().decode(await fetchBytes(manifestURL)));
  for (const file of manifest.dataFiles ?? []) {
    const data = new Uint8Array(await fetchBytes(new URL(file.url, folderURL).href));
    engine.FS.mkdirTree(file.path.slice(0, file.path.lastIndexOf("/")) || "/");
    engine.FS.writeFile(file.path, data);
  }
}
