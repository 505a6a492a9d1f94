//! File names as the bytes a front end received: a GUI on a Japanese Windows sends paths in its
//! ANSI code page (CP932, Shift-JIS), which is not UTF-8. The bytes are kept and turned into the
//! platform's own file name: on Unix a file name is bytes, so they are used as they are; on
//! Windows bytes that are not UTF-8 are decoded with the system's ANSI code page, as the GUI
//! encoded them.

use std::ffi::OsString;

/// The file name `bytes` stand for on this platform.
pub fn os_string_from_bytes(bytes: &[u8]) -> OsString {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return OsString::from(text);
    }
    platform(bytes)
}

#[cfg(unix)]
fn platform(bytes: &[u8]) -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(bytes.to_vec())
}

#[cfg(windows)]
fn platform(bytes: &[u8]) -> OsString {
    ansi_to_wide(bytes).unwrap_or_else(|| OsString::from(String::from_utf8_lossy(bytes).into_owned()))
}

#[cfg(not(any(unix, windows)))]
fn platform(bytes: &[u8]) -> OsString {
    OsString::from(String::from_utf8_lossy(bytes).into_owned())
}

/// Decodes `bytes` with the system's ANSI code page (kernel32's `MultiByteToWideChar`).
#[cfg(windows)]
fn ansi_to_wide(bytes: &[u8]) -> Option<OsString> {
    use std::os::windows::ffi::OsStringExt;
    #[link(name = "kernel32")]
    extern "system" {
        fn MultiByteToWideChar(
            code_page: u32,
            flags: u32,
            src: *const u8,
            src_len: i32,
            dst: *mut u16,
            dst_len: i32,
        ) -> i32;
    }
    const CP_ACP: u32 = 0;
    let len = i32::try_from(bytes.len()).ok()?;
    if len == 0 {
        return Some(OsString::new());
    }
    // SAFETY: `src` points to `len` readable bytes; a null destination of length 0 asks only for
    // the number of UTF-16 units needed, and nothing is written.
    let needed = unsafe { MultiByteToWideChar(CP_ACP, 0, bytes.as_ptr(), len, std::ptr::null_mut(), 0) };
    if needed <= 0 {
        return None;
    }
    let mut wide = vec![0u16; needed as usize];
    // SAFETY: `wide` holds `needed` writable units, the size the first call asked for, and `src`
    // is the same `len` readable bytes.
    let written = unsafe { MultiByteToWideChar(CP_ACP, 0, bytes.as_ptr(), len, wide.as_mut_ptr(), needed) };
    if written <= 0 {
        return None;
    }
    wide.truncate(written as usize);
    Some(OsString::from_wide(&wide))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_names_are_kept_as_text() {
        assert_eq!(os_string_from_bytes("評価/nn.bin".as_bytes()), OsString::from("評価/nn.bin"));
    }

    #[cfg(unix)]
    #[test]
    fn other_bytes_are_the_unix_file_name() {
        use std::os::unix::ffi::OsStrExt;
        // "評価" in Shift-JIS.
        let sjis = b"\x95\x5d\x89\xbf/nn.bin";
        assert_eq!(os_string_from_bytes(sjis).as_bytes(), sjis);
    }
}
