//! Hayate as a WebAssembly module: the exports of the library's web front end (`hayate::web`),
//! which the glue module `wasm/js/hayate.js` drives. Built by `make wasm` (see wasm/README.md).

pub use hayate::web::run;
