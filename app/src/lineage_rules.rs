//! The lineage's and tool calls' rules, as a caller names them: a lineage's or a tool
//! call's request ([`LineageRequest`], [`ToolCallRequest`]), the manifests the rules are read
//! from ([`Manifests`]) and the tools a definition offers against them ([`compare_offered`]),
//! and how a path is resolved for the rules ([`RulesAs`], [`NoLinks`]). The use cases are
//! [`crate::Warden::check_lineage`] and [`crate::Warden::authorize_tool_call`].

pub use agentwarden_domain::lineage::{
    LineageRequest, Manifests, NoLinks, RulesAs, ToolCallRequest, compare_offered,
};
