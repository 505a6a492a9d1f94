// The engine in a module Web Worker, run the way ShogiHome runs a built-in engine: read the
// folder's engine.json, import its module, create the engine with printErr and locateFile, load
// the data files it declares, then relay USI lines both ways. While a search is on (from a `go`
// or `ponderhit` to the `bestmove` or `checkmate`) the worker calls the engine's poll() every
// 10 ms.
//
// Page -> worker: { type: "launch", baseURL }, { type: "send", line }, { type: "terminate" }.
// Worker -> page: { type: "manifest", manifest }, { type: "receive", line },
//                 { type: "log", message }, { type: "error", message }, { type: "close" }.

const ABI = "shogihome-wasm-engine/1";
const POLL_INTERVAL_MS = 10;
const METHODS = ["postMessage", "addMessageListener", "removeMessageListener", "terminate"];

let engine = null;
// Lines sent before the engine exists.
const queued = [];
let pollTimer = null;
let closed = false;

function post(message) {
  self.postMessage(message);
}

function stopPolling() {
  if (pollTimer !== null) {
    clearInterval(pollTimer);
    pollTimer = null;
  }
}

function receive(line) {
  if (line.startsWith("bestmove ") || line.startsWith("checkmate ")) {
    stopPolling();
  }
  post({ type: "receive", line });
}

function send(line) {
  if (closed) {
    return;
  }
  if (engine === null) {
    queued.push(line);
    return;
  }
  const startsSearch = line === "go" || line.startsWith("go ") || line.startsWith("ponderhit");
  let answered = false;
  const watch = (output) => {
    answered ||= output.startsWith("bestmove ") || output.startsWith("checkmate ");
  };
  engine.addMessageListener(watch);
  engine.postMessage(line);
  engine.removeMessageListener(watch);
  // An answer given inside postMessage (a mate in one, no legal move) needs no polling.
  if (startsSearch && !answered && pollTimer === null && typeof engine.poll === "function") {
    pollTimer = setInterval(() => engine?.poll(), POLL_INTERVAL_MS);
  }
}

function close() {
  if (closed) {
    return;
  }
  closed = true;
  stopPolling();
  try {
    engine?.terminate();
  } catch (error) {
    post({ type: "log", message: `terminate() threw: ${error}` });
  }
  engine = null;
  post({ type: "close" });
  self.close();
}

async function loadDataFiles(instance, manifestURL, files) {
  for (const file of files) {
    const url = new URL(file.url, manifestURL);
    post({ type: "log", message: `loading ${url}` });
    const response = await fetch(url);
    if (!response.ok) {
      throw new Error(`${url}: HTTP ${response.status}`);
    }
    const data = new Uint8Array(await response.arrayBuffer());
    const parent = file.path.slice(0, file.path.lastIndexOf("/"));
    if (parent) {
      instance.FS.mkdirTree(parent);
    }
    instance.FS.writeFile(file.path, data);
  }
}

async function launch(baseURL) {
  try {
    const manifestURL = new URL("engine.json", baseURL);
    const response = await fetch(manifestURL);
    if (!response.ok) {
      throw new Error(`${manifestURL}: HTTP ${response.status}`);
    }
    const manifest = await response.json();
    if (manifest.abi !== ABI) {
      throw new Error(`${manifestURL}: abi ${manifest.abi}, not ${ABI}`);
    }
    if ((manifest.moduleFormat || "esm") !== "esm") {
      throw new Error(`${manifestURL}: only ES modules load here (${manifest.moduleFormat})`);
    }
    post({ type: "manifest", manifest });
    const moduleURL = new URL(manifest.module, manifestURL).href;
    const factory = (await import(moduleURL)).default;
    if (typeof factory !== "function") {
      throw new Error(`${moduleURL} has no default export that is a function`);
    }
    const instance = await factory({
      // Emscripten reports recoverable trouble here too: a log line, not a failure.
      printErr: (line) => post({ type: "log", message: `stderr: ${line}` }),
      locateFile: (file) => new URL(file, moduleURL).href,
    });
    const missing = METHODS.filter((name) => typeof instance?.[name] !== "function");
    if (missing.length > 0) {
      throw new Error(`the engine has no ${missing.join(", ")}`);
    }
    instance.addMessageListener(receive);
    await loadDataFiles(instance, manifestURL, manifest.dataFiles || []);
    if (closed) {
      instance.terminate();
      return;
    }
    engine = instance;
    while (queued.length > 0 && !closed) {
      send(queued.shift());
    }
  } catch (error) {
    post({ type: "error", message: error instanceof Error ? error.message : String(error) });
    close();
  }
}

self.onmessage = (event) => {
  const message = event.data || {};
  switch (message.type) {
    case "launch":
      launch(message.baseURL);
      break;
    case "send":
      if (typeof message.line === "string") {
        send(message.line);
      }
      break;
    case "terminate":
      close();
      break;
    default:
      post({ type: "log", message: `unknown message ${JSON.stringify(message.type)}` });
  }
};
