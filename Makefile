# luci-app-reterm: one Makefile, two faces.
#  - inside an OpenWrt buildroot or SDK (TOPDIR set) it is a luci.mk package;
#  - on a developer machine it offers `make test`, `make lab`, `make ipk`.

RETERM_VERSION := 0.1.0

LUCI_TITLE:=Re-termination for crippled TCP stacks, CAKE shaping, bufferbloat tests
LUCI_DESCRIPTION:=Transparently re-terminates the TCP connections of selected LAN \
devices (game consoles, handhelds) in a managed haproxy instance, shapes the WAN \
with CAKE through sqm-scripts, and measures latency under load.
# The buildroot cannot express "haproxy or haproxy-nossl"; we name the small
# variant and the .ipk built by `make ipk` accepts either (tools/mkipk.sh).
LUCI_DEPENDS:=+luci-base +rpcd +rpcd-mod-ucode +ucode +ucode-mod-fs \
	+ucode-mod-uci +ucode-mod-ubus +ucode-mod-uloop +ucode-mod-socket \
	+ucode-mod-struct +haproxy-nossl \
	+sqm-scripts +kmod-sched-cake +kmod-nft-tproxy +kmod-nft-socket \
	+kmod-nft-connlimit +tc
# The oldest ucode it runs on: OpenWrt 24.10's, 2025.07.18~3f64c808. One
# string fits opkg and apk: both put 24.10's 2025.07.18~3f64c808-r1 and
# 25.12's 2026.01.16~85922056-r1 at or above it, and 23.05's
# (2024-07-11-1a8a0bcf-3; it packages no ucode-mod-socket) below; no space
# after >= (luci.mk's dependency formatting wants none).
RETERM_UCODE_MIN := 2025.07.18~3f64c808
LUCI_EXTRA_DEPENDS:=ucode (>=$(RETERM_UCODE_MIN))
LUCI_PKGARCH:=all
PKG_LICENSE:=Apache-2.0
PKG_MAINTAINER:=luci-app-reterm developers

ifneq ($(TOPDIR),)

PKG_VERSION:=$(RETERM_VERSION)
PKG_RELEASE:=1

include $(TOPDIR)/rules.mk
include ../../luci.mk

# call BuildPackage - OpenWrt buildroot signature

else

# the benchmark's scenarios (`make lab`); `make test` runs every scenario
LAB_SCENARIOS ?= baseline proxy shaping latency autorate autorate@24.10 lines flood
OUT ?= dist

.PHONY: test lab ipk apk deps clean

test:
	tests/run.sh

deps:
	tests/deps.sh

# the benchmark: the lab's measuring scenarios at full length, with the
# figures measured outside the VM (graph redraw, flash writes of the
# results store); one table of every README target, its figure, its peer
# of the same run and met / not met, also written to docs/benchmarks.md
lab:
	LAB_MODE=bench LAB_SCENARIOS="$(LAB_SCENARIOS)" tests/run.sh browser ucode ucode-24.10 lab

# OpenWrt 24.10 (opkg): the app and one luci-i18n-reterm-<lang> per po/<lang>
ipk:
	tools/mkipk.sh $(RETERM_VERSION) $(OUT)

# OpenWrt 25.12 (apk): the same two, with apk-tools 3 (`apk mkpkg`); the version
# as luci.mk's PKG_VERSION-rPKG_RELEASE
apk:
	tools/mkapk.sh $(RETERM_VERSION)-r1 $(OUT)

clean:
	rm -rf $(OUT) tests/lab/out .cache/tier-*.log .cache/vitest.json

endif
