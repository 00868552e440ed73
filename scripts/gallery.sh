#!/bin/sh
# make gallery: every style in every theme, and every state, into docs/gallery/, at scale 2.
# Usage: gallery.sh PROGRESS_RENDER OUTPUT_DIR
set -eu
render="$1"
out="$2"
mkdir -p "$out"
# The skin's images are themselves drawn: a track and a fill to stretch.
"$render" --fraction 0 --size 30x12 --theme light -o "$out/skin-track.png"
"$render" --fraction 1 --size 20x8 --theme light -o "$out/skin-fill.png"
for theme in light dark high-contrast; do
    "$render" --style bar --fraction 0.42 --size 300x24 --scale 2 --theme "$theme" --percent-label -o "$out/bar-$theme.png"
    "$render" --style striped --fraction 0.42 --size 300x24 --scale 2 --theme "$theme" --percent-label -o "$out/striped-$theme.png"
    "$render" --style ring --fraction 0.42 --size 96x96 --scale 2 --theme "$theme" --percent-label -o "$out/ring-$theme.png"
    "$render" --style pulse --phase 0.4 --size 300x24 --scale 2 --theme "$theme" -o "$out/pulse-$theme.png"
    "$render" --style skin --fraction 0.42 --size 300x24 --scale 2 --theme "$theme" \
        --track-image "$out/skin-track.png" --fill-image "$out/skin-fill.png" -o "$out/skin-$theme.png"
done
for state in running paused failed; do
    "$render" --style striped --fraction 0.7 --size 300x24 --scale 2 --state "$state" --percent-label -o "$out/state-$state.png"
done
"$render" --style striped --fraction 1 --size 300x24 --scale 2 --state finished --percent-label -o "$out/state-finished.png"
"$render" --style striped --fraction 0.7 --size 300x24 --scale 2 --percent-label --locale ar_EG -o "$out/rtl-ar.png"
"$render" --style striped --fraction 0.6 --size 300x24 --frames 24 -o "$out/striped-loop.apng"
echo "gallery: $(ls "$out" | wc -l) images in $out"
