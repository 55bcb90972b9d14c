# SPDX-License-Identifier: GPL-3.0-or-later
#
# Headless Chromium for the report tests, sourced (. chromium.sh) by
# tests/replay/html-report.sh and tests/campaign/html-report.sh.
#
#   chromium_init NAME  find the browser (exit 77 without it, or 1 when
#                       CHROMIUM_REQUIRED=1, as in CI), make $tmp (a fresh
#                       /tmp/NAME-XXXXXX, removed at exit), fail=0
#   bad TEXT            note a failure (fail=1) and say it
#   chrome PROFILE ARGS one headless run with a profile of its own, its
#                       log appended to $tmp/chrome.err
#   check_console       a failure for each script error Chromium logged
#   check_screenshot FILE [MIN]  a failure unless FILE is a PNG of MIN
#                       bytes or more (default 10000)
chromium_init() {
	browser=$(command -v chromium || command -v chromium-browser || true)
	if [ -z "$browser" ]; then
		if [ "${CHROMIUM_REQUIRED:-0}" = 1 ]; then
			echo "FAIL: chromium is not installed and CHROMIUM_REQUIRED=1" >&2
			exit 1
		fi
		echo "SKIP: chromium is not installed (apt install chromium)"
		exit 77
	fi
	tmp=$(mktemp -d "/tmp/$1-XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT
	fail=0
}

bad() { echo "FAIL: $*" >&2; fail=1; }

chrome() {
	p=$1
	shift
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --user-data-dir="$tmp/$p" \
		--enable-logging=stderr --v=0 "$@" 2>>"$tmp/chrome.err"
}

check_console() {
	if grep -E 'CONSOLE.*(Uncaught|Error)' "$tmp/chrome.err" >/dev/null; then
		bad "console errors: $(grep -E 'CONSOLE' "$tmp/chrome.err" | head -n 3)"
	fi
}

check_screenshot() {
	if ! head -c 8 "$1" 2>/dev/null | od -An -c | grep -q 'P   N   G'; then
		bad "no screenshot"
	elif [ "$(wc -c <"$1")" -lt "${2:-10000}" ]; then
		bad "the screenshot is nearly empty ($(wc -c <"$1") bytes)"
	fi
}
