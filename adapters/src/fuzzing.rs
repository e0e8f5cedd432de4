//! Entry points for the fuzz targets in `fuzz/` (feature `fuzzing`): the parsers of bytes an
//! agent with the user's shell can write, reached without a store around them.

/// The `archive_segment` target: an archive listing and a segment file, as a writer of both
/// could leave them (S-13). `data` is the listing's key (8 bytes) and value (80 bytes), then the
/// file; the listing's length and digest are made to match the file, so that the parser gets
/// past the digest and reads the records. Panics when the parser does: a refusal is fine, and
/// a segment it accepts must hold exactly the listed seqs, in order, ending at the listed hash.
pub fn segment(data: &[u8]) {
    crate::sled::fuzz_segment(data);
}
