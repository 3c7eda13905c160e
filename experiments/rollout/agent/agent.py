#!/usr/bin/env python3
"""sandbench's built-in minimal agent (stdlib only, Python >= 3.11).

A Chat Completions tool loop against a model endpoint: the prompt goes in as the user message, the
one tool is `bash` (runs a command in the current directory, the workspace, with a timeout), and
the loop ends at the first reply without tool calls (the final text) or after --max-turns model
requests. After every step the native trajectory is rewritten (atomically) in mini-swe-agent's
trajectory format (trajectory_format mini-swe-agent-1.1), which sandbench's replay parser reads;
info.sandbench names this agent, since info.mini_version only names the format's release.

  python3 agent.py --base-url URL --prompt-file FILE --trajectory FILE [--max-turns N]
                   [--tool-timeout SECONDS] [--model NAME] [--request-timeout SECONDS]
                   [--resume-from HISTORY.json]   (continue a replayed prefix, issue 19)

URL is the model service's base (route prefix included: http://127.0.0.1:PORT/t/<task>/a/<attempt>);
the agent appends /v1/chat/completions. Exit status (experiments/rollout/task-contract.ts
BUILTIN_AGENT_EXIT): 0 final reply; 3 model error (HTTP error status, connection refused or lost,
a reply that is not a completion), with one stderr line `SANDBENCH_AGENT_ERROR model_<kind>: ...`;
4 max turns without a final reply; 2 bad arguments or an internal error of the agent itself.
"""
import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse

AGENT_NAME = "sandbench-builtin-agent"
AGENT_VERSION = "1"
TRAJECTORY_FORMAT = "mini-swe-agent-1.1"
# The mini-swe-agent release whose trajectory shape this file follows (the replay parser's pin).
FORMAT_MINI_VERSION = "2.4.6"
EXIT_DONE, EXIT_AGENT, EXIT_MODEL, EXIT_MAX_TURNS = 0, 2, 3, 4
OUTPUT_LIMIT = 10000

SYSTEM_PROMPT = (
    "You are an autonomous software engineer working in a repository (the current directory). "
    "Use the bash tool to inspect and change files and to run the tests. "
    "When the task is done, reply with a short summary and no tool call."
)
BASH_TOOL = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a bash command in the workspace; returns its exit code and combined output.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string", "description": "The command line, run with bash -c."}},
            "required": ["command"],
        },
    },
}
# Keep tools from leaving bytecode caches or index refreshes in the candidate; no pager can block.
TOOL_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat", "PAGER": "cat", "TERM": "dumb"}


class ModelError(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class Endpoint:
    """One keep-alive HTTP connection to the model service; a stale reused connection is retried once."""

    def __init__(self, base_url, timeout):
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme != "http" or not parsed.hostname:
            raise ValueError("--base-url must be http://HOST:PORT[/prefix], got %r" % base_url)
        self.host = parsed.hostname
        self.port = parsed.port or 80
        self.path = parsed.path.rstrip("/") + "/v1/chat/completions"
        self.timeout = timeout
        self.conn = None

    def post(self, body):
        data = json.dumps(body).encode("utf-8")
        for attempt in (0, 1):
            reused = self.conn is not None
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                self.conn.request("POST", self.path, body=data, headers={"Content-Type": "application/json", "Authorization": "Bearer sandbench-offline-key"})
                response = self.conn.getresponse()
                payload = response.read()
                return response.status, payload
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as error:
                self.close()
                if reused and attempt == 0:
                    continue  # the server closed an idle keep-alive connection: one fresh try
                raise ModelError("connection", "connection to %s:%d lost: %s" % (self.host, self.port, error))
            except (ConnectionRefusedError, FileNotFoundError) as error:
                self.close()
                raise ModelError("connection", "cannot connect to %s:%d: %s" % (self.host, self.port, error))
            except TimeoutError:
                self.close()
                raise ModelError("timeout", "no reply from %s:%d within %.0f s" % (self.host, self.port, self.timeout))
            except OSError as error:
                self.close()
                raise ModelError("connection", "connection to %s:%d failed: %s" % (self.host, self.port, error))
        raise ModelError("connection", "connection to %s:%d lost twice" % (self.host, self.port))

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class Trajectory:
    def __init__(self, path, args, cwd):
        self.path = path
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.messages = []
        self.info = {
            "mini_version": FORMAT_MINI_VERSION,
            "exit_status": "Running",
            "submission": "",
            "model_stats": {"instance_cost": 0, "api_calls": 0},
            "config": {
                "agent": {"step_limit": args.max_turns, "cost_limit": 0},
                "model": {"model_name": args.model, "model_kwargs": {}},
                "environment": {"cwd": cwd, "timeout": args.tool_timeout, "env": TOOL_ENV},
                "agent_type": "sandbench.builtin_agent",
                "model_type": "chat-completions",
                "environment_type": "local-bash",
            },
            "sandbench": {
                "agent": AGENT_NAME,
                "agent_version": AGENT_VERSION,
                "format": "mini-swe-agent trajectory (info.mini_version names the format's release, not this agent)",
                "turns": 0,
                "model_ms": 0.0,
                "tool_ms": 0.0,
                "error": None,
            },
        }

    def add(self, message):
        self.messages.append(message)
        self.write()

    def write(self):
        document = {"trajectory_format": TRAJECTORY_FORMAT, "info": self.info, "messages": self.messages}
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=1)
            handle.write("\n")
        os.replace(tmp, self.path)


def clip(text):
    if len(text) <= OUTPUT_LIMIT:
        return text
    half = OUTPUT_LIMIT // 2
    return text[:half] + "\n[... %d characters elided ...]\n" % (len(text) - OUTPUT_LIMIT) + text[-half:]


RUNNING = {"proc": None}


def run_bash(command, cwd, timeout):
    """(returncode or None on timeout, output, timed_out, milliseconds)."""
    started = time.monotonic()
    proc = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, **TOOL_ENV},
        start_new_session=True,
    )
    RUNNING["proc"] = proc
    try:
        out, _ = proc.communicate(timeout=timeout)
        code, timed_out = proc.returncode, False
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, _ = proc.communicate()
        code, timed_out = None, True
    finally:
        RUNNING["proc"] = None
    text = out.decode("utf-8", errors="replace")
    if timed_out:
        text += "\n[command timed out after %g s and was killed]" % timeout
    return code, clip(text), timed_out, (time.monotonic() - started) * 1000


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def parse_completion(status, payload):
    if status != 200:
        try:
            message = json.loads(payload)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = payload[:200].decode("utf-8", errors="replace")
        raise ModelError("http_%d" % status, "HTTP %d: %s" % (status, message))
    try:
        message = json.loads(payload)["choices"][0]["message"]
        if not isinstance(message, dict):
            raise TypeError("message is not an object")
    except (ValueError, KeyError, IndexError, TypeError) as error:
        raise ModelError("bad_reply", "the reply is not a chat completion (%s)" % error)
    return message


def command_of(call):
    function = call.get("function") or {}
    if function.get("name") != "bash":
        return None, "error: unknown tool %r (the only tool is bash)" % function.get("name")
    try:
        arguments = json.loads(function.get("arguments") or "{}")
    except ValueError:
        return None, "error: the tool arguments are not JSON"
    command = arguments.get("command") if isinstance(arguments, dict) else None
    if not isinstance(command, str):
        return None, "error: bash needs a string `command` argument"
    return command, None


def loop(args, trajectory, endpoint, cwd):
    with open(args.prompt_file, encoding="utf-8") as handle:
        prompt = handle.read()
    wire = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}]
    trajectory.add({"role": "system", "content": SYSTEM_PROMPT, "extra": {"timestamp": time.time()}})
    trajectory.add({"role": "user", "content": prompt, "extra": {"timestamp": time.time()}})
    if args.resume_from:
        # a replayed prefix (issue 19): its assistant calls and tool results continue the
        # conversation as if this agent had run them; the next model request is the continuation
        with open(args.resume_from, encoding="utf-8") as handle:
            history = json.load(handle)["messages"]
        for message in history:
            wire.append({k: v for k, v in message.items() if k in ("role", "content", "tool_calls", "tool_call_id")})
            extra = {"timestamp": time.time(), "resumed": True}
            if message.get("role") == "assistant":
                # the trajectory format (and sandbench's replay parser) reads an assistant turn's calls from extra.actions
                calls = [call for call in (message.get("tool_calls") or []) if isinstance(call, dict)]
                extra["actions"] = [{"command": command_of(call)[0] or "", "tool_call_id": call.get("id") or ""} for call in calls]
            trajectory.add({**message, "extra": extra})
    stats = trajectory.info["sandbench"]
    for _ in range(args.max_turns):
        started = time.monotonic()
        status, payload = endpoint.post({"model": args.model, "messages": wire, "tools": [BASH_TOOL], "tool_choice": "auto", "stream": False})
        model_ms = (time.monotonic() - started) * 1000
        stats["model_ms"] += model_ms
        stats["turns"] += 1
        trajectory.info["model_stats"]["api_calls"] += 1
        message = parse_completion(status, payload)
        calls = [call for call in (message.get("tool_calls") or []) if isinstance(call, dict)]
        content = message.get("content") or ""
        actions = []
        for index, call in enumerate(calls):
            call.setdefault("id", "call_%d_%d" % (stats["turns"], index))
            command, _ = command_of(call)
            actions.append({"command": command if command is not None else "", "tool_call_id": call["id"]})
        wire.append({"role": "assistant", "content": content or None, **({"tool_calls": calls} if calls else {})})
        trajectory.add({"role": "assistant", "content": content, "tool_calls": calls, "extra": {"actions": actions, "timestamp": time.time(), "model_ms": round(model_ms, 3)}})
        if not calls:
            trajectory.info["exit_status"] = "Submitted"
            trajectory.info["submission"] = content
            return EXIT_DONE
        for call in calls:
            command, problem = command_of(call)
            if command is None:
                code, output, timed_out, tool_ms = None, problem, False, 0.0
            else:
                code, output, timed_out, tool_ms = run_bash(command, cwd, args.tool_timeout)
            stats["tool_ms"] += tool_ms
            observation = output if code is None else "<returncode>%d</returncode>\n%s" % (code, output)
            wire.append({"role": "tool", "tool_call_id": call["id"], "content": observation})
            trajectory.add(
                {
                    "role": "tool",
                    "tool_call_id": call["id"],
                    "content": observation,
                    "extra": {"returncode": code, "raw_output": output, "timed_out": timed_out, "timestamp": time.time(), "tool_ms": round(tool_ms, 3)},
                }
            )
    trajectory.info["exit_status"] = "LimitsExceeded"
    return EXIT_MAX_TURNS


def main():
    parser = argparse.ArgumentParser(description="sandbench built-in agent")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--prompt-file", required=True)
    parser.add_argument("--trajectory", required=True)
    parser.add_argument("--max-turns", type=int, default=20)
    parser.add_argument("--tool-timeout", type=float, default=30.0)
    parser.add_argument("--model", default="fake-model")
    parser.add_argument("--request-timeout", type=float, default=600.0)
    parser.add_argument("--resume-from", help="JSON {messages: [...]} of chat messages (assistant tool calls, tool results) to continue after the prompt")
    args = parser.parse_args()
    if args.max_turns < 1 or args.tool_timeout <= 0 or args.request_timeout <= 0:
        parser.error("--max-turns must be >= 1 and the timeouts > 0")
    cwd = os.getcwd()
    try:
        endpoint = Endpoint(args.base_url, args.request_timeout)
    except ValueError as error:
        parser.error(str(error))
    trajectory = Trajectory(os.path.abspath(args.trajectory), args, cwd)

    def on_term(signum, _frame):
        proc = RUNNING["proc"]
        if proc is not None:
            kill_group(proc)
        trajectory.info["exit_status"] = "Killed"
        trajectory.info["sandbench"]["error"] = "signal %d" % signum
        trajectory.write()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    code = EXIT_AGENT
    try:
        code = loop(args, trajectory, endpoint, cwd)
    except ModelError as error:
        trajectory.info["exit_status"] = "ModelError"
        trajectory.info["sandbench"]["error"] = "model_%s: %s" % (error.kind, error)
        sys.stderr.write("SANDBENCH_AGENT_ERROR model_%s: %s\n" % (error.kind, str(error).replace("\n", " ")))
        code = EXIT_MODEL
    except Exception as error:  # the agent's own failure, told apart from the model's
        trajectory.info["exit_status"] = "AgentError"
        trajectory.info["sandbench"]["error"] = "%s: %s" % (type(error).__name__, error)
        sys.stderr.write("SANDBENCH_AGENT_ERROR agent: %s: %s\n" % (type(error).__name__, str(error).replace("\n", " ")))
        code = EXIT_AGENT
    finally:
        endpoint.close()
    if code == EXIT_MAX_TURNS:
        sys.stderr.write("SANDBENCH_AGENT_ERROR max_turns: no final reply after %d model requests\n" % args.max_turns)
    try:
        trajectory.add({"role": "exit", "content": trajectory.info["exit_status"], "extra": {"exit_status": trajectory.info["exit_status"], "submission": trajectory.info["submission"]}})
    except OSError as error:
        sys.stderr.write("SANDBENCH_AGENT_ERROR agent: cannot write the trajectory %s: %s\n" % (trajectory.path, error))
        return EXIT_AGENT
    return code


if __name__ == "__main__":
    sys.exit(main())
