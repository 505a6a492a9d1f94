//! `engine-options.toml` lists exactly the options the engine declares, each with a valid value,
//! and the engine reads it.

mod common;

use hayate::engine::options::{load_options, Options};
use std::collections::BTreeSet;

#[test]
fn defaults_file_lists_exactly_the_declared_options() {
    let text =
        std::fs::read_to_string(format!("{}/engine-options.toml", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let keys: BTreeSet<String> = Options::toml_keys(&text).unwrap().into_iter().collect();
    let declared: BTreeSet<String> = Options::default().decls().iter().map(|d| d.name.to_string()).collect();
    // With `--features tune` the search parameters are options too, but have no place in the file.
    let declared: BTreeSet<String> = declared
        .into_iter()
        .filter(|n| !hayate::search::params::ALL.iter().any(|p| p.name == n.as_str()))
        .collect();
    let missing: Vec<_> = declared.difference(&keys).collect();
    let extra: Vec<_> = keys.difference(&declared).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing {missing:?}, unknown {extra:?}");
    // Every value is accepted, and equals the built-in default.
    let mut from_file = Options::default();
    from_file.apply_toml(&text).unwrap();
    let builtin = Options::default();
    for d in builtin.decls() {
        assert_eq!(
            from_file.value(d.name),
            builtin.value(d.name),
            "{} differs from the built-in default",
            d.name
        );
    }
}

#[test]
fn a_bad_file_is_refused_with_its_line() {
    let dir = std::env::temp_dir().join(format!("hayate-options-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    std::fs::write(&path, "Threads = 2\nMultiPV = 0\n").unwrap();
    let err = load_options(Some(&path)).unwrap_err();
    assert!(err.contains("line 2") && err.contains("MultiPV"), "{err}");
    let mut cmd = std::process::Command::new(common::engine::HAYATE);
    cmd.arg("--config").arg(&path);
    let out = common::engine::run(cmd, std::time::Duration::from_secs(30));
    assert!(out.code.is_some_and(|c| c != 0), "{}", out.stderr);
    assert!(out.stderr.contains("line 2"), "{}", out.stderr);
    std::fs::write(&path, "Threads = 3\n").unwrap();
    let (opts, problem) = load_options(Some(&path)).unwrap();
    assert!(problem.is_none());
    assert_eq!(opts.int("Threads"), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}
