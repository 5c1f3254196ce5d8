#!/usr/bin/env bash
# The record manual speaks to users (issue 19 Must 7): no issue numbers, test scripts or source
# files of ours in place of what they mean, every warning code the collector and record write is
# explained in it, and its text fits 80 columns (`overlapscope help record`).
set -u
here=$(cd "$(dirname "$0")" && pwd); root="$here/../.."
doc="$root/docs/overlapscope-record.md"
fail=0
if grep -nE 'issue [0-9]|tests/|\.cu\b|seed [0-9]|\.c\)|\.c\b' "$doc"; then echo "FAILED: developer references above"; fail=1; fi
# The codes as the collector and record's merge write them (add_warning, insert_warning, the
# competing-profiler codes).
codes=$(grep -rhoE '(add_warning|insert_warning)\(([a-z_]+, [A-Za-z_]+, )?"[a-z-]+"|_CODE "[a-z-]+"' \
    "$root/collector" "$root/record" | grep -oE '"[a-z-]+"' | tr -d '"' | sort -u)
[ "$(wc -w <<<"$codes")" -ge 15 ] || { echo "FAILED: found only these warning codes: $codes"; fail=1; }
warnings=$(sed -n '/^## Warnings/,/^## /p' "$doc")
for code in $codes; do
    grep -qF -- "\`$code\`" <<<"$warnings" || { echo "FAILED: warning $code is not explained in the record manual"; fail=1; }
done
wide=$("$OVERLAPSCOPE" help record | awk 'length > 80' | head -3)
[ -z "$wide" ] || { echo "FAILED: lines over 80 columns: $wide"; fail=1; }
[ $fail -eq 0 ] && echo "record manual: ok ($(wc -w <<<"$codes") warning codes explained)"
exit $fail
