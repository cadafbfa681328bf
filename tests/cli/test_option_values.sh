#!/usr/bin/env bash
# Every option that each command's --help lists, given as the last argument with nothing after it:
# a usage error (exit 64; "option X needs a value" for those --help shows with a value), never a
# crash; and those with a value given an empty one (--opt= or --opt ""): exit 64 before any work. `infer8 synth --seed` read the missing value through a NULL pointer until session 44.
. "$SRC/tests/lib/common.sh"
commands=$("$INFER8" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { f = 0 }')
[ "$(echo "$commands" | wc -w)" -ge 10 ] || fail "infer8 --help lists too few commands: $commands"
tested=0 valued=0
for c in $commands; do
  help=$("$INFER8" "$c" --help) || fail "infer8 $c --help failed"
  # options shown with an upper-case value (--seed N, -o DIR) take one
  with_value=$(echo "$help" | grep -oE -- '(-o|--[a-z0-9-]+) [A-Z][A-Z0-9_]*' | cut -d' ' -f1 | sort -u || true)
  for o in $(echo "$help" | grep -oE -- '(^|[^a-z0-9-])(-o|--[a-z0-9-]+)' | grep -oE -- '(-o|--[a-z0-9-]+)' | sort -u || true); do
    [ "$o" = --help ] && continue
    rc=0
    (cd "$WORK" && "$INFER8" "$c" "$o") >"$WORK/out.txt" 2>"$WORK/err.txt" || rc=$?
    [ "$rc" -eq 64 ] || fail "infer8 $c $o: exit $rc, not 64: $(head -c 300 "$WORK/err.txt")"
    tested=$((tested + 1))
    if grep -qx -- "$o" <<<"$with_value"; then
      grep -qF -- "option $o needs a value" "$WORK/err.txt" ||
        fail "infer8 $c $o: no 'needs a value' message: $(head -c 300 "$WORK/err.txt")"
      valued=$((valued + 1))
      # an empty value, either way it can be written, is named as such before any work
      for form in equals separate; do
        rc=0
        if [ $form = equals ]; then set -- "$o="; else set -- "$o" ""; fi
        (cd "$WORK" && "$INFER8" "$c" "$@") >"$WORK/out.txt" 2>"$WORK/err.txt" || rc=$?
        [ "$rc" -eq 64 ] && grep -qF -- "option $o needs a value, got an empty one" "$WORK/err.txt" ||
          fail "infer8 $c $o with an empty value ($form): exit $rc: $(head -c 300 "$WORK/err.txt")"
      done
    fi
  done
done
[ -z "$(ls -A "$WORK" | grep -v -e '^out.txt$' -e '^err.txt$')" ] || fail "a usage error wrote files: $(ls "$WORK")"
[ "$tested" -ge 100 ] && [ "$valued" -ge 60 ] || fail "only $tested options ($valued with a value) found in the --help texts"
echo "ok: $tested options of $(echo "$commands" | wc -w) commands without their value: exit 64, $valued named as needing one"
