/*
 * In the browser pages the harness' datatypes.js (imported by the form
 * fake) has no node:net; the import map points it here. No page check
 * uses an IP datatype: a call fails loudly rather than pass unchecked.
 */
const missing = name => () => { throw new Error(`node:net ${name}() is not available in the browser checks`); };

export const isIPv4 = missing('isIPv4');
export const isIPv6 = missing('isIPv6');
