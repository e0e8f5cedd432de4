//! Lineage enforcement (spec 003, rulings L-1 … L-4) and the layered tool-call pipeline.
//!
//! No agent gains, by being spawned, a power its ancestors did not have: the [walker](walk)
//! checks every parent → child spawn against the manifests (`can_spawn`, `max_spawn_depth`),
//! and the [pipeline](authorize) checks a tool call against the agent's own manifest, every
//! ancestor's manifest, and the lineage. Both answer with the shared
//! [`Verdict`](crate::verdict::Verdict).

mod command_paths;
mod confined;
mod events;
pub mod held_names;
mod manifest_text;
mod model;
mod patterns;
mod pipeline;
mod real_path;
mod request;
mod rule_set;
mod rules;
mod sed_script;
mod shell_forms;
mod shell_split;
mod shell_words;
mod shell_writes;
pub mod syntax;
mod tool_path;
mod tool_use;
mod walk;
mod web_host;

pub use confined::Applied;
pub use events::{LineageChecked, ToolCallAuthorized};
pub use held_names::{HeldNames, held_in, held_write};
pub use manifest_text::{ManifestError, ManifestSet, parse_manifest_text};
pub use model::{AgentIdentifier, Manifest, Manifests};
pub use pipeline::{Authorization, Layer, LayerFailure, LayerResult, ToolCall, authorize, refuse};
#[cfg(test)]
pub(crate) use real_path::Links;
pub use real_path::{NoLinks, PlaceError, ResolvePath, joined, lexical, parent_and_leaf, places};
pub use request::{LineageRequest, MAX_TOOL_LEN, ToolCallRequest};
pub use rule_set::{Disagreement, ToolRuleSet, compare_offered, granted};
pub use rules::{MAX_RULE_LEN, RuleError, ToolRule};
pub(crate) use rules::{Reach, ReadFrom};
pub use shell_writes::{STREAM_FILES, ShellWrites, is_stream_file, shell_writes};
pub use tool_path::ToolPath;
pub use tool_use::{Argument, CallArgument, RulesAs, ToolUse};
pub use walk::{LineageVerdict, Pair, walk};

/// BLAKE3 of the lineage's compact JSON: the events record it instead of a long chain.
pub fn lineage_digest(lineage: &[AgentIdentifier]) -> String {
    serde_json::to_vec(lineage).map(|bytes| blake3::hash(&bytes).to_hex().to_string()).unwrap_or_default()
}

/// Lineages up to this length are recorded in full in their events; longer ones by digest.
pub const RECORDED_LINEAGE_MAX: usize = 64;

#[cfg(test)]
mod forms_tests;
#[cfg(test)]
mod tests;
