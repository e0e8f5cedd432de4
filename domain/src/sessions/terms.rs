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
