//! Paths as the confinement compares them: absolute, lexically normal strings, one beneath
//! another by whole segments.

use crate::lineage::lexical;

/// Whether `path` is `dir` or beneath it, by whole segments (`/a/bc` is not beneath `/a/b`).
/// Both absolute and lexically normal.
pub fn beneath(path: &str, dir: &str) -> bool {
    dir == "/" || path == dir || path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

/// `segments` joined under `base` (absolute), lexically normal.
pub(super) fn under(base: &str, segments: &[String]) -> String {
    lexical(&format!("{base}/{}", segments.join("/")))
}

/// The paths of `paths` that no other is above: sorted, duplicates and paths beneath another
/// gone. The set of paths beneath them is unchanged.
pub(super) fn outermost(mut paths: Vec<String>) -> Vec<String> {
    paths.sort();
    paths.dedup();
    let all = paths.clone();
    paths.retain(|p| !all.iter().any(|q| q != p && beneath(p, q)));
    paths
}

/// The paths beneath both one of `a` and one of `b`: for each pair, the deeper when one is
/// beneath the other (two trees meet only so).
pub(super) fn meet(a: &[String], b: &[String]) -> Vec<String> {
    let mut both = Vec::new();
    for x in a {
        for y in b {
            if beneath(x, y) {
                both.push(x.clone());
            } else if beneath(y, x) {
                both.push(y.clone());
            }
        }
    }
    outermost(both)
}
