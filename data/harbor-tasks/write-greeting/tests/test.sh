#!/bin/bash
# Harbor verifier writing reward.json (Harbor reads it before reward.txt).
if [ "$(cat /app/greeting.txt 2>/dev/null)" = "hello, harbor" ]; then
  echo '{"reward": 1.0}' > /logs/verifier/reward.json
else
  echo '{"reward": 0.0}' > /logs/verifier/reward.json
fi
