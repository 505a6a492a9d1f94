//! Whether two paths name the same file, by what the file is and not by how it is named: a
//! tool that writes a file refuses an output that is one of its inputs, because creating the
//! output empties the input before it is read (`gensfen convert a.hgr --out a.hgr`), also when
//! the two names differ (`./a.hgr`, a symbolic link, a hard link).

use std::path::{Path, PathBuf};

/// Whether `a` and `b` are the same file. Two paths that both exist compare by identity (on Unix
/// the device and inode, through symbolic links; elsewhere the canonical path); a path that does
/// not exist yet is compared by its absolute name, so that two outputs of the same new name are
/// caught too.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(ma), Ok(mb)) => same_identity(a, &ma, b, &mb),
        (Err(_), Err(_)) => absolute(a) == absolute(b),
        // One exists and the other does not: they cannot be one file.
        _ => false,
    }
}

#[cfg(unix)]
fn same_identity(_: &Path, ma: &std::fs::Metadata, _: &Path, mb: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    ma.dev() == mb.dev() && ma.ino() == mb.ino()
}

/// Without inode numbers on stable Rust (Windows' file index is unstable), the canonical paths:
/// this sees through symbolic links and other spellings, not through hard links.
#[cfg(not(unix))]
fn same_identity(a: &Path, _: &std::fs::Metadata, b: &Path, _: &std::fs::Metadata) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(ca), Ok(cb)) => ca == cb,
        _ => absolute(a) == absolute(b),
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Refuses a set of files to write when one of them is one of the files to read, or two of them
/// are one file. Each file comes with what it is for (`--out`, `input`), for the message.
pub fn check_outputs(inputs: &[(&str, &Path)], outputs: &[(&str, &Path)]) -> Result<(), String> {
    for (i, (what, out)) in outputs.iter().enumerate() {
        if let Some((in_what, input)) = inputs.iter().find(|(_, input)| same_file(input, out)) {
            return Err(format!(
                "{what} {} is the same file as the {in_what} {}: writing it would destroy what is to be read; \
                 choose another {what}",
                out.display(),
                input.display()
            ));
        }
        if let Some((other_what, other)) = outputs[..i].iter().find(|(_, other)| same_file(other, out)) {
            return Err(format!(
                "{what} {} and {other_what} {} are the same file; choose two files",
                out.display(),
                other.display()
            ));
        }
    }
    Ok(())
}
