#!/usr/bin/env bash
# A sweep on a running Ray cluster (each cell one Ray task), or on a local Ray instance with ADDRESS=local.
#
#   scripts/sweep_ray.sh ADDRESS TRACKING_URI [evalkit overrides...]
#   scripts/sweep_ray.sh ray://head-node:10001 http://tracking-host:5000 +experiment=smoke +perturb=noise_cafe
#
# Needs `pip install -e ".[ray]"` where the sweep is launched and on the cluster's workers, and a shared MLflow
# tracking server reachable from the workers.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 ADDRESS|local TRACKING_URI [evalkit overrides...]" >&2
  exit 2
fi
address=$1
tracking_uri=$2
shift 2
if [ "$address" = "local" ]; then
  exec python -m evalkit hydra/launcher=ray "mlflow.tracking_uri=${tracking_uri}" "$@" -m
fi
exec python -m evalkit hydra/launcher=ray "hydra.launcher.ray.init.address=${address}" \
  "mlflow.tracking_uri=${tracking_uri}" "$@" -m
