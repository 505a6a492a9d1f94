// Reading the engine's USI lines: `option` declarations, `info` lines and `bestmove`.

const OPTION_KEYWORDS = new Set(["name", "type", "default", "min", "max", "var"]);

/**
 * An `option name .. type ..` line as the manifest writes an option: `{ name, type, default,
 * min, max, vars }` with only the fields the type has. Spin numbers are numbers, a check's default
 * is "true" or "false", and a string's `<empty>` is "" (ShogiHome reads both as the empty value).
 * Returns null for a line that is not an option declaration.
 */
export function parseOptionLine(line) {
  const tokens = line.trim().split(/\s+/);
  if (tokens[0] !== "option") {
    return null;
  }
  const fields = { var: [] };
  let key = null;
  for (const token of tokens.slice(1)) {
    // A string's default is the rest of the line, keywords and all.
    if (OPTION_KEYWORDS.has(token) && !(key === "default" && isStringType(fields.type))) {
      key = token;
      if (key === "var") {
        fields.var.push([]);
      } else {
        fields[key] = [];
      }
    } else if (key === null) {
      return null;
    } else if (key === "var") {
      fields.var[fields.var.length - 1].push(token);
    } else {
      fields[key].push(token);
    }
  }
  const joined = (key) => (fields[key] ? fields[key].join(" ") : undefined);
  const name = joined("name");
  const type = joined("type");
  if (!name || !type) {
    return null;
  }
  const option = { name, type };
  const value = joined("default");
  switch (type) {
    case "spin":
      option.default = Number(value);
      option.min = Number(joined("min"));
      option.max = Number(joined("max"));
      break;
    case "check":
      option.default = value;
      break;
    case "combo":
      option.default = value;
      option.vars = fields.var.map((words) => words.join(" "));
      break;
    case "string":
    case "filename":
      option.default = value === undefined || value === "<empty>" ? "" : value;
      break;
    default:
      break;
  }
  return option;
}

function isStringType(type) {
  const joined = type ? type.join(" ") : "";
  return joined === "string" || joined === "filename";
}

/** A manifest option in the form `parseOptionLine` gives (a string default "<empty>" is ""). */
export function normaliseManifestOption(option) {
  const copy = { ...option };
  if ((copy.type === "string" || copy.type === "filename") && copy.default === "<empty>") {
    copy.default = "";
  }
  return copy;
}

/**
 * An `info` line's fields: depth, seldepth, time, nodes, nps, hashfull, multipv, score
 * (`{ cp }` or `{ mate }`, with `bound` when lowerbound/upperbound), pv (array) and string.
 */
export function parseInfoLine(line) {
  const tokens = line.trim().split(/\s+/);
  if (tokens[0] !== "info") {
    return null;
  }
  const info = {};
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i];
    switch (token) {
      case "depth":
      case "seldepth":
      case "time":
      case "nodes":
      case "nps":
      case "hashfull":
      case "multipv":
        info[token] = Number(tokens[++i]);
        break;
      case "score": {
        const kind = tokens[++i];
        const value = tokens[++i];
        info.score = kind === "mate" ? { mate: value } : { cp: Number(value) };
        break;
      }
      case "lowerbound":
      case "upperbound":
        if (info.score) {
          info.score.bound = token;
        }
        break;
      case "currmove":
        info.currmove = tokens[++i];
        break;
      case "pv":
        info.pv = tokens.slice(i + 1);
        i = tokens.length;
        break;
      case "string":
        info.string = tokens.slice(i + 1).join(" ");
        i = tokens.length;
        break;
      default:
        break;
    }
  }
  return info;
}

/** `bestmove M [ponder P]` as `{ move, ponder }`, or null for another line. */
export function parseBestmove(line) {
  const tokens = line.trim().split(/\s+/);
  if (tokens[0] !== "bestmove" || tokens.length < 2) {
    return null;
  }
  return { move: tokens[1], ponder: tokens[2] === "ponder" ? tokens[3] : undefined };
}
