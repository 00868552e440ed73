# bash completion for progressd(1)
# Plain bash, like progressctl's; the options are those of `progressd --help`
# (CompletionTests compares them).

_progressd() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    COMPREPLY=()
    case $prev in
        --locale-directory | --state-directory) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --max-signals-per-second | --max-tasks | --max-tasks-per-caller | --max-reply-bytes | --max-reply-values \
        | --notify-after) return ;;
        --notifications) COMPREPLY=($(compgen -W "none outcomes progress" -- "$cur")); return ;;
        --no-system-jobs-from) COMPREPLY=($(compgen -W "packagekit udisks2 fwupd importd" -- "$cur")); return ;;
        --system-jobs) COMPREPLY=($(compgen -W "mine all" -- "$cur")); return ;;
    esac
    COMPREPLY=($(compgen -W "--max-signals-per-second --max-tasks --max-tasks-per-caller --max-reply-bytes
        --max-reply-values --locale-directory --state-directory --no-kde-jobs --notifications --notify-after
        --no-launcher-entry --no-accessibility --no-tray
        --no-system-jobs --no-system-jobs-from --system-jobs --version --help" -- "$cur"))
}

complete -F _progressd progressd
