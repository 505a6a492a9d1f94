//! The NNUE net the options name: where its file is, and loading it again only when the options
//! name another file.

use super::options::{self, Options};
use crate::eval::nnue::{Network, NnueError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The net in use, if any, and the file it came from.
#[derive(Default)]
pub struct NetSlot {
    /// The NNUE net in use, if one is loaded.
    net: Option<Arc<Network>>,
    /// The file the last load attempt read (reloaded only when the options name another).
    source: Option<PathBuf>,
}

/// Where the options say the NNUE file is: `EvalFile` when set, else `EvalDir/nn.bin`; relative
/// paths are tried from the working directory, then from the binary's folder.
fn eval_path(opts: &Options) -> PathBuf {
    let file = opts.path(options::EVAL_FILE);
    let path = if file.as_os_str().is_empty() { opts.path(options::EVAL_DIR).join("nn.bin") } else { file };
    if path.is_relative() && !path.exists() {
        if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
            let beside = dir.join(&path);
            if beside.exists() {
                return beside;
            }
        }
    }
    path
}

impl NetSlot {
    pub fn net(&self) -> Option<&Arc<Network>> {
        self.net.as_ref()
    }

    /// Loads the net the options name, unless that file was the last one tried. Without one, or
    /// when it cannot be used, the embedded evaluation plays. Returns what happened, for the user
    /// (nothing when the file is the same as before).
    pub fn load(&mut self, opts: &Options) -> Option<String> {
        let path = eval_path(opts);
        if self.source.as_ref() == Some(&path) {
            return None;
        }
        self.source = Some(path.clone());
        let (net, message) = match Network::load(&path) {
            Ok(net) => (Some(Arc::new(net)), format!("NNUE loaded from {}", path.display())),
            Err(NnueError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                (None, format!("no NNUE file at {}: using the embedded evaluation", path.display()))
            }
            Err(e) => (None, format!("{}: {e}; using the embedded evaluation", path.display())),
        };
        self.net = net;
        Some(message)
    }
}
