# fish completion for progress-render(1). The options are those of `progress-render --help`
# (CompletionTests compares them); the choices those of RenderSpec and Theme.

function __progress_render_tasks
    timeout 2 progressctl list 2>/dev/null |
        sed -En '2,$ s/ {3,}(running|paused|stalled|finished|failed|cancelled)( .*)?$//p'
end

complete -c progress-render -f
complete -c progress-render -l style -x -a 'bar striped ring pulse skin' -d 'The style (default bar)'
complete -c progress-render -l fraction -x -d 'How much is done, 0 to 1'
complete -c progress-render -l task -x -a '(__progress_render_tasks)' -d 'Draw a live progressd task instead'
complete -c progress-render -l size -x -d 'In logical pixels (default 300x24)'
complete -c progress-render -l scale -x -d 'Device pixels per logical pixel (default 1)'
complete -c progress-render -l format -x -a 'png svg pdf apng' -d 'The file format (default: from the file name)'
complete -c progress-render -l theme -x -a 'light dark high-contrast' -d 'The theme'
complete -c progress-render -l state -x -a 'running paused finished failed cancelled' -d "The task's state"
complete -c progress-render -l indeterminate -d 'The amount of work is unknown'
complete -c progress-render -l phase -x -d 'Animation phase of stripes or pulse, 0 to 1'
complete -c progress-render -l label -x -d 'A label to draw'
complete -c progress-render -l percent-label -d "Draw the percent, in the locale's own form"
complete -c progress-render -l locale -x -a '(locale -a 2>/dev/null)' -d 'For the label and direction'
complete -c progress-render -l variant -x -a 'default bar' -d 'default, or bar for the thin bar'
complete -c progress-render -l fill -x -a 'gradient flat' -d 'striped: gradient or flat'
complete -c progress-render -l no-inner-shadow -d 'striped: no inner shadow in the track'
complete -c progress-render -l frames -x -d 'apng: frames (default 24)'
complete -c progress-render -l duration -x -d 'apng: length of the animation, in seconds'
complete -c progress-render -l from-fraction -x -d 'apng: animate the value from F to --fraction'
complete -c progress-render -l easing -x -a 'ease-out spring' -d 'apng: ease-out or spring'
complete -c progress-render -l reduce-motion -d 'A single frame, without motion'
complete -c progress-render -l track-image -r -F -d "skin: the track's image"
complete -c progress-render -l fill-image -r -F -d "skin: the fill's image"
complete -c progress-render -s o -r -F -d 'Where to write the image'
complete -c progress-render -l list-styles -d 'Print the styles and exit'
complete -c progress-render -l service -d 'Serve org.progressd.Renderer1 on the session bus'
complete -c progress-render -l version -d 'Print the version and exit'
complete -c progress-render -l help -d 'Print the help and exit'
