//! Runs of consecutive sequence numbers, kept as a sorted list of disjoint inclusive
//! `(first, last)` pairs: the sink's out-of-order data (`tcp/sink.rs`) and the linux
//! sender's SACKed segments (`tcp/linux/scoreboard.rs`) are both such lists.

/// Insert `first..=last` into `runs` (sorted, disjoint, and disjoint from it), merging it
/// with the run that ends just below it and the one that starts just above it.
#[inline]
pub fn insert(runs: &mut Vec<(i32, i32)>, first: i32, last: i32) {
    // runs[..i] start below `first`; the new run overlaps none, so runs[i] starts above `last`
    let i = runs.partition_point(|&(a, _)| a < first);
    let left = i > 0 && runs[i - 1].1 + 1 == first;
    let right = i < runs.len() && runs[i].0 == last + 1;
    match (left, right) {
        (true, true) => {
            runs[i - 1].1 = runs[i].1;
            runs.remove(i);
        }
        (true, false) => runs[i - 1].1 = last,
        (false, true) => runs[i].0 = first,
        (false, false) => runs.insert(i, (first, last)),
    }
}

#[cfg(test)]
mod tests {
    use super::insert;

    #[test]
    fn merges_with_both_neighbours_or_either_or_none() {
        let mut r = Vec::new();
        insert(&mut r, 5, 5);
        insert(&mut r, 9, 10);
        assert_eq!(r, [(5, 5), (9, 10)]);
        insert(&mut r, 1, 2); // none
        insert(&mut r, 6, 6); // left
        insert(&mut r, 8, 8); // right
        assert_eq!(r, [(1, 2), (5, 6), (8, 10)]);
        insert(&mut r, 7, 7); // both
        insert(&mut r, 3, 4); // both
        assert_eq!(r, [(1, 10)]);
    }
}
