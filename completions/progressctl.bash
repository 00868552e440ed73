# bash completion for progressctl(1)
# Plain bash (no bash-completion helpers), so that it works without that package and a
# test can drive it with COMP_WORDS and COMP_CWORD alone. The options are those of
# `progressctl COMMAND --help`; CompletionTests compares the two.

# Task names from the running daemon, from `progressctl list`: a name is what comes before
# the STATE column (names may have spaces). Nothing on error, nothing without a daemon, and
# never more than two seconds of waiting for a bus that does not answer.
_progressctl_tasks() {
    local program=progressctl name
    [[ $2 == */* && -x $2 ]] && program=$2
    while IFS= read -r name; do
        [[ $name == "$1"* ]] && COMPREPLY+=("$(printf '%q' "$name")")
    done < <(timeout 2 "$program" list 2>/dev/null |
        sed -En '2,$ s/ {3,}(running|paused|stalled|finished|failed|cancelled)( .*)?$//p')
}

_progressctl() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local commands="start set pulse finish fail remove cancel pause resume list get watch run pipe render"
    local takes_value="--title --total --unit --app-id --lifetime --parent --completed --message --interval"
    takes_value+=" --progress-regex --parse --terminal-progress --size --scale --style --format --theme -o"
    COMPREPLY=()
    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "$commands help --help --version" -- "$cur"))
        return
    fi
    local command=${COMP_WORDS[1]} options i
    case $command in
        start) options="--title --total --unit --indeterminate --app-id --lifetime --cancellable --pausable --parent" ;;
        set) options="--completed --total --message" ;;
        list | get) options="--json" ;;
        watch) options="--interval" ;;
        run) options="--title --app-id --parse --progress-regex --terminal-progress" ;;
        pipe) options="--size --title --terminal-progress" ;;
        render) options="-o --style --size --scale --format --theme" ;;
        pulse | finish | fail | remove | cancel | pause | resume) options="" ;;
        help)
            ((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "$commands" -- "$cur"))
            return
            ;;
        *) return ;;
    esac
    # After `run NAME ... --` comes a command line of its own: a command, then files.
    if [[ $command == run ]]; then
        for ((i = 2; i < COMP_CWORD; i++)); do
            [[ ${COMP_WORDS[i]} == -- ]] || continue
            if ((i + 1 == COMP_CWORD)); then
                COMPREPLY=($(compgen -c -- "$cur" | sort -u))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return
        done
    fi
    case $prev in
        --lifetime) COMPREPLY=($(compgen -W "lease caller persistent" -- "$cur")) ;;
        --parse) COMPREPLY=($(compgen -W "auto osc rsync curl wget git dd pv apt ffmpeg percent count files none" -- "$cur")) ;;
        --terminal-progress) COMPREPLY=($(compgen -W "auto always never" -- "$cur")) ;;
        --style) COMPREPLY=($(compgen -W "bar striped ring skin pulse" -- "$cur")) ;;
        --format) COMPREPLY=($(compgen -W "png svg pdf apng" -- "$cur")) ;;
        --theme) COMPREPLY=($(compgen -W "light dark high-contrast" -- "$cur")) ;;
        --parent) _progressctl_tasks "$cur" "${COMP_WORDS[0]}" ;;
        -o) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
    # A value of an option: the choices above, or nothing to propose (a title, a number).
    [[ " $options " == *" $prev "* && " $takes_value " == *" $prev "* ]] && return
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options --help" -- "$cur"))
        return
    fi
    # The first argument is a task's name (every argument, for watch); later ones are
    # a FRACTION or a MESSAGE, which nothing can guess.
    local positionals=0
    for ((i = 2; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == -* ]]; then
            [[ " $takes_value " == *" ${COMP_WORDS[i]} "* ]] && ((i++))
        else
            ((positionals++))
        fi
    done
    if ((positionals == 0)) || [[ $command == watch ]]; then
        _progressctl_tasks "$cur" "${COMP_WORDS[0]}"
    fi
}

complete -F _progressctl progressctl
