'use strict';
'require baseclass';

/*
 * The text of an error, to show in the page. LuCI's L.raise() appends
 * the stack trace to the message of every error it raises (each RPCError
 * of rpc.js: "RPC call to reterm/hosts failed with error -32000: Object
 * not found" then one "  at …" line per frame); the user sees the
 * message without those lines.
 *
 *   'require reterm.errtext as errtext';
 *   errtext.of(e)   // → string
 */

function of(e) {
	const msg = (e == null) ? '' : (e.message != null) ? String(e.message) : String(e);

	return msg.split('\n').filter((line) => !/^\s+at\s/.test(line)).join('\n').trim();
}

return baseclass.extend({
	__name__: 'reterm.errtext',
	of
});
