# fish completion for progressd(1). The options are those of `progressd --help`
# (CompletionTests compares them).

complete -c progressd -f
complete -c progressd -l max-signals-per-second -x -d 'PropertiesChanged signals per task per second (1 to 1000)'
complete -c progressd -l max-tasks -x -d 'Tasks the daemon holds at most'
complete -c progressd -l max-tasks-per-caller -x -d 'Tasks one process may hold'
complete -c progressd -l max-reply-bytes -x -d 'Bytes in one reply at most'
complete -c progressd -l max-reply-values -x -d 'Values in one reply at most'
complete -c progressd -l locale-directory -x -a '(__fish_complete_directories)' -d 'Where the message catalogs are'
complete -c progressd -l state-directory -x -a '(__fish_complete_directories)' -d 'Where tasks are kept across restarts'
complete -c progressd -l no-kde-jobs -d 'Neither serve KDE jobs nor forward tasks to Plasma'
complete -c progressd -l notifications -x -a 'none outcomes progress' -d 'Desktop notifications'
complete -c progressd -l notify-after -x -d 'A finish is notified when the task ran this long'
complete -c progressd -l no-launcher-entry -d 'Neither read nor send LauncherEntry (dock progress)'
complete -c progressd -l no-accessibility -d 'Do not publish tasks on the accessibility bus'
complete -c progressd -l no-system-jobs -d 'Do not show jobs of system services'
complete -c progressd -l no-system-jobs-from -x -a 'packagekit udisks2 fwupd importd' -d 'Do not show the jobs of one system service'
complete -c progressd -l system-jobs -x -a 'mine all' -d 'Whose system jobs show'
complete -c progressd -l no-tray -d 'No tray icon (StatusNotifierItem)'
complete -c progressd -l version -d 'Print the version and exit'
complete -c progressd -l help -d 'Print the help and exit'
