'use strict';
'require baseclass';
'require reterm.graphresult as graphresult';

/*
 * Kept only for view/reterm/wizard.js, which still requires reterm.graph
 * for its result chart: the charts are in reterm.graphgeom (geometry),
 * reterm.graphchart (the chart base), reterm.graphlive (live charts)
 * and reterm.graphresult (result charts). Delete this file once the
 * wizard requires reterm.graphresult.
 */

return baseclass.extend({
	__name__: 'reterm.graph',

	phases: (opts) => graphresult.phases(opts),
	cdf: (opts) => graphresult.cdf(opts)
});
