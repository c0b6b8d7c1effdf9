#!/bin/sh
# A stand-in for `shardscope` in the GUI's simulation tests, chosen by FAKE_SIMULATOR_MODE: "slow" prints one
# progress line and sleeps (as a long simulation), "crash" prints a message and dies of SIGSEGV, "no-trace"
# prints a JSON result and exits 0 without writing the --trace file it was asked for.
case "${FAKE_SIMULATOR_MODE:-slow}" in
  slow)
    echo "simulating: 10.000 ms of about 1.000 s (1 %), 10 activities" >&2
    exec sleep 600
    ;;
  crash)
    echo "fake simulator: about to crash" >&2
    kill -SEGV $$
    ;;
  no-trace)
    echo "{}"
    exit 0
    ;;
  *)
    echo "fake simulator: unknown FAKE_SIMULATOR_MODE '$FAKE_SIMULATOR_MODE'" >&2
    exit 2
    ;;
esac
