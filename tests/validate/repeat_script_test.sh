#!/usr/bin/env bash
# scripts/validate-cpu-repeat.sh's refusals, without MPI: a usage error for a missing or non-whole RUNS, and a
# loop that fails (here: no tools in BUILD) ends the repeat with its run's log named and exit status 1.
set -u
root=$1
script=$root/scripts/validate-cpu-repeat.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for args in "" "0 $out/a" "two $out/a" "3"; do
  # shellcheck disable=SC2086
  msg=$("$script" $args 2>&1) && fail "accepted '$args'"
  status=$?
  [ "$status" = 2 ] || fail "'$args' exited $status, expected 2"
  case $msg in *"usage: scripts/validate-cpu-repeat.sh RUNS OUT_DIR"*) ;; *) fail "'$args' said: $msg" ;; esac
done
msg=$(BUILD="$out/no-build" "$script" 1 "$out/runs" 2>&1) && fail "a failing loop was accepted"
status=$?
[ "$status" = 1 ] || fail "a failing loop exited $status, expected 1"
case $msg in *"run 01 failed; its log: $out/runs/run-01.log"*) ;; *) fail "a failing loop said: $msg" ;; esac
grep -q "is missing" "$out/runs/run-01.log" || fail "the run's log does not say why"
echo "validate-cpu-repeat.sh: usage errors and a failing run are refused"
