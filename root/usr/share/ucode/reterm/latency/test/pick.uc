// SPDX-License-Identifier: Apache-2.0
//
// Which test server a guided test uses (reterm.latency.test.runner's
// test_start): the candidates (reterm.latency.test.endpoints) in order, each
// resolved (in a child process, the loop runs on), its addresses checked
// (reterm.latency.target), and an https:// one asked once per direction
// (reterm.latency.test.tlsload check) before the test starts.  The first that
// passes is used; a failing built-in endpoint hands over to the next.
//
//   let job = pick(env, cands, pol, refuse, done);   job.cancel()
//   done({ cand, urls: { download_url, upload_url }, tried })
//   done({ error, message, tried })
//
// urls carry what the loads need: addrs (the checked addresses: the
// loads connect to those only), and for https:// ca, referer, seconds.
// tried: [ { endpoint, error, message } ] of the candidates that failed.
// refuse(url, why) -> the error of a refused custom URL (the reason goes
// to the log only: the reply must not tell what is there).

'use strict';

import { error } from 'reterm.reply';

import * as target from 'reterm.latency.target';
import * as gtest from 'reterm.latency.test.guided';
import { RESOLVE_TIMEOUT_MS } from 'reterm.latency.test.resolve';

export const RESOLVE_GUARD_MS = RESOLVE_TIMEOUT_MS + 1000, MAX_CA_BYTES = 4194304;
const DIRS = [ [ 'download_url', 'down' ], [ 'upload_url', 'up' ] ];

function ca_problem(fs, path) {
	let st = fs?.stat?.(path);

	if (!st || st.type != 'file')
		return `no CA bundle at ${path}: install the ca-bundle package (or set ca_file in /etc/config/reterm_admin)`;

	if (st.size > MAX_CA_BYTES)
		return `the CA bundle ${path} is larger than ${MAX_CA_BYTES} bytes`;

	return null;
}

// env: { timer, resolve(host, cb) -> job, check(opts, cb) -> job, fs,
// readfile, log }; pol: the admin policy (test_servers, proxy_port,
// ca_file)
export function pick(env, cands, pol, refuse, done) {
	let tried = [], i = 0, cur = { jobs: [], guard: null }, over = false;

	function stop_jobs() {
		cur.guard?.cancel();
		cur.guard = null;

		for (let j in cur.jobs)
			j?.cancel?.();

		cur.jobs = [];
	}

	function finish(r) {
		if (over)
			return;

		over = true;
		stop_jobs();
		done({ ...r, tried });
	}

	let attempt;

	// a candidate failed: a custom URL's error is the answer; a built-in
	// endpoint's is noted and the next one is tried
	function failed(c, err) {
		stop_jobs();

		if (c.id == null)
			return finish(err);

		env.log?.(`test endpoint ${c.id}: ${err.message}`);
		push(tried, { endpoint: c.id, error: err.error, message: err.message });

		if (++i < length(cands))
			return attempt();

		if (length(tried) == 1)
			return finish(err);

		finish(error('no_endpoint', 'no test endpoint worked: ' + join('; ', map(tried, (t) => t.message)) +
		                  '. Retry later, or give the URLs of a test server of your own under Advanced'));
	}

	function refused(c, u, why) {
		if (c.id == null)
			return failed(c, refuse(u, why));

		env.log?.(`test_start: ${c.id}: ${u.url}: ${why}`);
		failed(c, error('target_refused',
		            `${c.name}: ${u.host} resolved to an address that is not a public Internet address: pick another endpoint`));
	}

	// the https:// ones asked once per direction, one after the other
	function preflight(c, urls, k) {
		if (k >= length(DIRS))
			return finish({ cand: c, urls });

		let u = urls[DIRS[k][0]];

		if (u.scheme != 'https')
			return preflight(c, urls, k + 1);

		let why = ca_problem(env.fs, pol.ca_file);

		if (why)
			return failed(c, error('tls_failed', `${c.name}: ${why}`));

		if (type(env.check) != 'function')
			return failed(c, error('tls_failed', `${c.name}: HTTPS is not possible here`));

		// a caller's own URL: no answer is told at one time (tlsload check)
		push(cur.jobs, env.check({ url: u, dir: DIRS[k][1], ca: pol.ca_file, referer: c.referer, name: c.name,
		                           uniform: c.id == null },
			(err) => {
				if (over || cur.cand !== c)
					return;

				if (err)
					return failed(c, err);

				preflight(c, urls, k + 1);
			}));
	}

	// every name resolved: the address checks, then the preflight
	function checked(c, resolved) {
		let urls = {};

		cur.guard?.cancel();
		cur.guard = null;
		pol.own = target.own(env.readfile?.('/proc/net/fib_trie'), env.readfile?.('/proc/net/if_inet6'),
		                     env.readfile?.('/proc/net/ipv6_route'), env.readfile?.('/proc/net/route'));

		for (let d in DIRS) {
			let u = c[d[0]];
			let addrs = (u.family != null) ? [ u.host ] : (resolved[u.host] ?? []);
			let why = target.check_addrs(u, addrs, pol);

			if (why != null)
				return refused(c, u, why);

			urls[d[0]] = { ...u, addrs, ca: pol.ca_file, referer: c.referer, seconds: gtest.total_secs() };
		}

		preflight(c, urls, 0);
	}

	attempt = function() {
		let c = cands[i], names = [], resolved = {};

		cur = { jobs: [], guard: null, cand: c };

		for (let d in DIRS) {
			let why = target.check_port(c[d[0]], pol);

			if (why != null)
				return refused(c, c[d[0]], why);

			if (c[d[0]].family == null && index(names, c[d[0]].host) < 0)
				push(names, c[d[0]].host);
		}

		if (!length(names))
			return checked(c, resolved);

		let left = length(names);

		cur.guard = env.timer(RESOLVE_GUARD_MS, () => {
			cur.guard = null;

			let why = sprintf('no answer from the resolver within %d s', RESOLVE_GUARD_MS / 1000);

			if (c.id == null)
				return refused(c, c.download_url, why);

			failed(c, error('dns_failed', `${c.name}: ${why}: check the router's DNS`));
		});

		for (let n in names) {
			let host = n;

			push(cur.jobs, env.resolve(host, (addrs, why) => {
				if (over || cur.cand !== c)
					return;

				if (addrs == null) {
					let bad = (c.download_url.host == host) ? c.download_url : c.upload_url;

					if (c.id == null)
						return refused(c, bad, sprintf('%s %s', host, why ?? 'does not resolve'));

					return failed(c, error('dns_failed',
					                   `${c.name}: the name ${host} does not resolve (DNS): check the router's DNS, or pick another endpoint`));
				}

				resolved[host] = addrs;

				if (--left == 0)
					checked(c, resolved);
			}));
		}
	};

	attempt();

	return { cancel: () => { over = true; stop_jobs(); } };
};
