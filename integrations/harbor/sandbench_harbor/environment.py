"""Harbor's environment-provider interface (harbor 0.25.0, harbor/environments/base.py) on a sandbench backend.

    HARBOR_TELEMETRY=0 harbor run -p TASK_DIR -a oracle \
        -e sandbench_harbor:SandbenchEnvironment --ek backend=staged

Each trial starts one bridge process (integrations/harbor/bridge.ts, run from the sandbench checkout
with Node and tsx) that keeps one sandbox of the chosen backend alive for the trial and forwards
exec, upload and download to a server inside it; stop tears the sandbox down. The bridge journals
every operation's host-clock latency and the sandbox's PSS to ``<trial dir>/sandbench-journal.jsonl``
(start, each exec, each copy, teardown: what Harbor's own result.json does not record).

Options (``--ek key=value``): ``backend`` (host, staged, podman, docker, ... as ``sandbench doctor``
lists them; default staged), ``sandbench_root`` (the checkout; default this file's), ``node``.
"""
import asyncio
import base64
import io
import json
import os
import tarfile
from pathlib import Path

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.environments.capabilities import EnvironmentCapabilities

SANDBENCH_ROOT = Path(__file__).resolve().parents[3]
BRIDGE = Path("integrations", "harbor", "bridge.ts")
JOURNAL = "sandbench-journal.jsonl"
# One answer can carry a whole downloaded directory as base64: lift asyncio's 64 KiB line limit.
LINE_LIMIT = 256 * 1024 * 1024


class SandbenchError(RuntimeError):
    """The bridge or the sandbox failed (an infrastructure failure, never the task's)."""


class SandbenchEnvironment(BaseEnvironment):
    def __init__(self, *args, backend: str = "staged", sandbench_root: str | None = None, node: str = "node", **kwargs):
        self._backend = backend
        self._root = Path(sandbench_root) if sandbench_root else SANDBENCH_ROOT
        self._node = node
        self._bridge: asyncio.subprocess.Process | None = None
        self._lock = asyncio.Lock()
        super().__init__(*args, **kwargs)

    @staticmethod
    def type() -> str:
        return "sandbench"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        # Every sandbench sandbox has no network but the harness's own service socket.
        return EnvironmentCapabilities(disable_internet=True)

    def _validate_definition(self):
        dockerfile = Path(self.environment_dir) / "Dockerfile"
        if not dockerfile.is_file():
            raise FileNotFoundError(f"{dockerfile} is missing: sandbench builds a task's environment from environment/Dockerfile (FROM sandbench-task; docs/harbor.md)")

    @property
    def _task_dir(self) -> Path:
        return Path(self.environment_dir).resolve().parent

    @property
    def journal_path(self) -> Path:
        return Path(self.trial_paths.trial_dir) / JOURNAL

    async def _call(self, request: dict) -> dict:
        if self._bridge is None or self._bridge.stdin is None or self._bridge.stdout is None:
            raise SandbenchError("the sandbench environment is not started")
        async with self._lock:
            self._bridge.stdin.write((json.dumps(request) + "\n").encode())
            await self._bridge.stdin.drain()
            line = await self._bridge.stdout.readline()
        if not line:
            raise SandbenchError(f"the sandbench bridge ended during {request['op']} (its stderr is in the trial log)")
        answer = json.loads(line)
        if answer.get("error"):
            raise SandbenchError(f"sandbench {request['op']}: {answer['error']}")
        return answer

    async def start(self, force_build: bool) -> None:
        self.journal_path.parent.mkdir(parents=True, exist_ok=True)
        timeout = self.task_env_config.build_timeout_sec
        self._bridge = await asyncio.create_subprocess_exec(
            self._node, "--import", "tsx", str(BRIDGE), "--backend", self._backend, "--task", str(self._task_dir), "--journal", str(self.journal_path),
            cwd=self._root, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=None, limit=LINE_LIMIT,
        )
        line = await asyncio.wait_for(self._bridge.stdout.readline(), timeout=timeout)
        answer = json.loads(line) if line else {"ok": False, "error": "the bridge ended before the sandbox started"}
        if not answer.get("ok"):
            await self._bridge.wait()
            self._bridge = None
            raise SandbenchError(f"sandbench could not start a {self._backend} sandbox for {self._task_dir}: {answer.get('error')}")

    async def stop(self, delete: bool):
        if self._bridge is None:
            return
        try:
            answer = await self._call({"op": "stop"})
            if answer.get("failures"):
                self.logger.warning(f"sandbench teardown left: {answer['failures']} (sandbench clean removes it)")
        finally:
            try:
                await asyncio.wait_for(self._bridge.wait(), timeout=120)
            except asyncio.TimeoutError:
                self._bridge.terminate()  # the bridge tears its sandbox down on SIGTERM
                await self._bridge.wait()
            self._bridge = None

    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None, timeout_sec: int | None = None, user: str | int | None = None) -> ExecResult:
        # `user` is not honoured: a sandbench sandbox runs as its backend's one sandbox user.
        answer = await self._call({"op": "exec", "command": command, "cwd": cwd, "env": self._merge_env(env) or {}, "timeout": timeout_sec})
        return ExecResult(stdout=base64.b64decode(answer["stdout"]).decode("utf-8", "replace"), stderr=base64.b64decode(answer["stderr"]).decode("utf-8", "replace"), return_code=answer["rc"])

    async def upload_file(self, source_path: Path | str, target_path: str):
        data = Path(source_path).read_bytes()
        await self._call({"op": "put", "path": target_path, "data": base64.b64encode(data).decode()})

    async def upload_dir(self, source_dir: Path | str, target_dir: str):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            archive.add(str(source_dir), arcname=".")
        await self._call({"op": "put", "path": target_dir, "dir": True, "data": base64.b64encode(buffer.getvalue()).decode()})

    async def download_file(self, source_path: str, target_path: Path | str):
        answer = await self._call({"op": "get", "path": source_path})
        target = Path(target_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(answer["data"]))

    async def download_dir(self, source_dir: str, target_dir: Path | str):
        answer = await self._call({"op": "get", "path": source_dir})
        target = Path(target_dir)
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(base64.b64decode(answer["data"])), mode="r:*") as archive:
            archive.extractall(target, filter="data")
