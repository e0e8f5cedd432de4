//! The subagent gate (spec 000, rulings G-1 … G-10): may this persona inject these subagents?

pub mod frontmatter;
