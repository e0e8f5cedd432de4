"""A team's own harness on the Claude Agent SDK for Python, governed by Agent Warden.

The same harness as ``../typescript/harness.mjs`` (docs/agent-sdk.md): a manager agent (the
main session) delegates to specialist subagents defined here with the SDK's ``agents`` option.
Warden decides by its own sealed files, not by these definitions: each specialist's instruction
file (``.claude/agents/NAME.md``, ``AGENT_TYPE: 2``) and manifest must allow it, so an agent
defined only in code is refused at its spawn.

``--wiring settings`` (the default) relies on the hooks ``warden init claude-code`` wrote into
the project's ``.claude/settings.json``, loaded with ``setting_sources=["project"]``;
``--wiring code`` passes the same events as callbacks that run ``warden hook`` and turn anything
but a clean answer into a denial (a halt at a stop), with ``on_failure="block"``.

Usage: python3 harness.py --project DIR --warden /abs/warden [--wiring settings|code]
                          [--setting-sources project,user|none] [--prompt TEXT]
                          [--hook-timeout SECONDS]
"""

import argparse
import asyncio
import json
import os
import sys

from claude_agent_sdk import AgentDefinition, ClaudeAgentOptions, HookMatcher, query
from claude_agent_sdk.types import ResultMessage, ToolResultBlock, UserMessage

EVENTS = ["PreToolUse", "PostToolUse", "PostToolUseFailure", "SubagentStart", "SubagentStop",
          "ConfigChange", "SessionStart", "Stop", "SessionEnd"]

AGENTS = {
    "planner": AgentDefinition(
        description="Breaks a task into steps and hands coding to the coder.",
        prompt="You plan. Delegate implementation to the coder subagent.",
        tools=["Read", "Grep", "Glob", "Agent", "Bash"],
    ),
    "coder": AgentDefinition(
        description="Implements one step under src/.",
        prompt="You implement the step you are given, under src/ only.",
        tools=["Read", "Grep", "Edit", "Write", "Bash", "Agent"],
    ),
    "researcher": AgentDefinition(
        description="Reads and searches; changes nothing.",
        prompt="You answer questions by reading the code.",
        tools=["Read", "Grep"],
    ),
}


def refusal(event, reason):
    """What a refusal, or a failure of Warden, answers at `event` (H-57: a halt at a stop)."""
    if event == "PreToolUse":
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": reason}}
    if event in ("Stop", "SubagentStop"):
        return {"continue": False, "stopReason": f"Agent Warden stopped the session: {reason}"}
    return {"decision": "block", "reason": reason}


def warden_hook(project, warden, timeout_s):
    """A hook callback running `warden hook` on the event, as the installed line does; Warden's
    own deadline is 2 s shorter than the SDK's `timeout_s`, so that Warden answers first."""

    async def hook(event, _tool_use_id, _context):
        name = event.get("hook_event_name", "")
        args = ["--store", os.path.join(project, ".agentwarden/audit"), "--lock-timeout-ms", "5000",
                "hook", "--config", os.path.join(project, "agentwarden.toml"),
                "--deadline-ms", str(int((timeout_s - 2) * 1000))]
        if name in ("Stop", "SubagentStop"):
            args.append("--halt-on-failure")
        try:
            child = await asyncio.create_subprocess_exec(
                warden, *args, cwd=project, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            out, err = await child.communicate(json.dumps(event).encode())
        except Exception as e:  # a missing binary, a pipe closed early: fail closed
            return refusal(name, f"warden could not run: {e}")
        stderr = err.decode(errors="replace").strip()
        if child.returncode == 0:
            try:
                return json.loads(out) if out.strip() else {}
            except ValueError as e:
                return refusal(name, f"warden answered something other than JSON: {e}")
        if child.returncode == 2:
            return refusal(name, stderr or "warden refused without a reason")
        return refusal(name, f"warden exited {child.returncode}; blocked: {stderr}")

    return hook


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--project", required=True)
    parser.add_argument("--warden", required=True)
    parser.add_argument("--wiring", choices=["settings", "code"], default="settings")
    parser.add_argument("--setting-sources", default="project")
    parser.add_argument("--prompt", default="Plan the change and have it implemented.")
    parser.add_argument("--hook-timeout", type=float, default=30)
    args = parser.parse_args()
    project = os.path.abspath(args.project)
    hooks = None
    if args.wiring == "code":
        callback = warden_hook(project, args.warden, args.hook_timeout)
        hooks = {event: [HookMatcher(matcher="*", hooks=[callback], timeout=args.hook_timeout, on_failure="block")]
                 for event in EVENTS}
    sources = [] if args.setting_sources == "none" else args.setting_sources.split(",")
    tools = ["Agent", "Read", "Grep", "Glob", "Edit", "Write", "Bash"]
    options = ClaudeAgentOptions(
        cwd=project, agents=AGENTS, hooks=hooks, setting_sources=sources, tools=tools,
        allowed_tools=tools, permission_mode="acceptEdits",
        env={"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
             "DISABLE_AUTOUPDATER": "1"},
    )
    async for message in query(prompt=args.prompt, options=options):
        if isinstance(message, UserMessage) and isinstance(message.content, list):
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    text = block.content if isinstance(block.content, str) else json.dumps(block.content)
                    print(json.dumps({"tool_result": block.tool_use_id, "is_error": bool(block.is_error),
                                      "text": text}), flush=True)
        elif isinstance(message, ResultMessage):
            print(json.dumps({"result": message.subtype, "is_error": message.is_error}), flush=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
