//! The domain's subagent gate against Cedar's `is_authorized` on the same policy (issue 20,
//! rulings ). `cargo xtask bench cedar` runs `benches/cedar.rs` and prints the
//! medians side by side; `cargo test` here checks that both engines decide every case of
//! [`case::table`] alike, so the bench cannot silently compare two different policies.
//!
//! The policy is the gate of spec 000 (G-1 … G-8) as the domain's `evaluate` applies it: the
//! kill switch is exactly `true`; the persona's file declares the subagent; the governance
//! metadata is an object whose `contextSealed` and `pipelineRunApproved` are JSON `true`
//! (typed: not `"true"`, not `1`) and whose `approvalRef` is a string with a visible character,
//! at most 256 characters and no control character; the subagent's file says `AGENT_TYPE: 2`.
//! On the Cedar side it is one `permit` over `Persona`, `Action::"delegate"` and `Subagent`
//! ([`cedar_side::policy`]); the rest is default deny.
//!
//! How the two are made to ask the same question:
//!
//! - One domain `evaluate` decides every candidate of a request (here four) and delegates those
//!   that pass. Cedar answers one principal, action and resource at a time, and its language
//!   cannot say "every element of this set has `agentType == 2`", so the same decision is one
//!   `is_authorized` per candidate; the set Cedar allows is compared with the set the domain
//!   delegates. The bench reports both the four-candidate request and a one-candidate one.
//! - Cedar has no operator for a string's length, for Unicode whitespace or for control
//!   characters, so three of the `approvalRef` checks are made by the code that builds Cedar's
//!   context (its "policy enforcement point"), which hands Cedar `context.approvalRef` =
//!   `{text, chars, blank, control}`; the policy compares those. In the pre-parsed group that
//!   work is already done before Cedar is timed (in the domain's `evaluate` it is timed), so
//!   the comparison leans Cedar's way, not ours.
//! - Both sides read the same request text with the same strict JSON parser
//!   (`agentwarden_domain::json::parse_strict`: a duplicate key is a deny, G-5); each reads its
//!   own form of what the instruction files say: the domain the Markdown files themselves,
//!   Cedar its entities as JSON (`Entities::from_json_str`).

pub mod case;
pub mod cedar_side;
pub mod domain_side;
