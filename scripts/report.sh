#!/usr/bin/env bash
# The robustness report of a finished experiment (reads MLflow only; never re-runs a conversation).
#
#   scripts/report.sh [TRACKING_URI] [SWEEP] [analysis overrides...]
#   scripts/report.sh                                   # latest sweep in ./mlflow.db
#   scripts/report.sh http://tracking-host:5000 all     # every finished cell on a shared server
#   scripts/report.sh sqlite:///mlflow.db <parent run id> plots=false
#
# Writes analysis/<date>/<time>/ (deltas.csv, pass_at_k.csv, report.md, plots) and logs it as an MLflow run.
set -euo pipefail
tracking_uri=${1:-}
sweep=${2:-latest}
shift $(( $# < 2 ? $# : 2 ))
args=("sweep=${sweep}")
if [ -n "$tracking_uri" ]; then args+=("mlflow.tracking_uri=${tracking_uri}"); fi
exec python -m evalkit.analyze "${args[@]}" "$@"
