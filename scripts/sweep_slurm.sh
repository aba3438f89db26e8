#!/usr/bin/env bash
# A sweep on a SLURM cluster through submitit: each cell is one task of a job array.
#
#   scripts/sweep_slurm.sh PARTITION TRACKING_URI [evalkit overrides...]
#   scripts/sweep_slurm.sh cpu http://tracking-host:5000 +experiment=smoke +perturb=noise_cafe
#
# Needs `pip install -e ".[slurm]"` on the login node and the compute nodes (a shared checkout or environment),
# and a shared MLflow tracking server (docs/cluster.md). Rerunning the same command
# resumes: finished cells are reused by their key, killed ones run again.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 PARTITION TRACKING_URI [evalkit overrides...]" >&2
  exit 2
fi
partition=$1
tracking_uri=$2
shift 2
exec python -m evalkit hydra/launcher=evalkit_slurm "hydra.launcher.partition=${partition}" \
  "mlflow.tracking_uri=${tracking_uri}" "$@" -m
