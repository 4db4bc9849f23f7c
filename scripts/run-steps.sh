#!/usr/bin/env bash
# Runs every step, whatever became of the one before, then prints a table of steps with pass/fail and time;
# exits 1 if any failed (2 on wrong usage). `make test-prod` uses it: chained with &&, one failed step hid
# every later one (issue 40: the engine's own suite never ran after the console suite failed).
#
#   scripts/run-steps.sh NAME COMMAND [NAME COMMAND]...   each COMMAND runs with bash -c, in this folder
set -uo pipefail

if [ "$#" -eq 0 ] || [ $(($# % 2)) -ne 0 ]; then
  echo "usage: scripts/run-steps.sh NAME COMMAND [NAME COMMAND]..." >&2
  exit 2
fi

names=() results=() times=()
failed=0
while [ "$#" -gt 0 ]; do
  name="$1" command="$2"
  shift 2
  echo "==> $name" >&2
  started=$(date +%s)
  if bash -c "$command"; then result=pass; else result="FAIL ($?)" && failed=1; fi
  seconds=$(($(date +%s) - started))
  echo "<== $name: $result in ${seconds} s" >&2
  names+=("$name") results+=("$result") times+=("$(printf '%d:%02d' $((seconds / 60)) $((seconds % 60)))")
done

{
  echo
  printf '%-60s %-10s %8s\n' step result time
  for i in "${!names[@]}"; do printf '%-60s %-10s %8s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"; done
} >&2
exit "$failed"
