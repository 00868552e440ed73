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
    return ringPixels(a, pixelsPerTurn) === ringPixels(b, pixelsPerTurn);
}

// What `shape` looks like on a ring whose arc is `pixelsPerTurn` device pixels round, as a
// string: two shapes with the same one draw the same pixels.
export function ringPixels(shape, pixelsPerTurn) {
    const pixel = angle => Math.round(angle / TURN * pixelsPerTurn);
    const arc = shape.arc ? `${pixel(shape.arc.start)}-${pixel(shape.arc.end)}` : '';
    return `${shape.color}/${shape.failureMark}/${arc}`;
}

// How many device pixels round the arc of a ring `size` logical pixels wide is at `scale`,
// with the line the indicator draws (a seventh of the size, at least 2).
export function pixelsPerTurn(size, scale = 1) {
    const line = Math.max(2, Math.round(size / 7));
    return TURN * Math.max(1, size / 2 - line / 2 - 0.5) * scale;
}
