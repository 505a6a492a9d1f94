//! The bench signature: `hayate bench` must print the same node total on every run and with either
//! bitboard backend (`make test` runs this file with the default and the `portable` build). The
//! expected total is the `Bench:` number of the last commit that changed search or evaluation.

/// Update together with the `Bench: N` line of a commit that changes search or evaluation.
const EXPECTED_NODES: u64 = 781_598;

#[test]
fn bench_is_deterministic_and_matches_the_signature() {
    let first = hayate::tools::bench::run(hayate::tools::bench::DEFAULT_DEPTH, |_, _, _| {});
    assert_eq!(
        first.nodes,
        EXPECTED_NODES,
        "bench node total changed ({} backend): update EXPECTED_NODES and the commit's Bench line",
        hayate::bitboard::BACKEND
    );
    // A second run in the same process (warm tables, reused threads) gives the same count.
    let mut per_position = Vec::new();
    let again =
        hayate::tools::bench::run(hayate::tools::bench::DEFAULT_DEPTH, |_, _, n| per_position.push(n));
    assert_eq!(again.nodes, first.nodes);
    assert_eq!(per_position.len(), hayate::tools::bench::positions().len());
}
