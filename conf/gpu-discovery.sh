#!/usr/bin/env bash
# Spark GPU discovery script: prints the GPUs of this machine as Spark's resource JSON,
#   {"name": "gpu", "addresses": ["0", "1"]}
# Workers (standalone: spark.worker.resource.gpu.discoveryScript) or executors (YARN, Kubernetes:
# spark.executor.resource.gpu.discoveryScript) run it at start-up. The addresses are the CUDA
# device indexes nvidia-smi lists, which is what Arbor's device choice parses.
set -euo pipefail
if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "gpu-discovery.sh: nvidia-smi not found on $(hostname): no NVIDIA driver, so no GPUs to offer" >&2
  exit 1
fi
indexes="$(nvidia-smi --query-gpu=index --format=csv,noheader)"
addresses=""
while read -r i; do
  i="${i//[[:space:]]/}"
  [[ -n "$i" ]] || continue
  [[ "$i" =~ ^[0-9]+$ ]] || { echo "gpu-discovery.sh: nvidia-smi printed '$i', not a GPU index" >&2; exit 1; }
  addresses+="${addresses:+, }\"$i\""
done <<< "$indexes"
echo "{\"name\": \"gpu\", \"addresses\": [$addresses]}"
