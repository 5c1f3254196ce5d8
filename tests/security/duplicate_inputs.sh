#!/usr/bin/env bash
# The same input twice (issue 33 M3): `merge a.db a.db`, `import x.json x.json`, a hard link, a
# folder and a file in it. Before, each was read twice without a word (ranks listed twice in a
# world of 2); now refused with one line naming both, told by device and inode, not by name.
. "$(dirname "$0")/lib.sh"
K="${OVERLAPSCOPE_TEST_DATA:-$here/../data}/kineto"
cd "$work" || exit 2
cp "$K/sampled_rank-0.json.gz" rank0.json.gz
cp "$K/sampled_rank-1.json.gz" rank1.json.gz
ln rank0.json.gz hard0.json.gz
mkdir ranks && cp rank0.json.gz rank1.json.gz ranks/
# refused NAME FRAGMENT COMMAND...: exit 2, one line holding FRAGMENT, no output file out.db.
refused() {
    local name=$1 fragment=$2; shift 2
    "$os" "$@" >out.txt 2>err.txt; local rc=$?
    expect "$name: exit 2" '[ $rc -eq 2 ]'
    expect "$name: one line naming both" '[ $(wc -l <err.txt) -eq 1 ] && grep -qF -- "$fragment" err.txt'
    expect "$name: nothing written" '[ ! -e out.db ]'
}
refused "import x x" "'rank0.json.gz' is the same file as 'rank0.json.gz'" import rank0.json.gz rank0.json.gz -o out.db
refused "import through a hard link" "'hard0.json.gz' is the same file as 'rank0.json.gz'" \
    import rank0.json.gz hard0.json.gz -o out.db
refused "import ./x x" "is the same file as" import ./rank0.json.gz rank0.json.gz -o out.db
refused "import a folder and a file in it" "'ranks/rank0.json.gz' is the same file as" \
    import ranks ranks/rank0.json.gz -o out.db
"$os" import rank0.json.gz -o a.db >/dev/null 2>&1 && "$os" import rank1.json.gz -o b.db >/dev/null 2>&1 && ln a.db a-link.db
refused "merge a a" "'a.db' is the same file as 'a.db'" merge a.db a.db -o out.db
refused "merge through a hard link" "'a-link.db' is the same file as 'a.db'" merge a.db b.db a-link.db -o out.db
# two ranks are still merged
"$os" merge a.db b.db -o two.db >/dev/null 2>&1
expect "merge of two ranks: still merged" '[ -s two.db ]'
finish
