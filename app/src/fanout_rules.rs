//! The fan-out's rules, pure (issue 49, item 5; A-48): the work items and their plan into
//! chunks ([`WorkItems`], [`plan`], [`Plan`]), what a chunk is given and how it ran
//! ([`ChunkInput`], [`ChunkRun`], [`ChunkStatus`], [`ChunkOutcome`]), and the merge of their
//! results ([`merge`], [`Merged`], [`MergeStatus`]), each input checked first
//! ([`validate_config`], [`validate_items`], [`validate_chunk_result`]). The fan-out's use case
//! is [`crate::fanout`].

pub use agentwarden_domain::fanout::{
    ChunkInput, ChunkOutcome, ChunkRun, ChunkStatus, MergeStatus, Merged, Plan, WorkItems, merge, plan,
    validate_chunk_result, validate_config, validate_items,
};
