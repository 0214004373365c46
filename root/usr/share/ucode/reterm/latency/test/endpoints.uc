// SPDX-License-Identifier: Apache-2.0
//
// The built-in public test endpoints of the guided test, tried in this
// order (the first that works is used), and the list a test_start tries:
//
//   candidates(args) -> [ { id, name, download_url, upload_url, referer } ]
//       custom URLs (download_url and upload_url): just those (id null);
//       an endpoint id: that one first, then the others in order;
//       neither: all in order
//
// Their limits, kept by the load (reterm.latency.test.tlsload):
//   cloudflare  objects below 100 000 000 bytes (larger ones get 403;
//               25 MB per request here, repeated on the same connection),
//               wants a Referer; uploads are chunked POSTs to /__up
//   tele2       plain HTTP on port 80: the fallback for routers without
//               ucode-mod-uclient (HTTPS); a 1 GB object, uploads POSTed
//               to upload.php

'use strict';

import { test_url, https_url } from 'reterm.validate';

export const ENDPOINTS = [
	{ id: 'cloudflare', name: 'Cloudflare speed test',
	  download: 'https://speed.cloudflare.com/__down?bytes=25000000',
	  upload: 'https://speed.cloudflare.com/__up',
	  referer: 'https://speed.cloudflare.com/' },
	{ id: 'tele2', name: 'Tele2 speed test (plain HTTP)',
	  download: 'http://speedtest.tele2.net/1GB.zip',
	  upload: 'http://speedtest.tele2.net/upload.php' }
];

function parsed(e) {
	return { id: e.id, name: e.name, download_url: test_url(e.download),
	         upload_url: test_url(e.upload), referer: e.referer ? https_url(e.referer) : null };
}

// what status/monitor_status show: [ { id, name, download, upload } ]
export function list() {
	return map(ENDPOINTS, (e) => ({ id: e.id, name: e.name, download: e.download, upload: e.upload }));
};

export function find(id) {
	for (let e in ENDPOINTS)
		if (e.id == id)
			return e;

	return null;
};

// a: test_start's checked arguments
export function candidates(a) {
	if (a.download_url)
		return [ { id: null, name: a.download_url.host, download_url: a.download_url,
		           upload_url: a.upload_url, referer: null } ];

	let first = a.endpoint ? find(a.endpoint) : null;
	let out = first ? [ parsed(first) ] : [];

	for (let e in ENDPOINTS)
		if (e !== first)
			push(out, parsed(e));

	return out;
};
