//! How the kernel's reasons name the harness and the configuration that governs it: words the
//! integration (or the application's configuration) supplies, so that a reason tells the user
//! what to change without the kernel knowing any harness (issue 35).

/// The harness's words in the kernel's reasons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HarnessTerms<'a> {
    /// The harness as its users call it, in a reason's prose.
    pub harness: &'a str,
    /// The configuration table that lists what it allows (`builtin_agents`, `agent_tools`).
    pub section: &'a str,
}

impl HarnessTerms<'_> {
    /// Words for tests and for a harness that has none of its own.
    pub const NEUTRAL: HarnessTerms<'static> = HarnessTerms { harness: "the harness", section: "harness" };
}

/// What a harness integration says of itself to the kernel: its words, and the names its
/// configuration section may list. The integration owns the lists (the built-in agent types
/// and the tools that start agents of its pinned client), so that each harness's section is
/// checked against its own harness and no other (U-17).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HarnessProfile {
    /// Its name in reasons and the key of its section of the configuration.
    pub terms: HarnessTerms<'static>,
    /// Its built-in agent types: the names its section's `builtin_agents` may list (H-20).
    pub builtin_agents: &'static [&'static str],
    /// Its tools that start agents past the spawn gate: the names its section's `agent_tools`
    /// may list (H-22).
    pub agent_tools: &'static [&'static str],
    /// The section its settings were read from before each harness had its own, when that is
    /// another harness's (`None`: its own). A configuration that has that section and not this
    /// harness's own was written for the old reading and is refused, never read silently (U-18).
    pub formerly: Option<&'static str>,
}

impl HarnessProfile {
    /// A profile for tests and for a harness that has no built-in agents of its own.
    pub const NEUTRAL: HarnessProfile = HarnessProfile {
        terms: HarnessTerms::NEUTRAL,
        builtin_agents: &[],
        agent_tools: &[],
        formerly: None,
    };
}
