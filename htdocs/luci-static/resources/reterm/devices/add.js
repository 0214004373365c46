'use strict';
'require baseclass';
'require ui';
'require dom';
'require uci';
'require reterm.devices.rows as devices';
'require reterm.errtext as errtext';

/*
 * The Devices page's "Add a device by MAC address" box. Adding stages a
 * new `device` section at once (switched on, all ports), like LuCI's own
 * "Add" buttons, through the page's Map save; a refused save takes the
 * section back. Use as: 'require reterm.devices.add as deviceadd';
 *
 *   const box = deviceadd.create({
 *       rows: () => [...],        // the page's rows (reterm.devices.rows merge())
 *       invalid: () => bool,      // the page's form has invalid fields
 *       save: () => Promise,      // the Map's save (staged, no apply)
 *       saved: () => void         // after a successful add
 *   });
 *   box.node                      // the section to place on the page
 *   box.add()                     // → Promise of true (added) | false
 */

const field = (id, title, widget) => E('div', { 'class': 'cbi-value' }, [
	/* LuCI's Textfield: the frame has the id, its <input> widget.<id> */
	E('label', { 'class': 'cbi-value-title', 'for': 'widget.' + id }, [ title ]),
	E('div', { 'class': 'cbi-value-field' }, [ widget ])
]);

const AddBox = baseclass.extend({
	__init__(host) {
		this.host = host;
		this.mac = new ui.Textfield('', { id: 'reterm-add-mac', placeholder: '02:00:00:00:3d:51' });
		this.name = new ui.Textfield('', { id: 'reterm-add-name', placeholder: _('optional, e.g. nintendo-3ds') });
		this.error = E('div', { 'id': 'reterm-add-error' });
		this.node = E('div', { 'class': 'cbi-section', 'id': 'reterm-add' }, [
			E('h3', {}, [ _('Add a device by MAC address') ]),
			E('div', { 'class': 'cbi-section-descr' }, [
				_('For a device that is offline or missing from the list. It is added switched on for all TCP ports (change that in its row) and staged like any other change: Save & Apply puts it into effect.')
			]),
			field('reterm-add-mac', _('MAC address'), this.mac.render()),
			field('reterm-add-name', _('Name'), this.name.render()),
			E('div', { 'class': 'cbi-value' }, [
				E('div', { 'class': 'cbi-value-title' }, [ ' ' ]),
				E('div', { 'class': 'cbi-value-field' }, [
					E('button', { 'class': 'btn cbi-button cbi-button-add', 'id': 'reterm-add-button',
						'click': ui.createHandlerFn(this, 'add') }, [ _('Add') ]),
					this.error
				])
			])
		]);
	},

	showError(msg) {
		dom.content(this.error, msg ? E('div', { 'class': 'alert-message danger' }, [ msg ]) : []);
	},

	/* what is wrong with the typed MAC and name, or null */
	problem(raw, mac, name) {
		let err = devices.validateMac(raw);

		if (!err && name !== '' && devices.validateName(name))
			err = _('Name: %s').format(devices.validateName(name));

		const r = mac ? (this.host.rows() || []).filter((x) => x.mac === mac)[0] : null;

		if (!err && r)
			err = (r.section !== null)
				? _('%s is already in the list.').format(mac)
				: _('%s is already in the list: switch on "Re-terminate" in its row.').format(mac);

		if (!err && this.host.invalid())
			err = _('Correct the marked fields in the list first.');

		return err;
	},

	add() {
		const raw = this.mac.getValue(),
		    name = String(this.name.getValue() || '').replace(/^[ \t]+|[ \t]+$/g, ''),
		    mac = devices.normalizeMac(raw),
		    err = this.problem(raw, mac, name);

		if (err) {
			this.showError(err);
			return Promise.resolve(false);
		}

		const sid = uci.add('reterm', 'device');

		uci.set('reterm', sid, 'name', name || devices.deviceName({ mac, name: '' }));
		uci.set('reterm', sid, 'mac', mac);
		uci.set('reterm', sid, 'enabled', '1');
		uci.set('reterm', sid, 'ports', 'all');

		return this.host.save().then(() => {
			this.mac.setValue('');
			this.name.setValue('');
			this.showError(null);
			this.host.saved();
			return true;
		}, (e) => {
			uci.remove('reterm', sid);
			this.showError(errtext.of(e) || _('The device could not be added.'));
			return false;
		});
	}
});

return baseclass.extend({
	__name__: 'reterm.devices.add',

	create: (host) => new AddBox(host)
});
