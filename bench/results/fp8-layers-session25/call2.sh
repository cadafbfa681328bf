#!/usr/bin/env bash
# Session 25, call 2: session 24's prepared next-call2.sh, run as it stands (its header says what it
# tests and times), on e91c9b9 with weights-resident.patch and narrow128.patch applied:
#   git apply bench/results/fp8-layers-session24/weights-resident.patch &&
#   git apply bench/results/fp8-layers-session24/narrow128.patch && tools/prepare-device
exec "$(dirname "$0")/../fp8-layers-session24/next-call2.sh" "$@"
