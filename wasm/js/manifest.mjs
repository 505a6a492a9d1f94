// Writes engine.json, the manifest ShogiHome reads (`shogihome-wasm-engine/1`), for the engine in
// the folder given: the name, the author and the options are what the module itself answers to
// `usi`, so that the manifest cannot drift from the engine.
//
//   node wasm/js/manifest.mjs target/wasm/hayate hayate-gen6.bin:/eval/hayate-gen6.bin
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dir, ...dataArgs] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node wasm/js/manifest.mjs ENGINE_DIR [URL:PATH...]");
  process.exit(2);
}
// The data files the host must write into the module's FS before it starts the engine.
const dataFiles = dataArgs.map((arg) => {
  const [url, filePath] = arg.split(":");
  return { url, path: filePath };
});
const modulePath = path.resolve(dir, "hayate.js");
const create = (await import(pathToFileURL(modulePath).href)).default;
const errors = [];
const engine = await create({
  printErr: (line) => errors.push(line),
  locateFile: (file) => new URL(file, pathToFileURL(modulePath)).href,
});
const lines = [];
engine.addMessageListener((line) => lines.push(line));
engine.postMessage("usi");
engine.postMessage("quit");
if (!lines.includes("usiok") || errors.length > 0) {
  console.error(`manifest: the engine did not answer usi:\n${[...lines, ...errors].join("\n")}`);
  process.exit(1);
}

/** One `option name N type T ...` line as the manifest's JSON. */
function option(line) {
  const words = line.split(" ");
  const typeAt = words.indexOf("type");
  const result = { name: words.slice(2, typeAt).join(" "), type: words[typeAt + 1] };
  const rest = words.slice(typeAt + 2);
  const vars = [];
  for (let i = 0; i < rest.length; i += 2) {
    const [key, value] = [rest[i], rest[i + 1]];
    if (key === "default") {
      const shown = value === "<empty>" ? "" : value;
      result.default = result.type === "spin" ? Number(shown) : shown;
    } else if (key === "min" || key === "max") {
      result[key] = Number(value);
    } else if (key === "var") {
      vars.push(value);
    }
  }
  if (result.type === "combo") result.vars = vars;
  return result;
}

/** The strength presets: a player picks one from ShogiHome's engine list. */
const LEVELS = [
  { id: "hayate-beginner-v1", displayName: "Hayate: beginner (level 0)", level: 0 },
  { id: "hayate-club-v1", displayName: "Hayate: club player (level 10)", level: 10 },
  { id: "hayate-strong-amateur-v1", displayName: "Hayate: strong amateur (level 16)", level: 16 },
];

const idName = lines.find((l) => l.startsWith("id name ")).slice("id name ".length);
const idAuthor = lines.find((l) => l.startsWith("id author ")).slice("id author ".length);
const manifest = {
  abi: "shogihome-wasm-engine/1",
  module: "hayate.js",
  moduleFormat: "esm",
  name: idName,
  author: idAuthor,
  dataFiles,
  options: lines.filter((l) => l.startsWith("option ")).map(option),
  // The ids become users' saved engine URIs: never change one; add a `-v2` for a new engine.
  // The levels are `SkillLevel`s of the measured ladder (docs/options.md, "Strength levels").
  presets: [
    {
      id: "hayate-v1",
      displayName: "Hayate",
      values: { Threads: 1 },
    },
    ...LEVELS.map(({ id, displayName, level }) => ({
      id,
      displayName,
      values: { Threads: 1, SkillLevel: level },
    })),
  ],
};
fs.writeFileSync(path.join(dir, "engine.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`manifest: ${path.join(dir, "engine.json")}: ${manifest.name}, ${manifest.options.length} options`);
