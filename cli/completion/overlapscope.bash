# bash completion for overlapscope. Commands and options are read from the installed command
# itself (`overlapscope --help`, `overlapscope help COMMAND`), so they never drift from it.
_overlapscope()
{
    local cur=${COMP_WORDS[COMP_CWORD]}
    local program=${COMP_WORDS[0]}
    local commands
    commands=$("$program" --help 2>/dev/null | awk '/^  [a-z]/ {print $1}')
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$commands help --help --version" -- "$cur"))
        return
    fi
    local command=${COMP_WORDS[1]}
    if [ "$command" = help ]; then
        [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        return
    fi
    if [[ $cur == -* ]]; then
        local options
        options=$("$program" help "$command" 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
        COMPREPLY=($(compgen -W "$options --help" -- "$cur"))
    fi
    # anything else: file names (complete -o default)
}
complete -o default -F _overlapscope overlapscope
