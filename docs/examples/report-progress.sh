#!/bin/sh
# Reports a job's progress to progressd with gdbus alone (libglib2.0-bin): a task of five
# files, one update a file, then finished; then reads back what a panel would show.
# A script without a connection of its own keeps the default "lease" lifetime: the task
# stalls if the script stops calling, and fails when its lease runs out.
set -eu

manager() {
    method=$1
    shift
    gdbus call --session --dest org.progressd.Progress1 --object-path /org/progressd/Progress1 \
        --method "org.progressd.Progress1.Manager.$method" "$@" > /dev/null
}

task_property() {
    # gdbus prints (<'finished'>,): the text between the quotes.
    gdbus call --session --dest org.progressd.Progress1 --object-path /org/progressd/Progress1/tasks/photos \
        --method org.freedesktop.DBus.Properties.Get org.progressd.Progress1.Task "$1" | sed -E "s/^\(<'(.*)'>,\)$/\1/"
}

manager Start photos "{'title': <'Copying photos'>, 'total': <uint64 5>, 'unit': <'files'>}"
done=0
for name in beach.jpg cat.jpg dog.jpg forest.jpg snow.jpg; do
    # The real work on the file goes here.
    done=$((done + 1))
    manager Update photos "{'completed': <uint64 $done>, 'message': <'$name'>}"
done
manager Finish photos
echo "photos: $(task_property State), $(task_property Detail)"
