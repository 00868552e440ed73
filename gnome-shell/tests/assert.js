// The few assertions the gjs tests use; each throws with what it saw.

export function equal(actual, expected, what = '') {
    if (actual !== expected)
        throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

export function deepEqual(actual, expected, what = '') {
    const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
    if (a !== e)
        throw new Error(`${what}: expected ${e}, got ${a}`);
}

export function ok(value, what = '') {
    if (!value)
        throw new Error(`${what}: expected a true value, got ${JSON.stringify(value)}`);
}
