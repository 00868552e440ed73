# bash completion for progress-render(1)
# Plain bash, like progressctl's; the options are those of `progress-render --help`
# (CompletionTests compares them), the choices those of RenderSpec and Theme.

# Task names from the running daemon, as progressctl's completion reads them (bash-completion
# loads one file per program, so that function may not be there).
_progress_render_tasks() {
    local name
    while IFS= read -r name; do
        [[ $name == "$1"* ]] && COMPREPLY+=("$(printf '%q' "$name")")
    done < <(timeout 2 progressctl list 2>/dev/null |
        sed -En '2,$ s/ {3,}(running|paused|stalled|finished|failed|cancelled)( .*)?$//p')
}

_progress_render() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local flags="--indeterminate --percent-label --no-inner-shadow --reduce-motion --list-styles --service --version --help"
    local takes_value="--style --fraction --task --size --scale --format --theme --state --phase --label --locale"
    takes_value+=" --variant --fill --frames --duration --from-fraction --easing --track-image --fill-image -o"
    COMPREPLY=()
    case $prev in
        --style) COMPREPLY=($(compgen -W "bar striped ring pulse skin" -- "$cur")) ;;
        --format) COMPREPLY=($(compgen -W "png svg pdf apng" -- "$cur")) ;;
        --theme) COMPREPLY=($(compgen -W "light dark high-contrast" -- "$cur")) ;;
        --state) COMPREPLY=($(compgen -W "running paused finished failed cancelled" -- "$cur")) ;;
        --variant) COMPREPLY=($(compgen -W "default bar" -- "$cur")) ;;
        --fill) COMPREPLY=($(compgen -W "gradient flat" -- "$cur")) ;;
        --easing) COMPREPLY=($(compgen -W "ease-out spring" -- "$cur")) ;;
        --locale) COMPREPLY=($(compgen -W "$(locale -a 2>/dev/null)" -- "$cur")) ;;
        -o | --track-image | --fill-image) COMPREPLY=($(compgen -f -- "$cur")) ;;
        --task) _progress_render_tasks "$cur" ;;
    esac
    [[ " $takes_value " == *" $prev "* ]] && return
    COMPREPLY=($(compgen -W "$takes_value $flags" -- "$cur"))
}

complete -F _progress_render progress-render
