#!/usr/bin/env bash
# Session 65, call 1 (carry [".devcarry"], kind nvidia-h200; an H100 came, after failed starts):
# session 64's next-call1.sh as it stands (its IRv2 batch-1 peer ran past its 80 s cap and was
# rerun in call 2).
exec bash "$(dirname "$0")/../fp8-layers-session64/next-call1.sh" "$@"
