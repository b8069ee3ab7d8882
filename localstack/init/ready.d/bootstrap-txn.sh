#!/usr/bin/env bash
# LocalStack init hook (ready stage): create every declared resource of the stage.
#
# It runs the project's own bootstrap, `python -m ops.bootstrap`, from the repository that
# docker-compose.yml mounts at /opt/txn, so LocalStack and moto are built from one rendering of
# the one declaration. It needs only boto3, which LocalStack's own Python environment has.
set -euo pipefail

repo="${TXN_REPO:-/opt/txn}"
python="${TXN_PYTHON:-}"
if [[ -z "$python" ]]; then
  for candidate in /opt/code/localstack/.venv/bin/python python3 python; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import boto3' >/dev/null 2>&1; then
      python="$candidate"
      break
    fi
  done
fi
if [[ -z "$python" ]]; then
  echo "txn bootstrap: no Python with boto3 found; set TXN_PYTHON" >&2
  exit 1
fi

export AWS_ENDPOINT_URL="${AWS_ENDPOINT_URL:-http://localhost:4566}"
export AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-us-east-1}"
export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-test}"
export AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-test}"
export PYTHONDONTWRITEBYTECODE=1  # the repository is mounted read-only

cd "$repo"
exec "$python" -m ops.bootstrap --stage "${STAGE:-dev}"
