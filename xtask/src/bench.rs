//! `cargo xtask bench` (being written).

pub(crate) fn run(_args: &[String]) -> Result<(), String> {
    Err("not written yet".into())
}
