#!/usr/bin/env bash
# Northvale Power's outage line, end to end and offline (examples/outage_line/README.md):
#   1. check the five scenario files;
#   2. start the local judge stand-in (evalkit's OpenAI-compatible test server, local_judge.py) unless
#      OUTAGE_LINE_JUDGE=none, in which case judged criteria are reported unscored with the reason;
#   3. run one cell: the outage-line agent (a plug-in) and the scripted caller, text modality, one trial each;
#   4. print each conversation's success metrics; exit 1 if any criterion failed.
# Everything it writes goes to $OUTAGE_LINE_OUT (default: a new temporary folder), printed at the end.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
OUT="${OUTAGE_LINE_OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
# the plug-in modules (outage_line.agent, outage_line.backend) and, for the judge stand-in, the repository's tests/
export PYTHONPATH="$HERE:$REPO${PYTHONPATH:+:$PYTHONPATH}"

echo "== check the scenario files"
python -m evalkit.scenarios check --plugin outage_line.backend "$HERE/scenarios"

judge=(judge=none)
summary_flags=(--unscored-judge)
if [ "${OUTAGE_LINE_JUDGE:-local}" != none ]; then
    echo "== start the local judge stand-in"
    python "$HERE/local_judge.py" >"$OUT/judge.log" 2>&1 &
    judge_pid=$!
    trap 'kill "$judge_pid" 2>/dev/null || true' EXIT
    for _ in $(seq 100); do
        grep -q '^ready ' "$OUT/judge.log" 2>/dev/null && break
        kill -0 "$judge_pid" 2>/dev/null || { cat "$OUT/judge.log" >&2; exit 1; }
        sleep 0.1
    done
    url="$(sed -n 's/^ready //p' "$OUT/judge.log")"
    [ -n "$url" ] || { echo "the judge stand-in did not start" >&2; exit 1; }
    judge=(judge=openai_compatible "judge.base_url=$url" judge.model=outage-line-stand-in judge.api_key_env=null
        "judge.cache_dir=$OUT/judge_cache" judge.max_retries=0)
    summary_flags=()
fi

echo "== run the outage line's scenarios"
cd "$OUT"
python -m evalkit "hydra.searchpath=[file://$HERE/conf]" agent=outage_line domain=outage_line modality=text \
    trials=1 twins=false progress=false "metrics=[task_completion,tool_call_validity]" "${judge[@]}" \
    "mlflow.tracking_uri=sqlite:///$OUT/mlflow.db" "hydra.run.dir=$OUT/run"

echo "== success metrics"
python "$HERE/summary.py" "$OUT/run" "${summary_flags[@]}"
echo "outputs: $OUT (MLflow: mlflow ui --backend-store-uri sqlite:///$OUT/mlflow.db)"
