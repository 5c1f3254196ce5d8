# lib.sh: what every tests/security script shares (sourced): $os the binary, $work a folder
# removed at exit, expect LABEL CONDITION counting verdicts, and finish printing them.
set -u
fail=0; pass=0
expect() { if eval "$2"; then pass=$((pass+1)); else echo "FAILED: $1"; fail=$((fail+1)); fi; }
finish() { echo "$pass passed, $fail failed"; [ $fail -eq 0 ]; }
os=$OVERLAPSCOPE
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
