/* Forced into the C parts that need it (tools/owrt/compile.sh, gcc -include).
 * OpenWrt's parts are written for musl, which has strlcpy; glibc has it only
 * from 2.38 on (Debian 12: 2.36), and rpcd and procd call it.  No header is
 * included here, so that a part's own feature macros (_GNU_SOURCE,
 * _DEFAULT_SOURCE) still come first. */
#ifndef RETERM_OWRT_COMPAT_H
#define RETERM_OWRT_COMPAT_H
static inline __SIZE_TYPE__
reterm_strlcpy(char *dst, const char *src, __SIZE_TYPE__ size)
{
	__SIZE_TYPE__ len = __builtin_strlen(src);

	if (size) {
		__SIZE_TYPE__ n = len < size - 1 ? len : size - 1;
		__builtin_memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
#define strlcpy reterm_strlcpy
#endif
