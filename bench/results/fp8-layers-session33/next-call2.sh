#!/usr/bin/env bash
# Prepared in session 33 (the PDL experiment of pdl.patch); its steps ran, regrouped, as session 34's
# bench/results/fp8-layers-session34/call1.sh (on 882bbd4 + pdl.patch). pdl.patch is applied since
# 79fddfd, as a timed whole-graph choice (choose_pdl).
echo "see bench/results/fp8-layers-session34/call1.sh" >&2
exit 1
