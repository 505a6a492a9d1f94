// The example page: the engine in a Web Worker (engine-worker.js), its `id name`, a position to
// analyse and the analysis as the engine thinks. The engine folder is `../../target/wasm/hayate/`
// relative to this page (the repository's layout when the repository root is served), or the
// `?engine=` query parameter, resolved against the page. The engine plays at one of its
// manifest's presets (the strength levels), as ShogiHome applies them: the preset's values as
// `setoption` lines before `isready`. It is the `?preset=` query parameter's id, or the first;
// choosing another in the list reloads the page with it.
//
// For scripts (and the browser test) the page exposes `window.hayatePage`: `send(line)` sends
// a USI line as the buttons do, `lines` holds every line the engine printed, `sent` every line
// sent to it, `errors` every failure of the engine or the worker the page showed, `state()` the
// page's state and `preset()` the preset's id.

const DEFAULT_ENGINE = "../../target/wasm/hayate/";
const LOG_LINES = 300;

const elements = Object.fromEntries(
  [
    "engine-name",
    "status",
    "controls",
    "preset",
    "sfen",
    "analyse",
    "stop",
    "error",
    "side",
    "depth",
    "score",
    "nodes",
    "nps",
    "pv",
    "bestmove",
    "log",
    "engine-url",
  ].map((id) => [id, document.getElementById(id)]),
);

const page = {
  lines: [],
  sent: [],
  errors: [],
  send: (line) => sendLine(line),
  state: () => state,
  preset: () => preset?.id ?? null,
};
window.hayatePage = page;

/** loading -> handshake -> ready <-> thinking -> stopping -> ready; failed on an error. */
let state = "loading";
let manifest = null;
// The manifest's preset the engine plays at (chosen when the manifest arrives).
let preset = null;
// A position to analyse once the search being stopped has answered.
let pendingAnalysis = null;
const logLines = [];

function engineBaseURL() {
  const requested = new URLSearchParams(location.search).get("engine") || DEFAULT_ENGINE;
  const url = new URL(requested, document.baseURI);
  if (!url.pathname.endsWith("/")) {
    url.pathname += "/";
  }
  return url;
}

function setState(next, text) {
  state = next;
  elements.status.dataset.state = next;
  elements.status.textContent = text;
  elements.analyse.disabled = !["ready", "thinking"].includes(next);
  elements.stop.disabled = next !== "thinking";
}

/** Shows `message`; a failure of the engine or the worker (not of the input) is kept in errors. */
function showError(message, failure = true) {
  if (failure) {
    page.errors.push(message);
  }
  elements.error.textContent = message;
  elements.error.hidden = false;
}

function clearError() {
  elements.error.hidden = true;
  elements.error.textContent = "";
}

function log(prefix, line) {
  logLines.push(`${prefix} ${line}`);
  if (logLines.length > LOG_LINES) {
    logLines.splice(0, logLines.length - LOG_LINES);
  }
  elements.log.textContent = logLines.join("\n");
}

const worker = new Worker(new URL("engine-worker.js", import.meta.url), { type: "module" });

function sendLine(line) {
  page.sent.push(line);
  log(">", line);
  if (line === "go" || line.startsWith("go ")) {
    resetDisplay();
    setState("thinking", "thinking");
  } else if (line === "stop" && state === "thinking") {
    setState("stopping", "stopping");
  }
  worker.postMessage({ type: "send", line });
}

// ---- The position field ----------------------------------------------------------------------

/**
 * The `position` command for the text of the field and the side to move in it, or an error:
 * `startpos` or an SFEN (board, side, hands, move number), optionally followed by `moves ...`.
 */
function positionCommand(text) {
  // "position" and "sfen" in front, as in a USI command, are allowed too.
  const bare = text
    .trim()
    .replace(/^position\s+/, "")
    .replace(/^sfen\s+/, "");
  const [head, tail] = bare.split(/\s+moves\s+|\s+moves$/);
  const moves = tail ? tail.trim().split(/\s+/) : [];
  const movesPart = moves.length > 0 ? ` moves ${moves.join(" ")}` : "";
  let side = "b";
  let command;
  if (head === "startpos" || head === "") {
    command = `position startpos${movesPart}`;
  } else {
    const fields = head.split(/\s+/);
    const ranks = fields[0].split("/");
    if (fields.length < 3 || ranks.length !== 9 || !/^[bw]$/.test(fields[1])) {
      return { error: "An SFEN has nine ranks separated by '/', then b or w, then the hands." };
    }
    if (
      !/^[1-9pPlLnNsSgGbBrRkK+/]+$/.test(fields[0]) ||
      !/^(-|([0-9]*[plnsgbrPLNSGBR])+)$/.test(fields[2])
    ) {
      return { error: `Not an SFEN board and hands: ${fields[0]} ${fields[2]}` };
    }
    side = fields[1];
    const ply = /^[0-9]+$/.test(fields[3] || "") ? fields[3] : "1";
    command = `position sfen ${fields.slice(0, 3).join(" ")} ${ply}${movesPart}`;
  }
  if (moves.length % 2 === 1) {
    side = side === "b" ? "w" : "b";
  }
  return { command, side };
}

function analyse(text) {
  const parsed = positionCommand(text);
  if (parsed.error) {
    showError(parsed.error, false);
    return;
  }
  clearError();
  if (state === "thinking" || state === "stopping") {
    pendingAnalysis = parsed;
    if (state === "thinking") {
      sendLine("stop");
    }
    return;
  }
  startAnalysis(parsed);
}

function startAnalysis({ command, side }) {
  elements.side.textContent = side === "b" ? "(black to move)" : "(white to move)";
  elements.bestmove.textContent = "–";
  sendLine(command);
  sendLine("go infinite");
}

// ---- The analysis display --------------------------------------------------------------------

function resetDisplay() {
  for (const id of ["depth", "score", "nodes", "nps", "pv"]) {
    elements[id].textContent = "–";
  }
}

function formatScore(kind, value, bound) {
  let text;
  if (kind === "mate") {
    const plies = Number(value);
    const losing = value.startsWith("-");
    if (Number.isFinite(plies) && plies !== 0) {
      text = losing ? `mated in ${-plies}` : `mate in ${plies}`;
    } else {
      text = losing ? "mated" : "mate";
    }
  } else {
    const cp = Number(value);
    text = `${cp > 0 ? "+" : ""}${cp} cp`;
  }
  if (bound === "lowerbound") {
    text += " (lower bound)";
  } else if (bound === "upperbound") {
    text += " (upper bound)";
  }
  return text;
}

function showInfo(line) {
  const tokens = line.split(/\s+/);
  const info = {};
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i];
    if (["depth", "seldepth", "time", "nodes", "nps", "multipv"].includes(token)) {
      info[token] = Number(tokens[++i]);
    } else if (token === "score") {
      info.score = { kind: tokens[i + 1], value: tokens[i + 2] };
      i += 2;
    } else if (token === "lowerbound" || token === "upperbound") {
      if (info.score) {
        info.score.bound = token;
      }
    } else if (token === "pv") {
      info.pv = tokens.slice(i + 1);
      break;
    } else if (token === "string" || token === "currmove") {
      break;
    }
  }
  if (info.multipv !== undefined && info.multipv !== 1) {
    return;
  }
  if (info.depth !== undefined) {
    elements.depth.textContent =
      info.seldepth !== undefined ? `${info.depth} / ${info.seldepth}` : String(info.depth);
  }
  if (info.score && info.score.value !== undefined) {
    elements.score.textContent = formatScore(info.score.kind, info.score.value, info.score.bound);
  }
  if (info.nodes !== undefined) {
    elements.nodes.textContent = info.nodes.toLocaleString("en");
  }
  const nps =
    info.nps ??
    (info.nodes !== undefined && info.time > 0
      ? Math.round((info.nodes * 1000) / info.time)
      : undefined);
  if (nps !== undefined) {
    elements.nps.textContent = nps.toLocaleString("en");
  }
  if (info.pv && info.pv.length > 0) {
    elements.pv.textContent = info.pv.join(" ");
  }
}

// ---- The preset ------------------------------------------------------------------------------

/** Picks the preset of `?preset=` (or the first) from the manifest and fills the list. */
function choosePreset() {
  const presets = manifest?.presets || [];
  const requested = new URLSearchParams(location.search).get("preset");
  preset = requested === null ? presets[0] : presets.find((p) => p.id === requested);
  for (const { id, displayName } of presets) {
    const item = document.createElement("option");
    item.value = id;
    item.textContent = `${displayName} (${id})`;
    elements.preset.append(item);
  }
  if (!preset) {
    const ids = presets.map((p) => p.id).join(", ");
    showError(`No preset ${requested} in the engine's engine.json (it has ${ids || "none"}).`);
    setState("failed", "failed");
    worker.postMessage({ type: "terminate" });
    return;
  }
  elements.preset.value = preset.id;
  elements.preset.disabled = false;
}

elements.preset.addEventListener("change", () => {
  const params = new URLSearchParams(location.search);
  params.set("preset", elements.preset.value);
  location.search = params.toString();
});

// ---- The engine's lines ----------------------------------------------------------------------

function receive(line) {
  page.lines.push(line);
  log("<", line);
  if (line.startsWith("id name ")) {
    elements["engine-name"].textContent = line.slice("id name ".length);
  } else if (line === "usiok") {
    if (state === "failed") {
      return;
    }
    for (const [name, value] of Object.entries(preset?.values || {})) {
      sendLine(`setoption name ${name} value ${value}`);
    }
    sendLine("isready");
  } else if (line === "readyok") {
    if (state === "handshake") {
      setState("ready", "ready");
    }
  } else if (line.startsWith("info ")) {
    showInfo(line);
  } else if (line.startsWith("bestmove ") || line.startsWith("checkmate ")) {
    elements.bestmove.textContent = line.split(/\s+/).slice(1).join(" ");
    if (pendingAnalysis) {
      const next = pendingAnalysis;
      pendingAnalysis = null;
      setState("ready", "ready");
      startAnalysis(next);
    } else {
      setState("ready", "ready");
    }
  }
}

worker.onmessage = (event) => {
  const message = event.data;
  switch (message.type) {
    case "manifest":
      manifest = message.manifest;
      choosePreset();
      break;
    case "receive":
      receive(message.line);
      break;
    case "log":
      log("#", message.message);
      break;
    case "error":
      showError(`The engine failed: ${message.message}`);
      setState("failed", "failed");
      break;
    case "close":
      if (state !== "failed") {
        setState("failed", "the engine has stopped");
      }
      break;
    default:
      break;
  }
};

worker.onerror = (event) => {
  event.preventDefault();
  showError(`The worker failed: ${event.message || "an error while loading it"}`);
  setState("failed", "failed");
};

elements.controls.addEventListener("submit", (event) => {
  event.preventDefault();
  analyse(elements.sfen.value);
});
elements.stop.addEventListener("click", () => {
  pendingAnalysis = null;
  if (state === "thinking") {
    sendLine("stop");
  }
});
addEventListener("pagehide", () => worker.postMessage({ type: "terminate" }));

const baseURL = engineBaseURL();
elements["engine-url"].textContent = baseURL.href;
setState("handshake", "loading the engine");
worker.postMessage({ type: "launch", baseURL: baseURL.href });
sendLine("usi");
