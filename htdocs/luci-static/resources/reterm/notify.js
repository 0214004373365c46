'use strict';
'require baseclass';
'require ui';

/*
 * The notices of the pages, on every LuCI release: ui.addNotification(title,
 * body, class).  The luci-base of OpenWrt 24.10.0 took a timeout as the third
 * argument and left the class off (24.10.1 went back to the class), so the
 * class is set here too: a "danger" notice stays red on 24.10.0.
 */
return baseclass.extend({
	show(title, body, cls) {
		const node = ui.addNotification(title, body, cls);

		if (cls && node && node.classList && !node.classList.contains(cls))
			node.classList.add(cls);

		return node;
	}
});
