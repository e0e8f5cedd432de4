# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_warden_global_optspecs
    string join \n store= fsync lock-timeout-ms= h/help V/version
end

function __fish_warden_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_warden_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_warden_using_subcommand
    set -l cmd (__fish_warden_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c warden -n "__fish_warden_needs_command" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_needs_command" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_needs_command" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_needs_command" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_needs_command" -s V -l version -d 'Print version'
complete -c warden -n "__fish_warden_needs_command" -f -a "gate" -d 'May this persona inject these subagents? Exit 0 allow, 1 deny, 2 usage'
complete -c warden -n "__fish_warden_needs_command" -f -a "lineage" -d 'Check agent lineages against the manifests. Exit 0 allow, 1 deny, 2 usage'
complete -c warden -n "__fish_warden_needs_command" -f -a "authorize" -d 'May this agent, with this lineage, use this tool? Exit 0 allow, 1 deny, 2 usage'
complete -c warden -n "__fish_warden_needs_command" -f -a "fanout" -d 'Fan-out / fan-in: plan, run and merge parallel chunk agents'
complete -c warden -n "__fish_warden_needs_command" -f -a "guard" -d 'Protected-path integrity: snapshot, check, revert. Exit 0 clean, 1 violation, 2 usage'
complete -c warden -n "__fish_warden_needs_command" -f -a "result" -d 'Validate agent results. Exit 0 valid, 1 invalid, 2 usage'
complete -c warden -n "__fish_warden_needs_command" -f -a "audit" -d 'Read, verify and export the audit log'
complete -c warden -n "__fish_warden_needs_command" -f -a "hook" -d 'The Claude Code hook: reads one hook event on stdin and answers in Claude Code\'s protocol. Exit 0 (with a deny or block on stdout when refused); 2 when it cannot decide'
complete -c warden -n "__fish_warden_needs_command" -f -a "seal" -d 'Seal the context: record the digest of every file decisions depend on (or --show the seal in force). Refused inside a Claude Code session'
complete -c warden -n "__fish_warden_needs_command" -f -a "approve" -d 'Approve the pipeline run under a reference (recorded). Refused inside a Claude Code session'
complete -c warden -n "__fish_warden_needs_command" -f -a "revoke" -d 'Withdraw an approval, or every approval and the seal (recorded). Refused inside a Claude Code session'
complete -c warden -n "__fish_warden_needs_command" -f -a "approvals" -d 'List the recorded approvals with their state, and the seal'
complete -c warden -n "__fish_warden_needs_command" -f -a "release" -d 'Lift a Claude Code session\'s quarantine after checking the workspace (recorded). Refused inside a Claude Code session'
complete -c warden -n "__fish_warden_needs_command" -f -a "init" -d 'Set up a harness: `warden init claude-code` merges Warden\'s hooks into `.claude/settings.json` (or writes a managed-settings drop-in) and adds the guard\'s own files to its protected paths'
complete -c warden -n "__fish_warden_needs_command" -f -a "doctor" -d 'Check the Claude Code setup (and run the installed hook on a canary spawn), the persona and agent files, the manifests, the store, the seal and the approvals; say what to fix. Exit 0 when all is well, 1 otherwise'
complete -c warden -n "__fish_warden_needs_command" -f -a "serve" -d 'The resident service: hold the store open and answer `warden hook`, the decision commands and `warden status` over a Unix domain socket (`docs/server-protocol.md`). SIGTERM drains and exits 0'
complete -c warden -n "__fish_warden_needs_command" -f -a "status" -d 'Whether the resident service answers: its store\'s head, uptime, requests served and its span export\'s counts (V-61). Exit 0 when it answers, 1 when it does not'
complete -c warden -n "__fish_warden_needs_command" -f -a "completions" -d 'Print the shell completion script for bash, zsh or fish (generated from this command line\'s definition)'
complete -c warden -n "__fish_warden_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand gate" -l request -d 'The request: `{"persona", "subagents"?, "opts": {"subagentGovernance": {…}}, "session"?, "turn"?}`' -r -F
complete -c warden -n "__fish_warden_using_subcommand gate" -l config -d 'The configuration (default: the project\'s `agentwarden.toml`, from here upward)' -r -F
complete -c warden -n "__fish_warden_using_subcommand gate" -l server -d 'Ask the resident service at this socket (`warden serve`) instead of opening the store [default: `AGENTWARDEN_SERVER`, else `[server] socket` in the configuration]' -r -F
complete -c warden -n "__fish_warden_using_subcommand gate" -l server-timeout-ms -d 'How long to wait for the server\'s answer; past it the command fails as on an unusable store (V-14)' -r
complete -c warden -n "__fish_warden_using_subcommand gate" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand gate" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand gate" -l json -d 'Print the report as one JSON object'
complete -c warden -n "__fish_warden_using_subcommand gate" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand gate" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand lineage; and not __fish_seen_subcommand_from check help" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand lineage; and not __fish_seen_subcommand_from check help" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand lineage; and not __fish_seen_subcommand_from check help" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand lineage; and not __fish_seen_subcommand_from check help" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand lineage; and not __fish_seen_subcommand_from check help" -f -a "check" -d 'May this chain of agents exist? The file holds a JSON array of `{id, type, spawn_depth}` from the root to the newest child, or `{"lineage": [...], "session"?}`'
complete -c warden -n "__fish_warden_using_subcommand lineage; and not __fish_seen_subcommand_from check help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand lineage; and __fish_seen_subcommand_from check" -l lineage -d 'The lineage file' -r -F
complete -c warden -n "__fish_warden_using_subcommand lineage; and __fish_seen_subcommand_from check" -l config -d 'The configuration (default: the project\'s `agentwarden.toml`, from here upward)' -r -F
complete -c warden -n "__fish_warden_using_subcommand lineage; and __fish_seen_subcommand_from check" -l server -d 'Ask the resident service at this socket (`warden serve`) instead of opening the store [default: `AGENTWARDEN_SERVER`, else `[server] socket` in the configuration]' -r -F
complete -c warden -n "__fish_warden_using_subcommand lineage; and __fish_seen_subcommand_from check" -l server-timeout-ms -d 'How long to wait for the server\'s answer; past it the command fails as on an unusable store (V-14)' -r
complete -c warden -n "__fish_warden_using_subcommand lineage; and __fish_seen_subcommand_from check" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand lineage; and __fish_seen_subcommand_from check" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand lineage; and __fish_seen_subcommand_from check" -l json -d 'Print the answer as one JSON object'
complete -c warden -n "__fish_warden_using_subcommand lineage; and __fish_seen_subcommand_from check" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand lineage; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand lineage; and __fish_seen_subcommand_from help" -f -a "check" -d 'May this chain of agents exist? The file holds a JSON array of `{id, type, spawn_depth}` from the root to the newest child, or `{"lineage": [...], "session"?}`'
complete -c warden -n "__fish_warden_using_subcommand lineage; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand authorize" -l request -d 'The request: `{"agent": {id, type, spawn_depth}, "lineage": [...], "tool", "session"?}`' -r -F
complete -c warden -n "__fish_warden_using_subcommand authorize" -l config -d 'The configuration (default: the project\'s `agentwarden.toml`, from here upward)' -r -F
complete -c warden -n "__fish_warden_using_subcommand authorize" -l server -d 'Ask the resident service at this socket (`warden serve`) instead of opening the store [default: `AGENTWARDEN_SERVER`, else `[server] socket` in the configuration]' -r -F
complete -c warden -n "__fish_warden_using_subcommand authorize" -l server-timeout-ms -d 'How long to wait for the server\'s answer; past it the command fails as on an unusable store (V-14)' -r
complete -c warden -n "__fish_warden_using_subcommand authorize" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand authorize" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand authorize" -l json -d 'Print the answer as one JSON object'
complete -c warden -n "__fish_warden_using_subcommand authorize" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand authorize" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand fanout; and not __fish_seen_subcommand_from plan run merge help" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand fanout; and not __fish_seen_subcommand_from plan run merge help" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand fanout; and not __fish_seen_subcommand_from plan run merge help" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand fanout; and not __fish_seen_subcommand_from plan run merge help" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand fanout; and not __fish_seen_subcommand_from plan run merge help" -f -a "plan" -d 'Validate the work items and print the plan (chunks, or the single-agent reason)'
complete -c warden -n "__fish_warden_using_subcommand fanout; and not __fish_seen_subcommand_from plan run merge help" -f -a "run" -d 'Plan, run CMD once per chunk (its chunk as JSON on stdin, its result JSON on stdout), and print the merged report'
complete -c warden -n "__fish_warden_using_subcommand fanout; and not __fish_seen_subcommand_from plan run merge help" -f -a "merge" -d 'Merge chunk result files (each a chunk\'s result JSON, in chunk order)'
complete -c warden -n "__fish_warden_using_subcommand fanout; and not __fish_seen_subcommand_from plan run merge help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from plan" -l items -d 'A JSON array of work items' -r -F
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from plan" -l phase -d 'The phase (`tests`: round-robin, 250 per agent; anything else: files)' -r
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from plan" -l config -d 'The configuration (its `[fan_out]` section)' -r -F
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from plan" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from plan" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from plan" -l no-fan-out -d 'Force the single-agent path'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from plan" -l json -d 'Print the plan as one JSON object'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from plan" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from plan" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from run" -l items -d 'A JSON array of work items' -r -F
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from run" -l phase -d 'The phase' -r
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from run" -l run -d 'The run id the events are filed under' -r
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from run" -l config -d 'The configuration (its `[fan_out]` section)' -r -F
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from run" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from run" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from run" -l json -d 'Print the report as one JSON object'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from run" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from merge" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from merge" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from merge" -l json -d 'Print the merge as one JSON object'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from merge" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from merge" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from help" -f -a "plan" -d 'Validate the work items and print the plan (chunks, or the single-agent reason)'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from help" -f -a "run" -d 'Plan, run CMD once per chunk (its chunk as JSON on stdin, its result JSON on stdout), and print the merged report'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from help" -f -a "merge" -d 'Merge chunk result files (each a chunk\'s result JSON, in chunk order)'
complete -c warden -n "__fish_warden_using_subcommand fanout; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand guard; and not __fish_seen_subcommand_from snapshot run check help" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and not __fish_seen_subcommand_from snapshot run check help" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and not __fish_seen_subcommand_from snapshot run check help" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand guard; and not __fish_seen_subcommand_from snapshot run check help" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand guard; and not __fish_seen_subcommand_from snapshot run check help" -f -a "snapshot" -d 'Record a manifest of the protected paths (path, kind, mode, BLAKE3) to a file'
complete -c warden -n "__fish_warden_using_subcommand guard; and not __fish_seen_subcommand_from snapshot run check help" -f -a "run" -d 'Snapshot (with content), run the agent command, check and revert from that content (no git needed), validate result.json if given, and fail the item (exit 1) if the command failed, anything protected was touched, or the result is invalid'
complete -c warden -n "__fish_warden_using_subcommand guard; and not __fish_seen_subcommand_from snapshot run check help" -f -a "check" -d 'Compare the protected paths with a snapshot; on a change, write violation.json, record a guardrail_violation event, and (with --revert) put them back'
complete -c warden -n "__fish_warden_using_subcommand guard; and not __fish_seen_subcommand_from snapshot run check help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from snapshot" -l out -d 'Where to write the manifest' -r -F
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from snapshot" -l root -d 'The workspace root' -r -F
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from snapshot" -l config -d 'The configuration (its `[guardrails] protected` list; default `okrs`)' -r -F
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from snapshot" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from snapshot" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from snapshot" -l json -d 'Print a summary as one JSON object'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from snapshot" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from snapshot" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from run" -l item -d 'The plan item' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from run" -l run -d 'The run' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from run" -l artifacts -d 'The item\'s artifacts directory (violation.json goes there)' -r -F
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from run" -l result -d 'A result.json the command must leave valid' -r -F
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from run" -l root -d 'The workspace root (also the command\'s working directory)' -r -F
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from run" -l config -d 'The configuration' -r -F
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from run" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from run" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from run" -l json -d 'Print the outcome as one JSON object (the command\'s stdout goes to stderr)'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from run" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l snapshot -d 'The manifest from `warden guard snapshot`' -r -F
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l item -d 'The plan item' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l run -d 'The run' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l artifacts -d 'The item\'s artifacts directory (violation.json goes there)' -r -F
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l root -d 'The workspace root' -r -F
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l config -d 'The configuration' -r -F
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l server -d 'Ask the resident service at this socket (`warden serve`) instead of opening the store [default: `AGENTWARDEN_SERVER`, else `[server] socket` in the configuration]' -r -F
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l server-timeout-ms -d 'How long to wait for the server\'s answer; past it the command fails as on an unusable store (V-14)' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l revert -d 'Revert the changes with git'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l json -d 'Print the outcome as one JSON object'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from help" -f -a "snapshot" -d 'Record a manifest of the protected paths (path, kind, mode, BLAKE3) to a file'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from help" -f -a "run" -d 'Snapshot (with content), run the agent command, check and revert from that content (no git needed), validate result.json if given, and fail the item (exit 1) if the command failed, anything protected was touched, or the result is invalid'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from help" -f -a "check" -d 'Compare the protected paths with a snapshot; on a change, write violation.json, record a guardrail_violation event, and (with --revert) put them back'
complete -c warden -n "__fish_warden_using_subcommand guard; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand result; and not __fish_seen_subcommand_from validate help" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand result; and not __fish_seen_subcommand_from validate help" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand result; and not __fish_seen_subcommand_from validate help" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand result; and not __fish_seen_subcommand_from validate help" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand result; and not __fish_seen_subcommand_from validate help" -f -a "validate" -d 'Check a result.json against the strict schema (R-4) and record the verdict'
complete -c warden -n "__fish_warden_using_subcommand result; and not __fish_seen_subcommand_from validate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand result; and __fish_seen_subcommand_from validate" -l item -d 'The plan item it belongs to' -r
complete -c warden -n "__fish_warden_using_subcommand result; and __fish_seen_subcommand_from validate" -l run -d 'The run it belongs to' -r
complete -c warden -n "__fish_warden_using_subcommand result; and __fish_seen_subcommand_from validate" -l server -d 'Ask the resident service at this socket (`warden serve`) instead of opening the store [default: `AGENTWARDEN_SERVER`, else `[server] socket` in the configuration]' -r -F
complete -c warden -n "__fish_warden_using_subcommand result; and __fish_seen_subcommand_from validate" -l server-timeout-ms -d 'How long to wait for the server\'s answer; past it the command fails as on an unusable store (V-14)' -r
complete -c warden -n "__fish_warden_using_subcommand result; and __fish_seen_subcommand_from validate" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand result; and __fish_seen_subcommand_from validate" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand result; and __fish_seen_subcommand_from validate" -l json -d 'Print the verdict as one JSON object'
complete -c warden -n "__fish_warden_using_subcommand result; and __fish_seen_subcommand_from validate" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand result; and __fish_seen_subcommand_from validate" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand result; and __fish_seen_subcommand_from help" -f -a "validate" -d 'Check a result.json against the strict schema (R-4) and record the verdict'
complete -c warden -n "__fish_warden_using_subcommand result; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "log" -d 'List events: a table, or one JSON object per line with --json. Filters combine (AND)'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "explain" -d 'Explain one event in plain words, after verifying the chain up to it'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "replay" -d 'Rebuild a projection from the verified log and print it'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "timeline" -d 'What happened in one session, in order'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "show" -d 'Show one event in full'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "verify" -d 'Check the hash chain (and a checkpoint): exit 0 if intact, 1 with the first broken seq'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "checkpoint" -d 'Print the head as `{"seq": N, "head_hash": "…"}`, to keep outside the log'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "export" -d 'Write the whole log for other tools'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "stats" -d 'Count events by type and by decision'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "copy" -d 'Copy the log to another store (a directory or a postgres:// URL), verifying the chain; the destination must be empty or a prefix of the source (then the rest is copied)'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "report" -d 'Write one self-contained HTML page (no network, opens from disk) for a session or a time window: the chain\'s verification, the spawn tree, the decisions, the approvals and seals, the protected-path violations'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "note" -d 'Append an operator\'s note to the log'
complete -c warden -n "__fish_warden_using_subcommand audit; and not __fish_seen_subcommand_from log explain replay timeline show verify checkpoint export stats copy report note help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l from -d 'First sequence number to show' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l limit -d 'At most this many (matching) events' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l type -d 'Only events of this type (`delegation_evaluated`, `lineage_checked`, …)' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l decision -d 'Only decisions that were `allow` or `deny`' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l session -d 'Only events of this session' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l run -d 'Only events of this run' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l approval-ref -d 'Only gate evaluations under this approval reference' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l since -d 'Only events recorded at or after: RFC 3339, or a duration ago (`30m`, `2h`, `7d`)' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l until -d 'Only events recorded at or before: RFC 3339, or a duration ago' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l json -d 'One JSON object per line'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from log" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from explain" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from explain" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from explain" -l json -d 'One line of JSON'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from explain" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from explain" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from replay" -l projection -d 'approvals, denials, spawn-tree, fan-out, violations or decisions' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from replay" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from replay" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from replay" -l json -d 'One line of JSON'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from replay" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from replay" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from timeline" -l session -d 'The session id' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from timeline" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from timeline" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from timeline" -l json -d 'One JSON object per line'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from timeline" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from timeline" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from show" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from show" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from show" -l json -d 'One line of JSON instead of pretty-printed JSON'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from show" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from verify" -l checkpoint -d 'A checkpoint from `warden audit checkpoint`; finds truncation and rewrites behind it' -r -F
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from verify" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from verify" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from verify" -l json -d 'Print the verdict as JSON'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from verify" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from checkpoint" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from checkpoint" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from checkpoint" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from checkpoint" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from export" -l format -d 'The output format' -r -f -a "jsonl\t'One JSON envelope per line'"
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from export" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from export" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from export" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from stats" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from stats" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from stats" -l json -d 'Print the counts as JSON'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from stats" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from stats" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from copy" -l from -d 'The store to read' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from copy" -l to -d 'The store to write' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from copy" -l batch -d 'Events per append' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from copy" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from copy" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from copy" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from copy" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from report" -l session -d 'The session to report' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from report" -l since -d 'Only events recorded at or after: RFC 3339, or a duration ago (`30m`, `2h`, `7d`)' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from report" -l until -d 'Only events recorded at or before: RFC 3339, or a duration ago' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from report" -l out -d 'Write the page here instead of to stdout' -r -F
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from report" -l checkpoint -d 'A checkpoint from `warden audit checkpoint`, checked too and shown at the top' -r -F
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from report" -l config -d 'The configuration whose `[approvals] allowed_signers` the signatures are checked against (found as every command finds it when not given)' -r -F
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from report" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from report" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from report" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from report" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from note" -l actor -d 'Who writes it' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from note" -l session -d 'A session id to file it under' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from note" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from note" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from note" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from note" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "log" -d 'List events: a table, or one JSON object per line with --json. Filters combine (AND)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "explain" -d 'Explain one event in plain words, after verifying the chain up to it'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "replay" -d 'Rebuild a projection from the verified log and print it'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "timeline" -d 'What happened in one session, in order'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one event in full'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Check the hash chain (and a checkpoint): exit 0 if intact, 1 with the first broken seq'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "checkpoint" -d 'Print the head as `{"seq": N, "head_hash": "…"}`, to keep outside the log'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "export" -d 'Write the whole log for other tools'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "stats" -d 'Count events by type and by decision'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "copy" -d 'Copy the log to another store (a directory or a postgres:// URL), verifying the chain; the destination must be empty or a prefix of the source (then the rest is copied)'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "report" -d 'Write one self-contained HTML page (no network, opens from disk) for a session or a time window: the chain\'s verification, the spawn tree, the decisions, the approvals and seals, the protected-path violations'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "note" -d 'Append an operator\'s note to the log'
complete -c warden -n "__fish_warden_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand hook" -l config -d 'The configuration (default: the project\'s `agentwarden.toml`, from here upward)' -r -F
complete -c warden -n "__fish_warden_using_subcommand hook" -l deadline-ms -d 'Answer within this many milliseconds of starting, or exit 2 (H-10): below the Claude Code timeout, which would let the call run' -r
complete -c warden -n "__fish_warden_using_subcommand hook" -l server -d 'Ask the resident service at this socket (`warden serve`) instead of deciding here. Only this option names it: not `AGENTWARDEN_SERVER`, not `[server] socket` (V-49)' -r -F
complete -c warden -n "__fish_warden_using_subcommand hook" -l server-uid -d 'With --server: believe only a server running as this user (its connection\'s peer); `[server] uid` in the configuration, when set, must be the same (V-12, V-49)' -r
complete -c warden -n "__fish_warden_using_subcommand hook" -l harness -d 'The harness that calls the hook: how its event is read and its answer printed (issue 36)' -r -f -a "claude-code\t''
codex\t''"
complete -c warden -n "__fish_warden_using_subcommand hook" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand hook" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand hook" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand hook" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand seal" -l config -d 'The configuration whose files are sealed (default: the project\'s `agentwarden.toml`, from here upward)' -r -F
complete -c warden -n "__fish_warden_using_subcommand seal" -l by -d 'Who does it (recorded in the event)' -r
complete -c warden -n "__fish_warden_using_subcommand seal" -l key -d 'Sign the record with this SSH key (required when `[approvals] allowed_signers` is set): a private key file, or a public key (`.pub`) to sign through ssh-agent' -r -F
complete -c warden -n "__fish_warden_using_subcommand seal" -l server -d 'Ask the resident service at this socket (`warden serve`) instead of opening the store [default: `AGENTWARDEN_SERVER`, else `[server] socket` in the configuration]' -r -F
complete -c warden -n "__fish_warden_using_subcommand seal" -l server-timeout-ms -d 'How long to wait for the server\'s answer; past it the command fails as on an unusable store (V-14)' -r
complete -c warden -n "__fish_warden_using_subcommand seal" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand seal" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand seal" -l show -d 'Show the seal in force instead of sealing'
complete -c warden -n "__fish_warden_using_subcommand seal" -l json -d 'With --show: print it as JSON'
complete -c warden -n "__fish_warden_using_subcommand seal" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand seal" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand approve" -l ref -d 'The approval\'s reference, as the gate\'s `approvalRef` (e.g. `GATE-2026-02-21-001`)' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l expires-in -d 'It expires after this long: `90s`, `30m`, `8h`, `7d`' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l scope -d 'Whom it covers, repeatable: `persona:NAME` or `subagent:NAME` (default: anyone)' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l by -d 'Who does it (recorded in the event)' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l key -d 'Sign the record with this SSH key (required when `[approvals] allowed_signers` is set): a private key file, or a public key (`.pub`) to sign through ssh-agent' -r -F
complete -c warden -n "__fish_warden_using_subcommand approve" -l config -d 'The configuration (default: the project\'s `agentwarden.toml`, from here upward): its `[approvals] allowed_signers` says whether the approval must be signed' -r -F
complete -c warden -n "__fish_warden_using_subcommand approve" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand approve" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand revoke" -l ref -d 'The approval to revoke (it must be in force); without it, every approval and the seal' -r
complete -c warden -n "__fish_warden_using_subcommand revoke" -l by -d 'Who does it (recorded in the event)' -r
complete -c warden -n "__fish_warden_using_subcommand revoke" -l key -d 'Sign the record with this SSH key (required when `[approvals] allowed_signers` is set): a private key file, or a public key (`.pub`) to sign through ssh-agent' -r -F
complete -c warden -n "__fish_warden_using_subcommand revoke" -l config -d 'The configuration (default: the project\'s `agentwarden.toml`, from here upward)' -r -F
complete -c warden -n "__fish_warden_using_subcommand revoke" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand revoke" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand revoke" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand revoke" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand approvals" -l config -d 'The configuration (default: the project\'s `agentwarden.toml`, from here upward): with `[approvals] allowed_signers`, records whose signature does not verify are shown refused' -r -F
complete -c warden -n "__fish_warden_using_subcommand approvals" -l server -d 'Ask the resident service at this socket (`warden serve`) instead of opening the store [default: `AGENTWARDEN_SERVER`, else `[server] socket` in the configuration]' -r -F
complete -c warden -n "__fish_warden_using_subcommand approvals" -l server-timeout-ms -d 'How long to wait for the server\'s answer; past it the command fails as on an unusable store (V-14)' -r
complete -c warden -n "__fish_warden_using_subcommand approvals" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand approvals" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand approvals" -l json -d 'One JSON object'
complete -c warden -n "__fish_warden_using_subcommand approvals" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand approvals" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand release" -l session -d 'The quarantined session (as the deny reason names it)' -r
complete -c warden -n "__fish_warden_using_subcommand release" -l by -d 'Who releases it (recorded in the event)' -r
complete -c warden -n "__fish_warden_using_subcommand release" -l config -d 'The configuration (default: the project\'s `agentwarden.toml`, from here upward)' -r -F
complete -c warden -n "__fish_warden_using_subcommand release" -l key -d 'Sign the record with this SSH key (required when `[approvals] allowed_signers` is set): a private key file, or a public key (`.pub`) to sign through ssh-agent' -r -F
complete -c warden -n "__fish_warden_using_subcommand release" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand release" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand release" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand release" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand init; and not __fish_seen_subcommand_from claude-code codex help" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand init; and not __fish_seen_subcommand_from claude-code codex help" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand init; and not __fish_seen_subcommand_from claude-code codex help" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand init; and not __fish_seen_subcommand_from claude-code codex help" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand init; and not __fish_seen_subcommand_from claude-code codex help" -f -a "claude-code" -d 'Merge Warden\'s hook entries into `.claude/settings.json` (other keys are kept), and add the guard\'s own files to `[guardrails] protected`'
complete -c warden -n "__fish_warden_using_subcommand init; and not __fish_seen_subcommand_from claude-code codex help" -f -a "codex" -d 'Merge Warden\'s hooks into the project\'s `.codex/config.toml` (other keys are kept), trust the project in Codex\'s home, and add the guard\'s own files to `[guardrails] protected`'
complete -c warden -n "__fish_warden_using_subcommand init; and not __fish_seen_subcommand_from claude-code codex help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from claude-code" -l project -d 'The project\'s root directory [default: the nearest directory, from here upward, with an `agentwarden.toml` (N-1), else this one]' -r -F
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from claude-code" -l warden -d 'The `warden` binary the hook runs (default: this one)' -r -F
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from claude-code" -l timeout -d 'Claude Code\'s timeout for each hook call, in seconds: at least the lock wait (`--lock-timeout-ms`) plus 3 s' -r
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from claude-code" -l managed -d 'Write the hooks with `allowManagedHooksOnly` to FILE, a managed-settings drop-in for an administrator to install (e.g. in `/etc/claude-code/managed-settings.d/`), instead of merging them into `.claude/settings.json`' -r -F
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from claude-code" -l server -d 'Install the thin client of the resident service at this socket (`warden serve`) instead of the direct hook: it opens no store, and exits 2 when the server does not answer (V-10)' -r -F
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from claude-code" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from claude-code" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from claude-code" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from claude-code" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from codex" -l project -d 'The project\'s root directory [default: the nearest directory, from here upward, with an `agentwarden.toml` (N-1), else this one]' -r -F
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from codex" -l warden -d 'The `warden` binary the hook runs (default: this one)' -r -F
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from codex" -l timeout -d 'Codex\'s timeout for each hook call, in seconds: at least the lock wait (`--lock-timeout-ms`) plus 3 s' -r
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from codex" -l managed -d 'Write the hooks with `allow_managed_hooks_only` to FILE, for an administrator to install as `/etc/codex/requirements.toml`, instead of the project\'s configuration' -r -F
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from codex" -l server -d 'Install the thin client of the resident service at this socket (`warden serve`)' -r -F
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from codex" -l codex-home -d 'Codex\'s home, where the project is trusted [default: `$CODEX_HOME`, else `~/.codex`]' -r -F
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from codex" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from codex" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from codex" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from codex" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from help" -f -a "claude-code" -d 'Merge Warden\'s hook entries into `.claude/settings.json` (other keys are kept), and add the guard\'s own files to `[guardrails] protected`'
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from help" -f -a "codex" -d 'Merge Warden\'s hooks into the project\'s `.codex/config.toml` (other keys are kept), trust the project in Codex\'s home, and add the guard\'s own files to `[guardrails] protected`'
complete -c warden -n "__fish_warden_using_subcommand init; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand doctor" -l project -d 'The project\'s root directory [default: the nearest directory, from here upward, with an `agentwarden.toml` (N-1), else this one]' -r -F
complete -c warden -n "__fish_warden_using_subcommand doctor" -l config -d 'The configuration (default: `agentwarden.toml` in the project)' -r -F
complete -c warden -n "__fish_warden_using_subcommand doctor" -l managed -d 'A managed-settings file to read instead of `/etc/claude-code/managed-settings.json` and `/etc/claude-code/managed-settings.d/*.json` (repeatable, in merge order)' -r -F
complete -c warden -n "__fish_warden_using_subcommand doctor" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand doctor" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand doctor" -l json -d 'Print the checks as one JSON object'
complete -c warden -n "__fish_warden_using_subcommand doctor" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand serve" -l socket -d 'The socket to listen on [default: `[server] socket` in the configuration]' -r -F
complete -c warden -n "__fish_warden_using_subcommand serve" -l config -d 'The configuration the server decides with (default: `agentwarden.toml` in the working directory, if present); read again for every request' -r -F
complete -c warden -n "__fish_warden_using_subcommand serve" -l request-timeout-ms -d 'The longest a request may take, from its first byte to its answer' -r
complete -c warden -n "__fish_warden_using_subcommand serve" -l read-timeout-ms -d 'How long a connection may take to send a complete request, from its accept or from its previous answer; past it the server answers `request_timeout` and closes it (V-51)' -r
complete -c warden -n "__fish_warden_using_subcommand serve" -l max-connections -d 'How many connections are open at once; when all are, a newcomer takes the place of one waiting on its client, and is refused only when all are working on a request (V-51)' -r
complete -c warden -n "__fish_warden_using_subcommand serve" -l max-connections-per-peer -d 'How many connections one peer (uid, pid) may hold at once; one more is refused (V-51)' -r
complete -c warden -n "__fish_warden_using_subcommand serve" -l socket-mode -d 'The socket\'s permission bits, in octal (V-11): 600 lets only the server\'s own user connect; for a server running as its own user, 666 in a directory whose permissions admit the agent\'s user (or its group)' -r
complete -c warden -n "__fish_warden_using_subcommand serve" -l drain-timeout-ms -d 'How long SIGTERM waits for the requests in flight' -r
complete -c warden -n "__fish_warden_using_subcommand serve" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand serve" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand serve" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand serve" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand status" -l server -d 'The server\'s socket [default: `AGENTWARDEN_SERVER`, else `[server] socket` in the configuration]' -r -F
complete -c warden -n "__fish_warden_using_subcommand status" -l config -d 'The configuration naming the socket (default: `agentwarden.toml` in the working directory, if present)' -r -F
complete -c warden -n "__fish_warden_using_subcommand status" -l timeout-ms -d 'How long to wait for the answer' -r
complete -c warden -n "__fish_warden_using_subcommand status" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand status" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand status" -l json -d 'One JSON object'
complete -c warden -n "__fish_warden_using_subcommand status" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand status" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand completions" -l store -d 'The event store: the embedded store\'s directory, or a `postgres://` URL for the fleet store [default: `[store] url` in agentwarden.toml, else .agentwarden/audit in the project\'s root: the nearest directory upward with an agentwarden.toml]' -r
complete -c warden -n "__fish_warden_using_subcommand completions" -l lock-timeout-ms -d 'How long to wait for another process to release the store, in milliseconds' -r
complete -c warden -n "__fish_warden_using_subcommand completions" -l fsync -d 'Also fsync the log file on every commit (survives a machine crash, not only a process crash)'
complete -c warden -n "__fish_warden_using_subcommand completions" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "gate" -d 'May this persona inject these subagents? Exit 0 allow, 1 deny, 2 usage'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "lineage" -d 'Check agent lineages against the manifests. Exit 0 allow, 1 deny, 2 usage'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "authorize" -d 'May this agent, with this lineage, use this tool? Exit 0 allow, 1 deny, 2 usage'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "fanout" -d 'Fan-out / fan-in: plan, run and merge parallel chunk agents'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "guard" -d 'Protected-path integrity: snapshot, check, revert. Exit 0 clean, 1 violation, 2 usage'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "result" -d 'Validate agent results. Exit 0 valid, 1 invalid, 2 usage'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "audit" -d 'Read, verify and export the audit log'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "hook" -d 'The Claude Code hook: reads one hook event on stdin and answers in Claude Code\'s protocol. Exit 0 (with a deny or block on stdout when refused); 2 when it cannot decide'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "seal" -d 'Seal the context: record the digest of every file decisions depend on (or --show the seal in force). Refused inside a Claude Code session'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "approve" -d 'Approve the pipeline run under a reference (recorded). Refused inside a Claude Code session'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "revoke" -d 'Withdraw an approval, or every approval and the seal (recorded). Refused inside a Claude Code session'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "approvals" -d 'List the recorded approvals with their state, and the seal'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "release" -d 'Lift a Claude Code session\'s quarantine after checking the workspace (recorded). Refused inside a Claude Code session'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "init" -d 'Set up a harness: `warden init claude-code` merges Warden\'s hooks into `.claude/settings.json` (or writes a managed-settings drop-in) and adds the guard\'s own files to its protected paths'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "doctor" -d 'Check the Claude Code setup (and run the installed hook on a canary spawn), the persona and agent files, the manifests, the store, the seal and the approvals; say what to fix. Exit 0 when all is well, 1 otherwise'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "serve" -d 'The resident service: hold the store open and answer `warden hook`, the decision commands and `warden status` over a Unix domain socket (`docs/server-protocol.md`). SIGTERM drains and exits 0'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "status" -d 'Whether the resident service answers: its store\'s head, uptime, requests served and its span export\'s counts (V-61). Exit 0 when it answers, 1 when it does not'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "completions" -d 'Print the shell completion script for bash, zsh or fish (generated from this command line\'s definition)'
complete -c warden -n "__fish_warden_using_subcommand help; and not __fish_seen_subcommand_from gate lineage authorize fanout guard result audit hook seal approve revoke approvals release init doctor serve status completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from lineage" -f -a "check" -d 'May this chain of agents exist? The file holds a JSON array of `{id, type, spawn_depth}` from the root to the newest child, or `{"lineage": [...], "session"?}`'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from fanout" -f -a "plan" -d 'Validate the work items and print the plan (chunks, or the single-agent reason)'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from fanout" -f -a "run" -d 'Plan, run CMD once per chunk (its chunk as JSON on stdin, its result JSON on stdout), and print the merged report'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from fanout" -f -a "merge" -d 'Merge chunk result files (each a chunk\'s result JSON, in chunk order)'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from guard" -f -a "snapshot" -d 'Record a manifest of the protected paths (path, kind, mode, BLAKE3) to a file'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from guard" -f -a "run" -d 'Snapshot (with content), run the agent command, check and revert from that content (no git needed), validate result.json if given, and fail the item (exit 1) if the command failed, anything protected was touched, or the result is invalid'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from guard" -f -a "check" -d 'Compare the protected paths with a snapshot; on a change, write violation.json, record a guardrail_violation event, and (with --revert) put them back'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from result" -f -a "validate" -d 'Check a result.json against the strict schema (R-4) and record the verdict'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "log" -d 'List events: a table, or one JSON object per line with --json. Filters combine (AND)'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "explain" -d 'Explain one event in plain words, after verifying the chain up to it'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "replay" -d 'Rebuild a projection from the verified log and print it'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "timeline" -d 'What happened in one session, in order'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "show" -d 'Show one event in full'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "verify" -d 'Check the hash chain (and a checkpoint): exit 0 if intact, 1 with the first broken seq'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "checkpoint" -d 'Print the head as `{"seq": N, "head_hash": "…"}`, to keep outside the log'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "export" -d 'Write the whole log for other tools'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "stats" -d 'Count events by type and by decision'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "copy" -d 'Copy the log to another store (a directory or a postgres:// URL), verifying the chain; the destination must be empty or a prefix of the source (then the rest is copied)'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "report" -d 'Write one self-contained HTML page (no network, opens from disk) for a session or a time window: the chain\'s verification, the spawn tree, the decisions, the approvals and seals, the protected-path violations'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "note" -d 'Append an operator\'s note to the log'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from init" -f -a "claude-code" -d 'Merge Warden\'s hook entries into `.claude/settings.json` (other keys are kept), and add the guard\'s own files to `[guardrails] protected`'
complete -c warden -n "__fish_warden_using_subcommand help; and __fish_seen_subcommand_from init" -f -a "codex" -d 'Merge Warden\'s hooks into the project\'s `.codex/config.toml` (other keys are kept), trust the project in Codex\'s home, and add the guard\'s own files to `[guardrails] protected`'
