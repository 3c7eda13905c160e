# Sourced (POSIX sh) by run-agent.sh and the replay kind's codex-resume.sh: codex's offline
# configuration, one copy (data/agents/agent-clis.md: a custom Responses provider at the model
# service, no retries, approvals and sandboxing off, analytics, feedback and plugins off).
#   write_codex_config CODEX_HOME BASE_URL   (BASE_URL already carries the model route)
write_codex_config() {
  mkdir -p "$1" || return 1
  cat > "$1/config.toml" << EOF
model = "fake-model"
model_provider = "sandbench"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.sandbench]
name = "sandbench"
base_url = "$2/v1"
wire_api = "responses"
env_key = "SANDBENCH_MODEL_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
EOF
}
