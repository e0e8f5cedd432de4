//! `docs/codes.md`, rendered from the codes' table: the prose is here, the rows come from
//! [`Code::usages`]. `cargo xtask codes` writes it; a test fails when the file is stale.

use std::fmt::Write as _;

use super::{Code, Table};

/// The tables in the order of the file: each with its middle column's heading (none for a
/// two-column table) and the prose before it.
const TABLES: [(Table, Option<&str>, &str); 11] = [
    (
        Table::Store,
        Some("emitted by"),
        "# Reason codes

<!-- Generated from `domain/src/code/table.rs` by `cargo xtask codes`: edit the table, not this file. -->

Every failed gate, layer, rule or check carries a stable snake_case `code` beside its human
reason (DECISIONS.md X-1). A released code never changes meaning; a new code is added to the
`Code` enum's table in the same change that emits it, and this file is rendered from that table:
a test fails when it is stale. A code this version does not know, read back from a log, is kept
as written (X-30).

## Event store and application
",
    ),
    (
        Table::Gate,
        Some("gate"),
        "
## Subagent gate (spec 000, G-1 … G-10)

Gate failures (`gates[].code`, `first_failure.code`, `failures[].code`):
",
    ),
    (Table::Candidate, None, "\nCandidate codes (`candidates[].code`):\n"),
    (
        Table::Parser,
        None,
        "
## Parsers

Named inside the reason of `persona_invalid`, `agent_invalid`, `request_invalid` and `duplicate_key`:
",
    ),
    (
        Table::Lineage,
        None,
        "
## Lineage and the tool-call pipeline (spec 003, L-1 … L-4)

Lineage rules (`result.code` of `warden lineage check`; layer 3's code in `warden authorize`):
",
    ),
    (Table::Layer, Some("layer"), "\nPipeline layers (`warden authorize`):\n"),
    (
        Table::Loading,
        None,
        "
Both commands also use `request_invalid`, `request_unreadable`, `duplicate_key` and
`audit_unavailable` (above), and:
",
    ),
    (
        Table::Result,
        None,
        "
A subagent's tool call in a harness's session (`tool_call_authorized` recorded by the hook,
T-11) is also denied, in every layer and in shadow mode too, with `seal_not_recorded` (no seal
is in force, so no rule is), `sealed_file_changed` (the manifests, `agentwarden.toml` or
`allowed_signers` differ from the seal, each file named), or the refused seal's own code
(`key_rotation_refused`, a signature code).

## result.json (spec 004, R-4)

Problem codes (`problems[].code` of `warden result validate`, each with its JSON `pointer`):
",
    ),
    (
        Table::HookInput,
        None,
        "
`json_syntax`, `json_too_deep`, `duplicate_key` and `audit_unavailable` (above) apply too.

## A harness's hook (`warden hook`)

Input errors, each answered as the hook's failure (for the first harness: `warden: CODE: reason`
on stderr and the exit that makes it deny the tool call, or block the stop):
",
    ),
    (
        Table::Server,
        Some("emitted by"),
        "
## Resident service (`warden serve`, V-1 … V-10)

The thin client (`warden hook` with a server configured, and `warden-hook`, V-34) answers exit 2
with `warden: CODE: reason` (`warden-hook: CODE: reason`) on stderr; `warden-hook` with no server
configured says `server_unavailable`; the server answers an `error` frame with the code (`docs/server-protocol.md`).
Every code the protocol names is a row below (`agentwarden_protocol::CODES`, X-75); an `error`
answer that forwards an application error carries that error's own code (the event store and
application table above).
",
    ),
    (
        Table::Decision,
        Some("stage"),
        "
Decision failures (`first_failure.code` of `subagent_spawn_evaluated`, `failures[].code` of
`subagent_stopped`, and the denial reason the harness shows), beside the gate's and the
lineage walk's own codes above:
",
    ),
];

/// The whole of `docs/codes.md`.
pub fn render_markdown() -> String {
    let mut out = String::new();
    for (table, column, before) in TABLES {
        out.push_str(before);
        out.push('\n');
        match column {
            Some(column) => {
                let _ = writeln!(out, "| code | {column} | meaning |\n| --- | --- | --- |");
            }
            None => out.push_str("| code | meaning |\n| --- | --- |\n"),
        }
        for code in Code::ALL {
            for usage in code.usages().iter().filter(|u| u.table == table) {
                let _ = match column {
                    Some(_) => writeln!(out, "| `{code}` | {} | {} |", usage.at, usage.meaning),
                    None => writeln!(out, "| `{code}` | {} |", usage.meaning),
                };
            }
        }
    }
    out
}
