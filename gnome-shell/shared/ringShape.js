// The ring's geometry and look from the view's ring: the arc of the overall fraction from
// twelve o'clock, clockwise; a quarter arc that steps round while every live task is
// indeterminate (the pulse, still when animations are off); a mark while a failure
// lingers. Pure: the indicator's St.DrawingArea paints what this returns with Cairo.

// The pulse steps an eighth of a turn at each of the pacer's redraws (four a second): a
// turn in two seconds, at the same pace as every other redraw.
export const PULSE_STEPS = 8;

const TOP = -Math.PI / 2;
const TURN = 2 * Math.PI;

// `ring`: the view's ring; `pulseStep`: how many steps the pulse has taken; `animate`: the
// desktop's enable-animations. Angles in radians, as Cairo's arc takes them.
export function ringShape(ring, pulseStep = 0, animate = true) {
    let arc = null;
    let color = 'running';
    if (ring.live > 0 && ring.indeterminate) {
        const start = TOP + (animate ? (pulseStep % PULSE_STEPS) * TURN / PULSE_STEPS : 0);
        arc = {start, end: start + TURN / 4};
    } else if (ring.live > 0 && ring.fraction > 0) {
        arc = {start: TOP, end: TOP + TURN * Math.min(1, ring.fraction)};
    } else if (ring.live === 0 && ring.failed) {
        // Only failures are left: the whole ring in the failure's colour.
        arc = {start: TOP, end: TOP + TURN};
    }
    if (ring.live > 0 && ring.paused)
        color = 'paused';
    else if (ring.live === 0 && ring.failed)
        color = 'failed';
    return {
        arc,
        color,
        pulsing: ring.live > 0 && ring.indeterminate && animate,
        failureMark: ring.failed,
    };
}

// Whether two shapes draw the same pixels on a ring whose arc is `pixelsPerTurn` pixels
// round: an arc end that moved less than half a pixel is not worth a frame (with 100 tasks
// moving, most changes of the overall fraction are such).
export function sameLook(a, b, pixelsPerTurn) {
    if (!a || !b)
        return a === b;
    if (a.color !== b.color || a.failureMark !== b.failureMark || (a.arc === null) !== (b.arc === null))
        return false;
    if (a.arc === null)
        return true;
    const pixel = angle => Math.round(angle / TURN * pixelsPerTurn);
    return pixel(a.arc.start) === pixel(b.arc.start) && pixel(a.arc.end) === pixel(b.arc.end);
}
