#!/usr/bin/env bash
# The interpreter that runs the conformance bots (tests/conformance/bots.py, tests/test_conformance_pipecat.py):
# a virtualenv of its own holding pyproject's `conformance` extra (pipecat-ai with its WebSocket transport and
# Silero VAD). It sees this environment's packages (--system-site-packages: evalkit's eSpeak NG, numpy, uvicorn),
# and its own pins shadow them there only: pipecat pins soxr~=1.0 where evalkit's audiomentations wants soxr<1, so
# the two cannot share one environment.
#
#   scripts/conformance_env.sh            # makes ${XDG_CACHE_HOME:-~/.cache}/evalkit/conformance-venv
#   EVALKIT_CONFORMANCE_PYTHON=/path/to/python pytest tests/test_conformance_pipecat.py   # or any other one
#
# Runs offline once installed: Silero's ONNX model ships inside the pipecat wheel. Also installs aimock (npm) for
# tests/test_conformance_aimock.py, under ${XDG_CACHE_HOME:-~/.cache}/evalkit/conformance-npm.
set -euo pipefail
cd "$(dirname "$0")/.."
# EVALKIT_CONFORMANCE_DIR: where both go (the tests look there too); default ${XDG_CACHE_HOME:-~/.cache}/evalkit
base="${EVALKIT_CONFORMANCE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/evalkit}"
venv="$base/conformance-venv"
mapfile -t requirements < <(python -c '
import tomllib
for requirement in tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["conformance"]:
    print(requirement)
')
if [ ! -x "$venv/bin/python" ]; then python -m venv --system-site-packages "$venv"; fi
"$venv/bin/python" -m pip install --quiet "${requirements[@]}"
"$venv/bin/python" -c 'import pipecat.serializers.twilio, pipecat.transports.websocket.fastapi, pipecat.audio.vad.silero'
echo "conformance interpreter: $venv/bin/python"

# tests/test_conformance_aimock.py: CopilotKit's aimock (MIT), an OpenAI Realtime-protocol mock server, with npm.
npm_prefix="$base/conformance-npm"
if command -v npm >/dev/null; then
  npm install --silent --no-audit --no-fund --prefix "$npm_prefix" @copilotkit/aimock@1.43.0
  echo "aimock: $npm_prefix/node_modules/@copilotkit/aimock"
else
  echo "npm not found: tests/test_conformance_aimock.py will be skipped"
fi
