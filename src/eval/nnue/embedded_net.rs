//! The net that ships inside the binary: `nets/hayate-gen6.hnnc` in the compact form
//! ([`super::compact`]), decoded once, at its first use, into an ordinary [`Network`]. It plays
//! when `EvalType` is `NNUE` and no `EvalFile`/`EvalDir` net is loaded. How it was made (data,
//! training command) is in nets/README.md, "Generation 6"; `python -m trainer.compact unpack
//! nets/hayate-gen6.hnnc nn.bin` writes the same net as a YaneuraOu `nn.bin`.

use super::compact::{self, CompactError};
use super::Network;
use once_cell::sync::OnceCell;
use std::sync::Arc;

/// The embedded net's name (its file in `nets/` without the `.hnnc`).
pub const NAME: &str = "hayate-gen6";

/// The compact bytes of the embedded net.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub static BYTES: &[u8] = include_bytes!("../../../nets/hayate-gen6.hnnc");

/// The compact bytes of the embedded net: as they are in the binary.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub fn compact_bytes() -> Result<std::borrow::Cow<'static, [u8]>, CompactError> {
    Ok(std::borrow::Cow::Borrowed(BYTES))
}

/// Where a web page's engine finds the net (the WebAssembly build for ShogiHome's web app): not
/// in the module, which a PWA precaches whole and must keep under 2 MiB, but in a data file the
/// host hands it (ShogiHome's manifest `dataFiles`; `scripts/wasm-build.sh` writes it): the
/// compact bytes deflated, after their length (8 bytes, little-endian).
pub const WEB_FILE: &str = "/eval/hayate-gen6.bin";

/// The compact bytes of the embedded net, from the host's data file [`WEB_FILE`], inflated into
/// memory asked for first (about 50 ms in a browser).
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub fn compact_bytes() -> Result<std::borrow::Cow<'static, [u8]>, CompactError> {
    use crate::sys::host_file::{self, HostFileError};
    let file = host_file::read(WEB_FILE).map_err(|e| match e {
        HostFileError::Missing => CompactError::Missing(WEB_FILE),
        HostFileError::OutOfMemory { bytes } => CompactError::OutOfMemory { bytes },
    })?;
    let Some((len, deflated)) = file.split_first_chunk::<8>() else {
        return Err(CompactError::Inflate);
    };
    let len = u64::from_le_bytes(*len) as usize;
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| CompactError::OutOfMemory { bytes: len })?;
    out.resize(len, 0);
    match miniz_oxide::inflate::decompress_slice_iter_to_slice(
        &mut out,
        std::iter::once(deflated),
        false,
        true,
    ) {
        Ok(n) if n == len => Ok(std::borrow::Cow::Owned(out)),
        _ => Err(CompactError::Inflate),
    }
}

/// The decoded net, once a decode has succeeded (or found the bytes broken: `None`).
static NET: OnceCell<Option<Arc<Network>>> = OnceCell::new();

/// The embedded net, decoded at the first call, then shared. A decode the allocator refused
/// memory for (128 MB at its peak) is tried again at the next call: memory may have been freed
/// since (a smaller table or fewer threads), and the linear evaluation plays meanwhile.
pub fn network() -> Option<&'static Arc<Network>> {
    let decoded = NET.get_or_try_init(|| match compact_bytes().and_then(|bytes| compact::load(&bytes)) {
        Ok(net) => Ok(Some(Arc::new(net))),
        Err(e @ CompactError::OutOfMemory { .. }) => {
            log::warn!("the embedded net {NAME}: {e}; using the linear evaluation until it can be decoded");
            Err(())
        }
        Err(e) => {
            // Only a broken build gets here (the tests decode these bytes); the linear
            // evaluation plays instead.
            log::error!("the embedded net {NAME} cannot be decoded: {e}; using the linear evaluation");
            Ok(None)
        }
    });
    decoded.ok().and_then(Option::as_ref)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a (64 bits): a fingerprint of the `nn.bin` the trainer exported.
    fn fnv1a(bytes: &[u8]) -> u64 {
        bytes
            .iter()
            .fold(0xCBF2_9CE4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3))
    }

    #[test]
    fn the_web_data_file_is_named_after_the_net() {
        // scripts/wasm-build.sh names the file after NAME, and the engine looks for WEB_FILE.
        assert_eq!(WEB_FILE, format!("/eval/{NAME}.bin"));
    }

    #[test]
    fn decodes_to_the_exported_net() {
        let bytes = compact::decode(&compact_bytes().unwrap()).unwrap();
        assert_eq!(bytes.len(), super::super::Shape::CLASSIC.file_bytes());
        // The fingerprint of the trainer's nn.bin for this net (nets/README.md).
        let expected = include_str!("../../../nets/hayate-gen6.fnv1a").trim();
        assert_eq!(format!("{:016x}", fnv1a(&bytes)), expected);
        assert!(network().is_some());
    }
}
