// A team's own harness on the Claude Agent SDK, governed by Agent Warden (docs/agent-sdk.md).
//
// A manager agent (the main session) delegates to specialist subagents — a planner, which hands
// coding to a coder, which may ask a researcher — defined here in code with the SDK's `agents`
// option. Warden decides by its own sealed files, not by these definitions: each specialist's
// instruction file (`.claude/agents/NAME.md`, `AGENT_TYPE: 2`) and manifest (`manifests.toml`)
// must allow it, so an agent defined only in code is refused at its spawn.
//
// Two ways to wire Warden in, chosen by `--wiring`:
// - `settings` (the default and the one the guide recommends): the hooks `warden init
//   claude-code` wrote into the project's `.claude/settings.json`, which the SDK loads with
//   `settingSources: ['project']`; each runs the installed line, whose tail turns any failure of
//   Warden into a block, and whose `PreToolUse` entry says `"onFailure": "block"`.
// - `code`: the same events as callbacks passed in `hooks`, each running `warden hook` on the
//   event and turning anything but a clean answer into a denial (or, for a stop, a halt), with
//   `onFailure: 'block'` for what the callback itself cannot catch.
//
// Usage: node harness.mjs --project DIR --warden /abs/warden [--wiring settings|code]
//                         [--setting-sources project,user|none] [--prompt TEXT]
//                         [--hook-timeout SECONDS]
// The model endpoint and key come from the environment (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY),
// as for any SDK program. It prints one JSON line per tool result and the final result.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { query } from '@anthropic-ai/claude-agent-sdk';

const { values: args } = parseArgs({
  options: {
    project: { type: 'string' },
    warden: { type: 'string' },
    wiring: { type: 'string', default: 'settings' },
    'setting-sources': { type: 'string', default: 'project' },
    prompt: { type: 'string', default: 'Plan the change and have it implemented.' },
    'hook-timeout': { type: 'string', default: '30' },
  },
});
if (!args.project || !args.warden || !['settings', 'code'].includes(args.wiring)) {
  console.error('usage: node harness.mjs --project DIR --warden /abs/warden [--wiring settings|code]');
  process.exit(64);
}
const project = path.resolve(args.project);

// The specialists. Their names are the instruction files Warden reads; their tools are what
// the SDK offers them (Warden's manifest decides what each may actually use).
const agents = {
  planner: {
    description: 'Breaks a task into steps and hands coding to the coder.',
    prompt: 'You plan. Delegate implementation to the coder subagent.',
    tools: ['Read', 'Grep', 'Glob', 'Agent', 'Bash'],
  },
  coder: {
    description: 'Implements one step under src/.',
    prompt: 'You implement the step you are given, under src/ only.',
    tools: ['Read', 'Grep', 'Edit', 'Write', 'Bash', 'Agent'],
  },
  researcher: {
    description: 'Reads and searches; changes nothing.',
    prompt: 'You answer questions by reading the code.',
    tools: ['Read', 'Grep'],
  },
};

// The events `warden init claude-code` hooks, and what a failure of Warden means at each: a
// denial before a tool call, a halt at a stop (a blocked stop would prompt the model again and
// loop), a block elsewhere (H-57).
const EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'SubagentStart', 'SubagentStop',
  'ConfigChange', 'SessionStart', 'Stop', 'SessionEnd'];
// Seconds the SDK gives a callback; Warden's own deadline is 2 s shorter, so that Warden answers
// (a refusal, `deadline_passed`) before the SDK gives up on it.
const HOOK_TIMEOUT_S = Number(args['hook-timeout']);

// Runs `warden hook` on one event, as the installed line does, and answers in the SDK's terms.
// Exit 0 is Warden's answer (its stdout, if any, is the hook's JSON output); exit 2 is a refusal
// whose reason is on stderr; anything else — a missing binary, a crash, a signal, a deadline —
// is a failure, answered as a refusal too (fail closed).
function wardenHook(input, _toolUseId, { signal }) {
  const wardenArgs = ['--store', path.join(project, '.agentwarden/audit'), '--lock-timeout-ms', '5000',
    'hook', '--config', path.join(project, 'agentwarden.toml'), '--deadline-ms', String((HOOK_TIMEOUT_S - 2) * 1000)];
  if (input.hook_event_name === 'Stop' || input.hook_event_name === 'SubagentStop') {
    wardenArgs.push('--halt-on-failure');
  }
  return new Promise((resolve) => {
    const refuse = (why) => resolve(refusal(input.hook_event_name, why));
    let child;
    try {
      child = spawn(args.warden, wardenArgs, { cwd: project, signal, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (e) {
      refuse(`warden could not start: ${e.message}`);
      return;
    }
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', (e) => refuse(`warden could not run: ${e.message}`));
    child.on('close', (code, sig) => {
      if (code === 0) {
        try {
          resolve(stdout.trim() ? JSON.parse(stdout) : {});
        } catch (e) {
          refuse(`warden answered something other than JSON: ${e.message}`);
        }
      } else if (code === 2) {
        refuse(stderr.trim() || 'warden refused without a reason');
      } else {
        refuse(`warden exited ${code ?? sig}; blocked: ${stderr.trim()}`);
      }
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

function refusal(event, reason) {
  if (event === 'PreToolUse') {
    return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
  }
  if (event === 'Stop' || event === 'SubagentStop') {
    return { continue: false, stopReason: `Agent Warden stopped the session: ${reason}` };
  }
  return { decision: 'block', reason };
}

const hooks = args.wiring === 'code'
  ? Object.fromEntries(EVENTS.map((event) => [event, [{ matcher: '*', hooks: [wardenHook], timeout: HOOK_TIMEOUT_S, onFailure: 'block' }]]))
  : undefined;
const settingSources = args['setting-sources'] === 'none' ? [] : args['setting-sources'].split(',');

const session = query({
  prompt: args.prompt,
  options: {
    cwd: project,
    agents,
    hooks,
    settingSources,
    tools: ['Agent', 'Read', 'Grep', 'Glob', 'Edit', 'Write', 'Bash'],
    allowedTools: ['Agent', 'Read', 'Grep', 'Glob', 'Edit', 'Write', 'Bash'],
    permissionMode: 'acceptEdits',
    env: { ...process.env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1' },
  },
});

for await (const message of session) {
  if (message.type === 'user' && Array.isArray(message.message?.content)) {
    for (const block of message.message.content) {
      if (block.type === 'tool_result') {
        const text = typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
        console.log(JSON.stringify({ tool_result: block.tool_use_id, is_error: !!block.is_error, text }));
      }
    }
  } else if (message.type === 'result') {
    console.log(JSON.stringify({ result: message.subtype, is_error: message.is_error }));
  }
}
