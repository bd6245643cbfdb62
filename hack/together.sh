#!/usr/bin/env bash
# together.sh 'CMD1' 'CMD2' ...: runs the commands at once, each with its
# own log, prints each log whole (prefixed with its command's number) once
# all have ended, and exits 1 when any exited other than 0. make ci runs
# the cluster checks, which mostly wait on controllers, beside the offline
# ones, which mostly compute (docs/performance.md).
set -uo pipefail
[ "$#" -ge 1 ] || { echo "usage: hack/together.sh 'CMD' ..." >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pids=()
for i in $(seq 1 $#); do
  cmd=${!i}
  ( SECONDS=0; bash -c "$cmd"; rc=$?; echo "together: [$i] exit $rc after ${SECONDS}s: $cmd"; exit $rc ) > "$tmp/$i.log" 2>&1 &
  pids+=($!)
done
fail=0
for i in $(seq 1 $#); do
  wait "${pids[$((i-1))]}" || fail=1
  sed "s/^/[$i] /" "$tmp/$i.log"
done
exit $fail
