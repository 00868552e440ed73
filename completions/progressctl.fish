# fish completion for progressctl(1). The options are those of `progressctl COMMAND --help`
# (CompletionTests compares them); the choices those of the code.

# Task names from the running daemon, from `progressctl list` (a name is what comes before
# the STATE column); nothing on error or without a daemon, at most two seconds of waiting.
function __progressctl_tasks
    timeout 2 progressctl list 2>/dev/null |
        sed -En '2,$ s/ {3,}(running|paused|stalled|finished|failed|cancelled)( .*)?$//p'
end

set -l commands start set pulse finish fail remove cancel pause resume list get watch run pipe render help
set -l named set pulse finish fail remove cancel pause resume get watch render start
complete -c progressctl -f

complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -l help -d 'Print the commands'
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -l version -d 'Print the version'
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a start -d 'Start a task, or pick up a running one'
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a set -d "Set a task's progress"
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a pulse -d 'Show activity on an indeterminate task'
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a finish -d 'Mark a task finished'
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a fail -d 'Mark a task failed, saying why'
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a remove -d 'Remove a task and its children'
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a cancel -d "Ask a task's job to cancel"
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a pause -d "Ask a task's job to pause"
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a resume -d "Ask a paused task's job to go on"
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a list -d 'Show every task'
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a get -d "Show one task's properties"
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a watch -d 'Show tasks live'
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a run -d 'Run a command as a task'
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a pipe -d 'Copy stdin to stdout, reporting the bytes'
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a render -d 'Draw a task as an image'
complete -c progressctl -n "not __fish_seen_subcommand_from $commands" -a help -d "Show a command's help"
complete -c progressctl -n "__fish_seen_subcommand_from help" -a "$commands"
complete -c progressctl -n "__fish_seen_subcommand_from $commands" -l help -d "Print the command's help"

complete -c progressctl -n "__fish_seen_subcommand_from $named" -a '(__progressctl_tasks)' -d Task

complete -c progressctl -n "__fish_seen_subcommand_from start" -l title -x -d 'What the task does, for people'
complete -c progressctl -n "__fish_seen_subcommand_from start set" -l total -x -d 'Units in all'
complete -c progressctl -n "__fish_seen_subcommand_from start" -l unit -x -a 'bytes files items' -d 'Bytes, files, items, or any word'
complete -c progressctl -n "__fish_seen_subcommand_from start" -l indeterminate -d 'The amount of work is unknown'
complete -c progressctl -n "__fish_seen_subcommand_from start" -l app-id -x -d 'The desktop file id of the application'
complete -c progressctl -n "__fish_seen_subcommand_from start" -l lifetime -x -a 'lease caller persistent' -d 'How long the task lives'
complete -c progressctl -n "__fish_seen_subcommand_from start" -l cancellable -d 'A user may ask the job to cancel'
complete -c progressctl -n "__fish_seen_subcommand_from start" -l pausable -d 'A user may ask the job to pause'
complete -c progressctl -n "__fish_seen_subcommand_from start" -l parent -x -a '(__progressctl_tasks)' -d 'Make the task part of another'

complete -c progressctl -n "__fish_seen_subcommand_from set" -l completed -x -d 'Units done'
complete -c progressctl -n "__fish_seen_subcommand_from set" -l message -x -d 'A line about the current step'

complete -c progressctl -n "__fish_seen_subcommand_from list" -l json -d "Print a JSON array of every task's properties"
complete -c progressctl -n "__fish_seen_subcommand_from get" -l json -d 'Print a JSON object'
complete -c progressctl -n "__fish_seen_subcommand_from watch" -l interval -x -d 'The fastest redraw per task, in seconds'

complete -c progressctl -n "__fish_seen_subcommand_from run pipe" -l title -x -d 'What the task does'
complete -c progressctl -n "__fish_seen_subcommand_from run" -l app-id -x -d 'The desktop file id of the application'
complete -c progressctl -n "__fish_seen_subcommand_from run" -l progress-regex -x -d 'Reads a percent, or DONE and TOTAL'
complete -c progressctl -n "__fish_seen_subcommand_from run" -l parse -x -a 'auto osc rsync curl wget git dd pv apt ffmpeg percent count files none' -d 'How to read progress'
complete -c progressctl -n "__fish_seen_subcommand_from run pipe" -l terminal-progress -x -a 'auto always never' -d "Show progress in the terminal's tab"
# After `--`, run's own command line: commands and files.
complete -c progressctl -n "__fish_seen_subcommand_from run; and contains -- -- (commandline -opc)" -a '(__fish_complete_command)' -F
complete -c progressctl -n "__fish_seen_subcommand_from pipe" -l size -x -d 'How many bytes will come'

complete -c progressctl -n "__fish_seen_subcommand_from render" -s o -r -F -d 'Where to write the image'
complete -c progressctl -n "__fish_seen_subcommand_from render" -l style -x -a 'bar striped ring skin pulse' -d 'The style'
complete -c progressctl -n "__fish_seen_subcommand_from render" -l size -x -d 'In logical pixels, such as 300x24'
complete -c progressctl -n "__fish_seen_subcommand_from render" -l scale -x -d 'Device pixels per logical pixel'
complete -c progressctl -n "__fish_seen_subcommand_from render" -l format -x -a 'png svg pdf apng' -d 'The file format'
complete -c progressctl -n "__fish_seen_subcommand_from render" -l theme -x -a 'light dark high-contrast' -d 'The theme'
