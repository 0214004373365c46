/* Stand-in for the ubus hook of OpenWrt's udebug package (not in
 * tools/owrt/parts.lock): procd asks it whether the udebug service wants
 * procd's log ring.  Nothing here runs that service, so the hook records
 * its arguments and never calls back; procd's own udebug code (libubox)
 * is unchanged. */
#ifndef RETERM_OWRT_UDEBUG_SHIM_H
#define RETERM_OWRT_UDEBUG_SHIM_H
#include <stdbool.h>
#include <libubox/udebug.h>
#include <libubox/blob.h>
#include <libubus.h>

struct udebug_ubus;
typedef void (*udebug_ubus_cb)(struct udebug_ubus *ctx, struct blob_attr *data, bool enabled);

struct udebug_ubus {
	struct ubus_context *ubus;
	const char *service;
	udebug_ubus_cb cb;
};

static inline void
udebug_ubus_init(struct udebug_ubus *ctx, struct ubus_context *ubus,
		 const char *service, udebug_ubus_cb cb)
{
	ctx->ubus = ubus;
	ctx->service = service;
	ctx->cb = cb;
}

static inline void
udebug_ubus_free(struct udebug_ubus *ctx)
{
	ctx->ubus = NULL;
}
#endif
