//! The NNUE net the options name: where its file is, and loading it again only when the options
//! name another file or the file changed (created, replaced, rewritten) since the last attempt.

use super::files::{found_from_here_or_beside_the_binary, stamp, Stamp};
use super::options::{self, Options};
use crate::eval::nnue::state::compiled_for;
use crate::eval::nnue::{Network, NnueError};
use std::path::PathBuf;
use std::sync::Arc;

/// The net in use, if any, and the file it came from.
#[derive(Default)]
pub struct NetSlot {
    /// The NNUE net in use, if one is loaded.
    net: Option<Arc<Network>>,
    /// The file the last load attempt read, and what it was then (reloaded when either differs).
    source: Option<(PathBuf, Stamp)>,
}

/// Where the options say the NNUE file is: `EvalFile` when set, else `EvalDir/nn.bin`; relative
/// paths are tried from the working directory, then from the binary's folder.
fn eval_path(opts: &Options) -> PathBuf {
    let file = opts.path(options::EVAL_FILE);
    let path = if file.as_os_str().is_empty() { opts.path(options::EVAL_DIR).join("nn.bin") } else { file };
    found_from_here_or_beside_the_binary(path)
}

impl NetSlot {
    pub fn net(&self) -> Option<&Arc<Network>> {
        self.net.as_ref()
    }

    /// Loads the net the options name, unless that file was the last one tried and has not
    /// changed since (same size and modification time, or still absent). Without one, or
    /// when it cannot be used, what `fallback` names plays (the embedded net, or the linear
    /// evaluation, as `EvalType` says; asked only then, as naming the embedded net decodes it).
    /// Returns what happened, for the user (nothing when the file is the same as before).
    pub fn load(&mut self, opts: &Options, fallback: impl Fn() -> String) -> Vec<String> {
        let path = eval_path(opts);
        let now = (path.clone(), stamp(&path));
        if self.source.as_ref() == Some(&now) {
            return Vec::new();
        }
        self.source = Some(now);
        match Network::load(&path) {
            Ok(net) => {
                let (shape, name) = (net.shape(), net.shape_name());
                let kernels = if net.sfnn_shape().is_none() && compiled_for(shape) {
                    "kernels compiled for it"
                } else {
                    "general kernels"
                };
                let mut messages = vec![format!("NNUE loaded from {}: {name} ({kernels})", path.display())];
                messages.extend(net.warnings().iter().map(|w| format!("NNUE file {}: {w}", path.display())));
                self.net = Some(Arc::new(net));
                messages
            }
            // (Unsupported: a WebAssembly page has no files.)
            Err(NnueError::Io { source, .. })
                if matches!(
                    source.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::Unsupported
                ) =>
            {
                self.net = None;
                vec![format!("no NNUE file at {}: using {}", path.display(), fallback())]
            }
            Err(e @ NnueError::OutOfMemory { .. }) => {
                // Not the file's fault: read it again at the next attempt, when memory may
                // have been freed. The net in use, if any, stays.
                self.source = None;
                let keep = match &self.net {
                    Some(net) => format!("keeping the {} net in use", net.shape_name()),
                    None => format!("using {}", fallback()),
                };
                vec![format!("{}: {e}; {keep}", path.display())]
            }
            Err(e) => {
                self.net = None;
                vec![format!("{}: {e}; using {}", path.display(), fallback())]
            }
        }
    }
}
