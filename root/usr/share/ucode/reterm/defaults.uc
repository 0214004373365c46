// SPDX-License-Identifier: Apache-2.0
//
// The defaults of reterm's global section ('config reterm main'), the one
// place they are written: the renderer (reterm.config) takes an option that
// is not set from here, the latency daemon its proxy port, and
// /etc/uci-defaults/80_reterm adds only the section.  /etc/config/reterm
// ships them spelled out with their comments; a test holds it to this.

'use strict';

export const DEFAULTS = {
	enabled: '0',
	port: '15001',
	mark: '0x10000000',
	mask: '0x10000000',
	table: '100',
	maxconn: '',
	lan_device: 'br-lan',
	ipv6: '1'
};
