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
else
    echo "firmware: SKIPPED the AVR cross-build: avr-gcc not installed (apt-get install gcc-avr avr-libc)"
fi
