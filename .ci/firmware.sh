#!/usr/bin/env bash
# Clock firmware checks: build and run the C unit tests with the machine's cc, then
# cross-build for the ATmega328P (Arduino Nano) when avr-gcc is installed
# (Debian: apt-get install gcc-avr avr-libc); without it that step is skipped, saying so.
set -euo pipefail
cd "$(dirname "$0")/../firmware_bridge/firmware"
build="${FIRMWARE_BUILD:-build}"

echo "firmware: C unit tests (host cc)"
make -s BUILD="$build" test

if command -v avr-gcc >/dev/null 2>&1 && command -v avr-objcopy >/dev/null 2>&1; then
    echo "firmware: cross-build for atmega328p with $(avr-gcc --version | head -n1)"
    make -s BUILD="$build" avr
    ls -l "$build/xqclock.hex"
    # The ATmega328P has 2048 bytes of RAM for static data and the stack together, and
    # nothing stops a stack from running into the data: keep room for the deepest call chain
    # (main -> xq_device_receive -> repair_round -> send_event -> send -> xq_frame_encode,
    # 484 bytes by avr-gcc -fstack-usage, plus an interrupt's 27: about 510). The event ring is the
    # big buffer (XQ_EVENT_CAPACITY x 17 bytes): this is what stops it being sized past RAM.
    ram_total=2048
    stack_reserve=512
    ram_static=$(avr-size -A "$build/xqclock.elf" | awk '$1 == ".data" || $1 == ".bss" || $1 == ".noinit" { s += $2 } END { print s + 0 }')
    echo "firmware: static RAM $ram_static bytes, $((ram_total - ram_static)) left for the stack (needs $stack_reserve)"
    if (( ram_static > ram_total - stack_reserve )); then
        echo "firmware: static RAM $ram_static bytes leaves less than $stack_reserve of the ATmega328P's $ram_total bytes for the stack" >&2
        exit 1
    fi
else
    echo "firmware: SKIPPED the AVR cross-build: avr-gcc not installed (apt-get install gcc-avr avr-libc)"
fi
