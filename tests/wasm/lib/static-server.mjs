// A static file server on 127.0.0.1 (a port the system picks) for the browser test: each mount
// maps a URL prefix to a folder. GET and HEAD only; nothing outside the mounted folders is served.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".txt": "text/plain; charset=utf-8",
};

/** The file a URL path names under the mounts, or null. */
function resolve(mounts, pathname) {
  for (const [prefix, root] of mounts) {
    if (!pathname.startsWith(prefix)) {
      continue;
    }
    const file = path.resolve(root, `./${pathname.slice(prefix.length)}`);
    if (file !== root && !file.startsWith(root + path.sep)) {
      return null;
    }
    return fs.existsSync(file) && fs.statSync(file).isDirectory()
      ? path.join(file, "index.html")
      : file;
  }
  return null;
}

/**
 * Serves `mounts` ({ "/wasm/example/": folder, ... }; prefixes end in "/"); resolves to `{ origin, close }`.
 */
export function startServer(mounts) {
  const table = Object.entries(mounts).map(([prefix, root]) => [prefix, path.resolve(root)]);
  const server = http.createServer((request, response) => {
    const reply = (status, text) => {
      response.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
      response.end(request.method === "HEAD" ? undefined : `${text}\n`);
    };
    if (request.method !== "GET" && request.method !== "HEAD") {
      reply(405, "GET and HEAD only");
      return;
    }
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(request.url, "http://localhost").pathname);
    } catch {
      reply(400, "bad path");
      return;
    }
    // A mount asked for without its final slash: send the browser to the folder.
    if (table.some(([prefix]) => prefix === `${pathname}/`)) {
      response.writeHead(301, { location: `${pathname}/` });
      response.end();
      return;
    }
    const file = resolve(table, pathname);
    if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      reply(404, "not found");
      return;
    }
    response.writeHead(200, {
      "content-type": TYPES[path.extname(file)] || "application/octet-stream",
      "content-length": fs.statSync(file).size,
      "cache-control": "no-store",
    });
    if (request.method === "HEAD") {
      response.end();
    } else {
      fs.createReadStream(file).pipe(response);
    }
  });
  return new Promise((resolveServer, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolveServer({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
